/* kernels_i8_fast.c - the int8 convolution loops behind tigris_i8_conv (kernels_fast.h).
 *
 * x and w hold I8 storage, read as int8_t values. Per output element the accumulator is
 *   bias + D - zw Sx - zx Sw + T zx zw,  D = sum x w,  Sx = sum x,  Sw = sum w
 * over the T = KH KW icg taps of its whole window, a padding tap read as zx (its (x - zx) term
 * is 0, so the sum equals the reference's over the in-image taps), all modulo 2^32 (unsigned
 * arithmetic, defined on overflow); the true value fits int32 (the reference kernel's
 * acc_fits), so the wrapped one is it. bias + T zx zw - zx Sw is one constant per output
 * channel and call. Convolution gathers each pixel's window into an int16 buffer in the
 * weights' order (padding as zx), so every output channel's dot product is one contiguous run
 * of length T (XSEG values at a time), two pixels by two output channels per pass; the dot loops
 * vectorize (int16 x int8 products, pmaddwd on SSE2). Depthwise centres its weights (w - zw)
 * once per channel chunk. Requantization runs over a pixel's channels in fixed-length blocks,
 * rounding by tigris_i8_round_fast (i8_math.h: rintf's value without rintf). Both loops walk
 * the resident window of the output (a 2-D tile or a band of whole rows) alike, addressing
 * input columns by tk_col.
 */
#include "i8_math.h"
#include "kernels_fast.h"

#define BLOCK 16  /* values per fixed-length dot block (a whole vector register or two) */
#define OCHUNK 32 /* output channels whose whole-window weight sums are kept */
#define DW_CHUNK 16 /* depthwise channels accumulated side by side */
#define RQ_BLOCK 8  /* outputs requantized side by side */
#define XSEG 256    /* window values of a pixel gathered at a time (a multiple of BLOCK) */

/* The int32 whose two's complement is v (v is a true int32 value modulo 2^32). */
static inline int32_t wrap_i32(uint32_t v) {
    return v <= 0x7FFFFFFFu ? (int32_t)v : -(int32_t)(0xFFFFFFFFu - v) - 1;
}

/* The dot products below sum raw products in int32 without overflow: the fast path runs only on
 * int8 storage, where every |x - zx| and |w - zw| range reaches 128, so the reference's acc_fits
 * (T x max|x - zx| x max|w - zw| <= INT32_MAX over the T = KH KW icg taps of a whole window)
 * bounds T x 128 x 128, hence any partial sum over a window of products of values in
 * [-128, 128]. A main loop runs over a multiple of BLOCK values, so compilers vectorize it at
 * their default optimization (GCC -O2: no loop epilogue), one vector accumulator per sum reduced
 * once after the loop; with an int16 and an int8 operand, GCC's dot-product pattern (pmaddwd
 * on SSE2) multiplies and adds pairs. The rest runs one value at a time. Each loop is a function
 * of its own: inlined into a caller's loop nest, GCC loses the fact that the trip count is a
 * multiple of BLOCK and leaves the loop scalar (TK_NOINLINE, kernels_fast.h). */

/* s[0..3] += sums over i < len of x0 w0, x0 w1, x1 w0, x1 w1 (modulo 2^32). */
TK_NOINLINE static void dot_2x2(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                int32_t len, uint32_t *s) {
    const int32_t body = len & ~(BLOCK - 1);
    int32_t a = 0, b = 0, c = 0, d = 0, i;
    for (i = 0; i < body; ++i) {
        const int16_t u = w0[i], v = w1[i];
        a += x0[i] * u;
        b += x0[i] * v;
        c += x1[i] * u;
        d += x1[i] * v;
    }
    for (; i < len; ++i) {
        const int16_t u = w0[i], v = w1[i];
        a += x0[i] * u;
        b += x0[i] * v;
        c += x1[i] * u;
        d += x1[i] * v;
    }
    s[0] += (uint32_t)a;
    s[1] += (uint32_t)b;
    s[2] += (uint32_t)c;
    s[3] += (uint32_t)d;
}

/* dot_2x2 for one pixel (s[0..1]): a row's last pixel without a partner costs half a pair. */
TK_NOINLINE static void dot_1x2(const int16_t *x0, const int8_t *w0, const int8_t *w1, int32_t len, uint32_t *s) {
    const int32_t body = len & ~(BLOCK - 1);
    int32_t a = 0, b = 0, i;
    for (i = 0; i < body; ++i) {
        const int16_t u = w0[i], v = w1[i];
        a += x0[i] * u;
        b += x0[i] * v;
    }
    for (; i < len; ++i) {
        const int16_t u = w0[i], v = w1[i];
        a += x0[i] * u;
        b += x0[i] * v;
    }
    s[0] += (uint32_t)a;
    s[1] += (uint32_t)b;
}

/* Sum of len int8 values (|sum| <= 128 len, len <= T: within int32 by acc_fits). */
TK_NOINLINE static uint32_t sum_i8(const int8_t *v, size_t len) {
    const size_t body = len & ~(size_t)(BLOCK - 1);
    int32_t s = 0;
    size_t i;
    for (i = 0; i < body; ++i) s += v[i];
    for (; i < len; ++i) s += v[i];
    return (uint32_t)s;
}

