/* kernels_i8_fast.c - the int8 convolution loops behind tigris_i8_conv (kernels_fast.h).
 *
 * x and w hold I8 storage, read as int8_t values. Per output element the accumulator is
 *   bias + D - zw Sx - zx Sw + n zx zw,  D = sum x w,  Sx = sum x,  Sw = sum w
 * over the n in-image taps of its window (padding is zx, which adds nothing), all modulo 2^32
 * (unsigned arithmetic, defined on overflow); the true value fits int32 (the reference kernel's
 * acc_fits), so the wrapped one is it. Sw of a whole window is computed once per output channel
 * and call (with the bias and the n zx zw term: one constant per output channel); only a window
 * clipped by the image border sums its own. The dot products run in fixed-length blocks each
 * reduced to one int32 (the shape compilers vectorize at -O2), two pixels by two output channels
 * at a time so each loaded value serves two products. Depthwise centres its weights (w - zw)
 * once per channel chunk. Requantization bounds are computed once per call (tigris_i8_range).
 * Both loops walk the resident window of the output (a 2-D tile or a band of whole rows) alike,
 * addressing input columns by tk_col.
 */
#include "i8_math.h"
#include "kernels_fast.h"

#define BLOCK 16  /* values per fixed-length dot block (a whole vector register or two) */
#define OCHUNK 64 /* output channels whose whole-window weight sums are kept */
#define DW_CHUNK 16 /* depthwise channels accumulated side by side */

/* The int32 whose two's complement is v (v is a true int32 value modulo 2^32). */
static inline int32_t wrap_i32(uint32_t v) {
    return v <= 0x7FFFFFFFu ? (int32_t)v : -(int32_t)(0xFFFFFFFFu - v) - 1;
}

/* The dot products below sum raw int8 products in int32 without overflow: the fast path runs
 * only on int8 storage, where every |x - zx| and |w - zw| range reaches 128, so the reference's
 * acc_fits (taps x max|x - zx| x max|w - zw| <= INT32_MAX) bounds taps x 128 x 128, hence any
 * partial sum of |x w| <= 128 x 128 per tap. Blocks of a fixed length reduced to one int32 are
 * the shape compilers vectorize at their default optimization (GCC -O2: no loop epilogue). */
static inline int32_t dot_block(const int8_t *x, const int8_t *w) {
    int32_t j, s = 0;
    for (j = 0; j < BLOCK; ++j) s += (int32_t)x[j] * (int32_t)w[j];
    return s;
}

static inline int32_t dot_half(const int8_t *x, const int8_t *w) {
    int32_t j, s = 0;
    for (j = 0; j < BLOCK / 2; ++j) s += (int32_t)x[j] * (int32_t)w[j];
    return s;
}

/* s[0..3] += sums over i < len of x0 w0, x0 w1, x1 w0, x1 w1 (modulo 2^32). */
static inline void dot_2x2(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                    uint32_t *s) {
    int32_t a = 0, b = 0, c = 0, d = 0, i = 0;
    for (; i + BLOCK <= len; i += BLOCK) {
        a += dot_block(x0 + i, w0 + i);
        b += dot_block(x0 + i, w1 + i);
        c += dot_block(x1 + i, w0 + i);
        d += dot_block(x1 + i, w1 + i);
    }
    if (i + BLOCK / 2 <= len) {
        a += dot_half(x0 + i, w0 + i);
        b += dot_half(x0 + i, w1 + i);
        c += dot_half(x1 + i, w0 + i);
        d += dot_half(x1 + i, w1 + i);
        i += BLOCK / 2;
    }
    for (; i < len; ++i) {
        const int32_t p = x0[i], q = x1[i], u = w0[i], v = w1[i];
        a += p * u;
        b += p * v;
        c += q * u;
        d += q * v;
    }
    s[0] += (uint32_t)a;
    s[1] += (uint32_t)b;
    s[2] += (uint32_t)c;
    s[3] += (uint32_t)d;
}

/* dot_2x2 for one pixel (s[0..1]): a pixel without a partner (a window's edge, or a tile's last
 * column) costs half a pair, not a whole one. */
static inline void dot_1x2(const int8_t *x0, const int8_t *w0, const int8_t *w1, int32_t len, uint32_t *s) {
    int32_t a = 0, b = 0, i = 0;
    for (; i + BLOCK <= len; i += BLOCK) {
        a += dot_block(x0 + i, w0 + i);
        b += dot_block(x0 + i, w1 + i);
    }
    if (i + BLOCK / 2 <= len) {
        a += dot_half(x0 + i, w0 + i);
        b += dot_half(x0 + i, w1 + i);
        i += BLOCK / 2;
    }
    for (; i < len; ++i) {
        a += x0[i] * w0[i];
        b += x0[i] * w1[i];
    }
    s[0] += (uint32_t)a;
    s[1] += (uint32_t)b;
}

