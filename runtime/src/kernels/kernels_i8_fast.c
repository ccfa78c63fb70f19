/* kernels_i8_fast.c - the int8 convolution loops behind tigris_i8_conv (kernels_fast.h).
 *
 * x and w hold I8 storage, read as int8_t values. Per output element the accumulator is
 *   bias + D - zw Sx - zx Sw + n zx zw,  D = sum x w,  Sx = sum x,  Sw = sum w
 * over the n in-image taps of its window (padding is zx, which adds nothing), all modulo 2^32
 * (unsigned arithmetic, defined on overflow); the true value fits int32 (the reference kernel's
 * acc_fits), so the wrapped one is it. Sw of a whole window is computed once per output channel
 * and call; only a window clipped by the image border sums its own. The dot products run over
 * fixed-width lane arrays the compiler can vectorize, two pixels by two output channels at a
 * time so each loaded value serves two products. Both loops walk the resident window of the
 * output (a 2-D tile or a band of whole rows) alike, addressing input columns by tk_col.
 */
#include "i8_math.h"
#include "kernels_fast.h"

#define LANES 8     /* partial sums per dot product */
#define OCHUNK 64   /* output channels whose whole-window weight sums are kept */
#define DW_CHUNK 16 /* depthwise channels accumulated side by side */

/* The int32 whose two's complement is v (v is a true int32 value modulo 2^32). */
static inline int32_t wrap_i32(uint32_t v) {
    return v <= 0x7FFFFFFFu ? (int32_t)v : -(int32_t)(0xFFFFFFFFu - v) - 1;
}

/* s[0..3] += sums over i < len of x0 w0, x0 w1, x1 w0, x1 w1 (modulo 2^32). */
static void dot_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                    uint32_t *s) {
    uint32_t a[LANES], b[LANES], c[LANES], d[LANES];
    int32_t i = 0, j;
    for (j = 0; j < LANES; ++j) a[j] = b[j] = c[j] = d[j] = 0;
    for (; i + LANES <= len; i += LANES) {
        for (j = 0; j < LANES; ++j) {
            const int32_t p = x0[i + j], q = x1[i + j], u = w0[i + j], v = w1[i + j];
            a[j] += (uint32_t)(p * u);
            b[j] += (uint32_t)(p * v);
            c[j] += (uint32_t)(q * u);
            d[j] += (uint32_t)(q * v);
        }
    }
    for (; i < len; ++i) {
        const int32_t p = x0[i], q = x1[i], u = w0[i], v = w1[i];
        s[0] += (uint32_t)(p * u);
        s[1] += (uint32_t)(p * v);
        s[2] += (uint32_t)(q * u);
        s[3] += (uint32_t)(q * v);
    }
    for (j = 0; j < LANES; ++j) {
        s[0] += a[j];
        s[1] += b[j];
        s[2] += c[j];
        s[3] += d[j];
    }
}

/* dot_2x2 for one pixel (s[0..1]): a pixel without a partner (a window's edge, or a tile's last
 * column) costs half a pair, not a whole one. */
static void dot_1x2(const int8_t *x0, const int8_t *w0, const int8_t *w1, int32_t len, uint32_t *s) {
    uint32_t a[LANES], b[LANES];
    int32_t i = 0, j;
    for (j = 0; j < LANES; ++j) a[j] = b[j] = 0;
    for (; i + LANES <= len; i += LANES) {
        for (j = 0; j < LANES; ++j) {
            const int32_t p = x0[i + j];
            a[j] += (uint32_t)(p * w0[i + j]);
            b[j] += (uint32_t)(p * w1[i + j]);
        }
    }
    for (; i < len; ++i) {
        s[0] += (uint32_t)(x0[i] * w0[i]);
        s[1] += (uint32_t)(x0[i] * w1[i]);
    }
    for (j = 0; j < LANES; ++j) {
        s[0] += a[j];
        s[1] += b[j];
    }
}

/* Sum of len int8 values (modulo 2^32). */
static uint32_t sum_i8(const int8_t *v, size_t len) {
    uint32_t lane[LANES], s = 0;
    size_t i = 0;
    int32_t j;
    for (j = 0; j < LANES; ++j) lane[j] = 0;
    for (; i + LANES <= len; i += LANES)
        for (j = 0; j < LANES; ++j) lane[j] += (uint32_t)(int32_t)v[i + j];
    for (; i < len; ++i) s += (uint32_t)(int32_t)v[i];
    for (j = 0; j < LANES; ++j) s += lane[j];
    return s;
}

/* The in-image taps of one output pixel (or of two with the same clipped window). */
typedef struct {
    const tigris_view_t *x;
    int32_t n, iy0, ky0, ky1, ix0, kx0, kx1, cin, icg, KW, pitch; /* pitch: x offset of the 2nd pixel */
    int merge; /* the taps of a row are one contiguous run of x and of w */
} window_t;