/* d[i] = v[i] widened, i < len; returns the sum of the v[i] (as sum_i8). */
TK_NOINLINE static int32_t widen_i8(int16_t *restrict d, const int8_t *restrict v, int32_t len) {
    const int32_t body = len & ~(BLOCK - 1);
    int32_t s = 0, i;
    for (i = 0; i < body; ++i) {
        d[i] = v[i];
        s += v[i];
    }
    for (; i < len; ++i) {
        d[i] = v[i];
        s += v[i];
    }
    return s;
}

/* y[i] = the byte of requant(acc[i], scale[i]) for i < n (tigris_i8_requant_to, rounded by
 * tigris_i8_round_fast): blocks of 8 outputs (a fixed length, which compilers vectorize), then
 * the rest one by one. y, acc and scale never overlap (restrict: a byte store aliases anything). */
static void requant_run(uint8_t *restrict y, const int32_t *restrict acc, const float *restrict scale,
                        const tigris_i8_range_t *range_in, int32_t n) {
    const tigris_i8_range_t range = *range_in;
    int32_t i = 0, j;
    for (; i + RQ_BLOCK <= n; i += RQ_BLOCK)
        for (j = 0; j < RQ_BLOCK; ++j) {
            const float a = (float)acc[i + j];
            const float v = a * scale[i + j];
            y[i + j] = tigris_i8_byte(tigris_i8_round_fast(&range, v));
        }
    for (; i < n; ++i) {
        const float a = (float)acc[i];
        const float v = a * scale[i];
        y[i] = tigris_i8_byte(tigris_i8_round_fast(&range, v));
    }
}

/* One output pixel's window: its in-image taps [ky0, ky1) x [kx0, kx1) from (iy0, ix0). */
typedef struct {
    int32_t iy0, ix0, ky0, ky1, kx0, kx1;
} pixel_t;

/* xb[0, e1 - e0) = the window values [e0, e1) of pixel px of image n in the weights' order
 * (tap (ky, kx) row by row, then the icg input channels from cin), widened to int16, a padding
 * tap as zx; returns their sum modulo 2^32. A run of in-image taps of one window row is one
 * contiguous run of x when `merge` (one group, no dilation along W). */
static uint32_t gather(const tk_i8_conv_args_t *a, const tigris_view_t *x, int32_t n, const pixel_t *px,
                       int32_t cin, int32_t icg, int merge, int32_t e0, int32_t e1, int16_t *xb) {
    const int32_t KW = a->aw.k;
    uint32_t sum = 0;
    int32_t e = e0;
    while (e < e1) {
        const int32_t tap = e / icg, ci = e - tap * icg, ky = tap / KW, kx = tap - ky * KW;
        int16_t *d = xb + (e - e0);
        int32_t len;
        if (ky >= px->ky0 && ky < px->ky1 && kx >= px->kx0 && kx < px->kx1) {
            const int8_t *src = (const int8_t *)(const void *)tigris_view_row(x, n, px->iy0 + ky * a->ah.d) +
                                tk_col(x, px->ix0 + kx * a->aw.d) + (size_t)cin + (size_t)ci;
            len = (merge ? (px->kx1 - kx) * icg : icg) - ci;
            if (len > e1 - e) len = e1 - e;
            sum += (uint32_t)widen_i8(d, src, len);
        } else {
            int32_t j;
            len = icg - ci < e1 - e ? icg - ci : e1 - e;
            for (j = 0; j < len; ++j) d[j] = (int16_t)a->x_zp;
            sum += (uint32_t)len * (uint32_t)a->x_zp;
        }
        e += len;
    }
    return sum;
}