/* Sum of len int8 values (modulo 2^32: each block sums exactly in int32, the blocks wrap). */
static uint32_t sum_i8(const int8_t *v, size_t len) {
    uint32_t s = 0;
    size_t i = 0;
    int32_t j;
    for (; i + BLOCK <= len; i += BLOCK) {
        int32_t b = 0;
        for (j = 0; j < BLOCK; ++j) b += v[i + j];
        s += (uint32_t)b;
    }
    for (; i < len; ++i) s += (uint32_t)(int32_t)v[i];
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
    const tigris_i8_range_t range = tigris_i8_range(a->y_zp, a->lo, a->hi);
    /* per output channel of the chunk: zw, bias, and bias + T zx zw - zx Sw of a whole window */
    uint32_t zw[OCHUNK], bias[OCHUNK], kfull[OCHUNK];
    float scale[OCHUNK];
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
        for (o = o0; o < o1; ++o) {
            const int32_t k = o - o0;
            zw[k] = (uint32_t)(a->w_zps != NULL ? a->w_zps[o] : a->w_zp);
            bias[k] = a->bias != NULL ? (uint32_t)a->bias[o] : 0u;
            kfull[k] = bias[k] + (uint32_t)T * zx * zw[k] - zx * sum_i8(wd + (size_t)o * T, T);
            scale[k] = tigris_i8_f32(a->scales[o]);
        }
        for (n = 0; n < y->n; ++n) {
            win.n = n;
            for (oy = y->h_start; oy < y->h_end; ++oy) {
                uint8_t *yrow = tigris_view_row(y, n, oy);
                win.iy0 = oy * a->ah.s - a->ah.pb;
                tk_axis_taps(&a->ah, win.iy0, 0, x->h, &win.ky0, &win.ky1);
                for (ox = y->w_start; ox < y->w_end;) {
                    uint8_t *yp = yrow + tk_col(y, ox);
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
                        const int32_t ob = o + 1 < o1 ? o + 1 : o, nq = ob != o ? 2 : 1;
                        const int8_t *w0 = wd + (size_t)o * T, *w1 = wd + (size_t)ob * T;
                        uint32_t s[4] = {0, 0, 0, 0}, k[2];
                        int32_t q;
                        if (np == 2)
                            WINDOW_RUNS(&win, xp, woff, len, dot_2x2(xp, xp + win.pitch, w0 + woff, w1 + woff, len, s));
                        else
                            WINDOW_RUNS(&win, xp, woff, len, dot_1x2(xp, w0 + woff, w1 + woff, len, s));
                        if (full) {
                            k[0] = kfull[o - o0];
                            k[1] = kfull[ob - o0];
                        } else { /* bias - zx Sw + count zx zw over the clipped window */
                            uint32_t sw[2] = {0, 0};
                            WINDOW_RUNS(&win, xp, woff, len, {
                                (void)xp;
                                sw[0] += sum_i8(w0 + woff, (size_t)len);
                                sw[1] += sum_i8(w1 + woff, (size_t)len);
                            });
                            for (q = 0; q < 2; ++q)
                                k[q] = bias[o + q * (ob - o) - o0] - zx * sw[q] + count * zx * zw[o + q * (ob - o) - o0];
                        }
                        for (p = 0; p < np; ++p) {
                            uint8_t *yo = yp + (size_t)p * (size_t)O + (size_t)o;
                            for (q = 0; q < nq; ++q) {
                                const uint32_t acc = s[2 * p + q] + k[q] - zw[o + q - o0] * sx[p];
                                yo[q] = tigris_i8_byte(tigris_i8_requant_to(&range, wrap_i32(acc), scale[o + q - o0]));
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

/* acc[j] += (x[j] - zx) wc[j] for j < len, wc = w - zw (int16: |w - zw| <= 255): exact int32
 * (the reference's acc_fits). */
static inline void dw_tap(int32_t *acc, const int8_t *x, const int16_t *wc, int32_t zx, int32_t len) {
    int32_t j;
    if (len == DW_CHUNK) {
        for (j = 0; j < DW_CHUNK; ++j) acc[j] += ((int32_t)x[j] - zx) * (int32_t)wc[j];
    } else {
        for (j = 0; j < len; ++j) acc[j] += ((int32_t)x[j] - zx) * (int32_t)wc[j];
    }
}

/* The centred weights w - zw of one window row's taps [kx0, kx1) for channels [c0, c0 + len),
 * DW_CHUNK apart: from the chunk's table when the window fits it (taps < 0: it does not). */
static const int16_t *dw_weights(const int16_t *table, int32_t taps, const int8_t *wd, const int32_t *zw, int32_t KW,
                                 int32_t C, int32_t c0, int32_t len, int32_t ky, int32_t kx0, int32_t kx1,
                                 int16_t *scratch) {
    int32_t kx, j;
    if (taps >= 0) return table + ((size_t)ky * (size_t)KW + (size_t)kx0) * DW_CHUNK;
    for (kx = kx0; kx < kx1; ++kx) {
        const int8_t *wp = wd + ((size_t)ky * (size_t)KW + (size_t)kx) * (size_t)C + (size_t)c0;
        for (j = 0; j < len; ++j) scratch[(size_t)(kx - kx0) * DW_CHUNK + (size_t)j] = (int16_t)(wp[j] - zw[j]);
    }
    return scratch;
}

#define DW_TAPS 25 /* window taps (5 x 5) whose centred weights a chunk keeps in a table */
#define DW_ROW 32  /* taps of one window row the fallback centres at a time */

int tk_i8_depthwise_fast(const tk_i8_conv_args_t *a) {
    const tigris_view_t xv = *a->x, yv = *a->y, *x = &xv, *y = &yv; /* locals: no byte store aliases them */
    const int32_t C = y->c, KH = a->ah.k, KW = a->aw.k;
    const size_t step = (size_t)a->aw.d * (size_t)C; /* x from one tap to the next along W */
    const int8_t *wd = (const int8_t *)(const void *)a->w->data;
    const tigris_i8_range_t range = tigris_i8_range(a->y_zp, a->lo, a->hi);
    const int tabled = (int64_t)KH * KW <= DW_TAPS;
    int16_t table[DW_TAPS * DW_CHUNK], scratch[DW_ROW * DW_CHUNK];
    int32_t acc[DW_CHUNK], zw[DW_CHUNK], bias[DW_CHUNK];
    float scale[DW_CHUNK];
    int32_t n, oy, ox, c0, j, t;
    for (c0 = 0; c0 < C; c0 += DW_CHUNK) {
        const int32_t len = C - c0 < DW_CHUNK ? C - c0 : DW_CHUNK;
        for (j = 0; j < len; ++j) {
            zw[j] = a->w_zps != NULL ? a->w_zps[c0 + j] : a->w_zp;
            bias[j] = a->bias != NULL ? a->bias[c0 + j] : 0;
            scale[j] = tigris_i8_f32(a->scales[c0 + j]);
        }
        for (t = 0; tabled && t < KH * KW; ++t)
            for (j = 0; j < len; ++j)
                table[t * DW_CHUNK + j] = (int16_t)(wd[(size_t)t * (size_t)C + (size_t)(c0 + j)] - zw[j]);
        for (n = 0; n < y->n; ++n) {
            for (oy = y->h_start; oy < y->h_end; ++oy) {
                uint8_t *yrow = tigris_view_row(y, n, oy);
                const int32_t iy0 = oy * a->ah.s - a->ah.pb;
                int32_t ky0, ky1, ky;
                tk_axis_taps(&a->ah, iy0, 0, x->h, &ky0, &ky1);
                for (ox = y->w_start; ox < y->w_end; ++ox) {
                    const int32_t ix0 = ox * a->aw.s - a->aw.pb;
                    uint8_t *yp = yrow + tk_col(y, ox) + (size_t)c0;
                    int32_t kx0, kx1, kx, k0, k1;
                    tk_axis_taps(&a->aw, ix0, 0, x->w, &kx0, &kx1);
                    for (j = 0; j < DW_CHUNK; ++j) acc[j] = bias[j < len ? j : 0];
                    for (ky = ky0; ky < ky1 && kx0 < kx1; ++ky) { /* no pointer into x for padding only */
                        const int8_t *xp = (const int8_t *)(const void *)tigris_view_row(x, n, iy0 + ky * a->ah.d) +
                                           tk_col(x, ix0 + kx0 * a->aw.d) + (size_t)c0;
                        for (k0 = kx0; k0 < kx1; k0 = k1) { /* the fallback centres DW_ROW taps at a time */
                            const int16_t *wc;
                            k1 = tabled || kx1 - k0 <= DW_ROW ? kx1 : k0 + DW_ROW;
                            wc = dw_weights(table, tabled ? 0 : -1, wd, zw, KW, C, c0, len, ky, k0, k1, scratch);
                            for (kx = k0; kx < k1; ++kx)
                                dw_tap(acc, xp + (size_t)(kx - kx0) * step, wc + (size_t)(kx - k0) * DW_CHUNK,
                                       a->x_zp, len);
                        }
                    }
                    for (j = 0; j < len; ++j)
                        yp[j] = tigris_i8_byte(tigris_i8_requant_to(&range, acc[j], scale[j]));
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}