/* Visit the runs of the window: x run, offset of its weights in a channel's window, length
 * (none for a window of padding only: no pointer into x is formed for it). */
#define WINDOW_RUNS(win, XP, WOFF, LEN, BODY)                                                                    \
    do {                                                                                                       \
        int32_t ky_, kx_;                                                                                      \
        for (ky_ = (win)->ky0; ky_ < (win)->ky1 && (win)->kx0 < (win)->kx1; ++ky_) {                            \
            const int8_t *row_ = (const int8_t *)(const void *)tigris_view_row(                                \
                (win)->x, (win)->n, (win)->iy0 + ky_ * a->ah.d);                                               \
            if ((win)->merge) {                                                                                \
                const int8_t *XP = row_ + tk_col((win)->x, (win)->ix0 + (win)->kx0) + (size_t)(win)->cin;        \
                const size_t WOFF = ((size_t)ky_ * (size_t)(win)->KW + (size_t)(win)->kx0) * (size_t)(win)->icg; \
                const int32_t LEN = ((win)->kx1 - (win)->kx0) * (win)->icg;                                    \
                BODY;                                                                                          \
            } else {                                                                                           \
                for (kx_ = (win)->kx0; kx_ < (win)->kx1; ++kx_) {                                              \
                    const int8_t *XP = row_ + tk_col((win)->x, (win)->ix0 + kx_ * a->aw.d) + (size_t)(win)->cin; \
                    const size_t WOFF = ((size_t)ky_ * (size_t)(win)->KW + (size_t)kx_) * (size_t)(win)->icg;  \
                    const int32_t LEN = (win)->icg;                                                            \
                    BODY;                                                                                      \
                }                                                                                              \
            }                                                                                                  \
        }                                                                                                      \
    } while (0)