int tk_i8_conv_fast(const tk_i8_conv_args_t *a) {
    const tigris_view_t xv = *a->x, yv = *a->y, *x = &xv, *y = &yv; /* locals: no byte store aliases them */
    const int32_t O = y->c, C = x->c, icg = C / a->group, ocg = O / a->group;
    const int32_t T = a->ah.k * a->aw.k * icg; /* one channel's weights (< 2^31: acc_fits) */
    const int8_t *wd = (const int8_t *)(const void *)a->w->data;
    const size_t wsize = (size_t)O * (size_t)T; /* the weight tensor's values (checked by the reference) */
    const uint32_t zx = (uint32_t)a->x_zp;
    const int merge = a->group == 1 && a->aw.d == 1;
    const tigris_i8_range_t range = tigris_i8_range(a->y_zp, a->lo, a->hi);
    /* per output channel of the chunk: zw, and bias + T zx zw - zx Sw of the whole window */
    uint32_t zw[OCHUNK], kfull[OCHUNK], dots[2][OCHUNK];
    int32_t acc[2][OCHUNK]; /* the accumulators of one pixel pair, requantized together */
    float scale[OCHUNK];
    int16_t xb[2][XSEG]; /* a segment of the window of each pixel of the pair */
    pixel_t px[2];
    int32_t o0, o1, o, n, oy, ox, e0, e1, np, p, q;
    for (o0 = 0; o0 < O; o0 = o1) {
        const int32_t g = o0 / ocg, cin = g * icg;
        int zw_any = 0;
        o1 = o0 + OCHUNK < (g + 1) * ocg ? o0 + OCHUNK : (g + 1) * ocg;
        for (o = o0; o < o1; ++o) {
            const int32_t k = o - o0;
            const uint32_t bias = a->bias != NULL ? (uint32_t)a->bias[o] : 0u;
            zw[k] = (uint32_t)(a->w_zps != NULL ? a->w_zps[o] : a->w_zp);
            zw_any |= zw[k] != 0;
            kfull[k] = bias + (uint32_t)T * zx * zw[k] - zx * sum_i8(wd + (size_t)o * (size_t)T, (size_t)T);
            scale[k] = tigris_i8_f32(a->scales[o]);
        }
        for (n = 0; n < y->n; ++n) {
            for (oy = y->h_start; oy < y->h_end; ++oy) {
                uint8_t *yrow = tigris_view_row(y, n, oy);
                px[0].iy0 = px[1].iy0 = oy * a->ah.s - a->ah.pb;
                tk_axis_taps(&a->ah, px[0].iy0, 0, x->h, &px[0].ky0, &px[0].ky1);
                px[1].ky0 = px[0].ky0;
                px[1].ky1 = px[0].ky1;
                for (ox = y->w_start; ox < y->w_end; ox += np) {
                    uint32_t sx[2] = {0, 0};
                    np = ox + 1 < y->w_end ? 2 : 1;
                    for (p = 0; p < np; ++p) {
                        px[p].ix0 = (ox + p) * a->aw.s - a->aw.pb;
                        tk_axis_taps(&a->aw, px[p].ix0, 0, x->w, &px[p].kx0, &px[p].kx1);
                    }
                    for (o = 0; o < o1 - o0; ++o) dots[0][o] = dots[1][o] = 0;
                    for (e0 = 0; e0 < T; e0 = e1) { /* the window XSEG values at a time */
                        int32_t len, padded;
                        e1 = T - e0 > XSEG ? e0 + XSEG : T;
                        len = e1 - e0;
                        padded = (len + BLOCK - 1) & ~(BLOCK - 1); /* <= XSEG */
                        for (p = 0; p < np; ++p) {
                            int32_t j;
                            sx[p] += gather(a, x, n, &px[p], cin, icg, merge, e0, e1, xb[p]);
                            for (j = len; j < padded; ++j) xb[p][j] = 0;
                        }
                        for (o = o0; o < o1; o += 2) {
                            const int32_t ob = o + 1 < o1 ? o + 1 : o, nq = ob != o ? 2 : 1;
                            const size_t off0 = (size_t)o * (size_t)T + (size_t)e0, off1 = (size_t)ob * (size_t)T + (size_t)e0;
                            /* x is 0 past len, so the dot may run to `padded` where the weights it
                             * reads past its channel's (the next channel's) lie in the tensor */
                            const int32_t dl = off1 + (size_t)padded <= wsize ? padded : len;
                            uint32_t s[4] = {0, 0, 0, 0};
                            if (np == 2) dot_2x2(xb[0], xb[1], wd + off0, wd + off1, dl, s);
                            else dot_1x2(xb[0], wd + off0, wd + off1, dl, s);
                            for (p = 0; p < np; ++p)
                                for (q = 0; q < nq; ++q) dots[p][o + q - o0] += s[2 * p + q];
                        }
                    }
                    for (p = 0; p < np; ++p) {
                        if (zw_any)
                            for (o = 0; o < o1 - o0; ++o) acc[p][o] = wrap_i32(dots[p][o] + kfull[o] - zw[o] * sx[p]);
                        else /* symmetric weights: no zw Sx term */
                            for (o = 0; o < o1 - o0; ++o) acc[p][o] = wrap_i32(dots[p][o] + kfull[o]);
                        requant_run(yrow + tk_col(y, ox + p) + (size_t)o0, acc[p], scale, &range, o1 - o0);
                    }
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* acc[j] += (x[j] - zx) wc[j] for j < len, wc = w - zw (int16: |w - zw| <= 255): exact int32
 * (the reference's acc_fits). */
static inline void dw_tap(int32_t *restrict acc, const int8_t *restrict x, const int16_t *restrict wc, int32_t zx,
                          int32_t len) {
    int32_t j;
    if (len == DW_CHUNK) { /* x - zx in int16 (|x - zx| <= 255): a 16 x 16 -> 32-bit multiply */
        for (j = 0; j < DW_CHUNK; ++j) {
            const int16_t xc = (int16_t)(x[j] - zx);
            acc[j] += xc * wc[j];
        }
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
        for (j = 0; j < DW_CHUNK; ++j) bias[j] = 0; /* lanes past len: unused */
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
                    for (j = 0; j < DW_CHUNK; ++j) acc[j] = bias[j];
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
                    requant_run(yp, acc, scale, &range, len);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}