int tk_i8_conv_fast(const tk_i8_conv_args_t *a) {
    const tigris_view_t xv = *a->x, yv = *a->y, *x = &xv, *y = &yv; /* locals: no byte store aliases them */
    const int32_t O = y->c, C = x->c, icg = C / a->group, ocg = O / a->group, KH = a->ah.k, KW = a->aw.k;
    const size_t T = (size_t)KH * (size_t)KW * (size_t)icg; /* one channel's weights */
    const int8_t *wd = (const int8_t *)(const void *)a->w->data;
    const uint32_t zx = (uint32_t)a->x_zp;
    uint32_t wsum[OCHUNK];
    int32_t o0, o1, o, n, oy, ox;
    window_t win;
    win.x = x;
    win.icg = icg;
    win.KW = KW;
    win.merge = a->group == 1 && a->aw.d == 1;
    win.pitch = a->aw.s * C;
    for (o0 = 0; o0 < O; o0 = o1) {
        const int32_t g = o0 / ocg;
        o1 = o0 + OCHUNK < (g + 1) * ocg ? o0 + OCHUNK : (g + 1) * ocg;
        win.cin = g * icg;
        for (o = o0; o < o1; ++o) wsum[o - o0] = sum_i8(wd + (size_t)o * T, T);
        for (n = 0; n < y->n; ++n) {
            win.n = n;
            for (oy = y->h_start; oy < y->h_end; ++oy) {
                uint8_t *yrow = tigris_view_row(y, n, oy);
                win.iy0 = oy * a->ah.s - a->ah.pb;
                tk_axis_taps(&a->ah, win.iy0, 0, x->h, &win.ky0, &win.ky1);
                for (ox = y->w_start; ox < y->w_end;) {
                    int32_t kx0b, kx1b, np, p;
                    uint32_t sx[2], count;
                    int full;
                    win.ix0 = ox * a->aw.s - a->aw.pb;
                    tk_axis_taps(&a->aw, win.ix0, 0, x->w, &win.kx0, &win.kx1);
                    np = 1;
                    if (ox + 1 < y->w_end) {
                        tk_axis_taps(&a->aw, win.ix0 + a->aw.s, 0, x->w, &kx0b, &kx1b);
                        if (kx0b == win.kx0 && kx1b == win.kx1) np = 2;
                    }
                    full = win.ky0 == 0 && win.ky1 == KH && win.kx0 == 0 && win.kx1 == KW;
                    count = (uint32_t)(win.ky1 - win.ky0) * (uint32_t)(win.kx1 - win.kx0) * (uint32_t)icg;
                    sx[0] = sx[1] = 0;
                    WINDOW_RUNS(&win, xp, woff, len, {
                        (void)woff;
                        sx[0] += sum_i8(xp, (size_t)len);
                        if (np == 2) sx[1] += sum_i8(xp + win.pitch, (size_t)len);
                    });
                    for (o = o0; o < o1; o += 2) {
                        const int32_t ob = o + 1 < o1 ? o + 1 : o;
                        const int8_t *w0 = wd + (size_t)o * T, *w1 = wd + (size_t)ob * T;
                        uint32_t s[4] = {0, 0, 0, 0}, sw[2];
                        int32_t q;
                        if (np == 2)
                            WINDOW_RUNS(&win, xp, woff, len, dot_2x2(xp, xp + win.pitch, w0 + woff, w1 + woff, len, s));
                        else
                            WINDOW_RUNS(&win, xp, woff, len, dot_1x2(xp, w0 + woff, w1 + woff, len, s));
                        if (full) {
                            sw[0] = wsum[o - o0];
                            sw[1] = wsum[ob - o0];
                        } else {
                            sw[0] = sw[1] = 0;
                            WINDOW_RUNS(&win, xp, woff, len, {
                                (void)xp;
                                sw[0] += sum_i8(w0 + woff, (size_t)len);
                                sw[1] += sum_i8(w1 + woff, (size_t)len);
                            });
                        }
                        for (p = 0; p < np; ++p) {
                            for (q = 0; q < (ob != o ? 2 : 1); ++q) {
                                const int32_t oc = o + q;
                                const uint32_t zw = (uint32_t)(a->w_zps != NULL ? a->w_zps[oc] : a->w_zp);
                                const uint32_t acc = (a->bias != NULL ? (uint32_t)a->bias[oc] : 0u) + s[2 * p + q] -
                                                     zw * sx[p] - zx * sw[q] + count * zx * zw;
                                yrow[tk_col(y, ox + p) + (size_t)oc] = tigris_i8_byte(tigris_i8_requant(
                                    wrap_i32(acc), tigris_i8_f32(a->scales[oc]), a->y_zp, a->lo, a->hi));
                            }
                        }
                    }
                    ox += np;
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* acc[j] += (x[j] - zx)(w[j] - zw[j]) for j < len: exact int32 (the reference's acc_fits). */
static inline void dw_tap(int32_t *acc, const int8_t *x, const int8_t *w, const int32_t *zw, int32_t zx, int32_t len) {
    int32_t j;
    if (len == DW_CHUNK) {
        for (j = 0; j < DW_CHUNK; ++j) acc[j] += ((int32_t)x[j] - zx) * ((int32_t)w[j] - zw[j]);
    } else {
        for (j = 0; j < len; ++j) acc[j] += ((int32_t)x[j] - zx) * ((int32_t)w[j] - zw[j]);
    }
}

int tk_i8_depthwise_fast(const tk_i8_conv_args_t *a) {
    const tigris_view_t xv = *a->x, yv = *a->y, *x = &xv, *y = &yv; /* locals: no byte store aliases them */
    const int32_t C = y->c, KW = a->aw.k;
    const size_t step = (size_t)a->aw.d * (size_t)C; /* x from one tap to the next along W */
    const int8_t *wd = (const int8_t *)(const void *)a->w->data;
    int32_t acc[DW_CHUNK], zw[DW_CHUNK];
    int32_t n, oy, ox, c0, j;
    for (c0 = 0; c0 < C; c0 += DW_CHUNK) {
        const int32_t len = C - c0 < DW_CHUNK ? C - c0 : DW_CHUNK;
        for (j = 0; j < len; ++j) zw[j] = a->w_zps != NULL ? a->w_zps[c0 + j] : a->w_zp;
        for (n = 0; n < y->n; ++n) {
            for (oy = y->h_start; oy < y->h_end; ++oy) {
                uint8_t *yrow = tigris_view_row(y, n, oy);
                const int32_t iy0 = oy * a->ah.s - a->ah.pb;
                int32_t ky0, ky1, ky;
                tk_axis_taps(&a->ah, iy0, 0, x->h, &ky0, &ky1);
                for (ox = y->w_start; ox < y->w_end; ++ox) {
                    const int32_t ix0 = ox * a->aw.s - a->aw.pb;
                    uint8_t *yp = yrow + tk_col(y, ox) + (size_t)c0;
                    int32_t kx0, kx1, kx;
                    tk_axis_taps(&a->aw, ix0, 0, x->w, &kx0, &kx1);
                    for (j = 0; j < len; ++j) acc[j] = a->bias != NULL ? a->bias[c0 + j] : 0;
                    for (ky = ky0; ky < ky1 && kx0 < kx1; ++ky) { /* no pointer into x for padding only */
                        const int8_t *xp = (const int8_t *)(const void *)tigris_view_row(x, n, iy0 + ky * a->ah.d) +
                                           tk_col(x, ix0 + kx0 * a->aw.d) + (size_t)c0;
                        const int8_t *wp = wd + ((size_t)ky * (size_t)KW + (size_t)kx0) * (size_t)C + (size_t)c0;
                        for (kx = 0; kx < kx1 - kx0; ++kx)
                            dw_tap(acc, xp + (size_t)kx * step, wp + (size_t)kx * (size_t)C, zw, a->x_zp, len);
                    }
                    for (j = 0; j < len; ++j)
                        yp[j] = tigris_i8_byte(tigris_i8_requant(acc[j], tigris_i8_f32(a->scales[c0 + j]), a->y_zp,
                                                                 a->lo, a->hi));
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}
