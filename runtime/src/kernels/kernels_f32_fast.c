/* kernels_f32_fast.c - the float32 convolution loops behind tigris_f32_conv and
 * tigris_f32_depthwise (kernels_fast.h).
 *
 * Each output element is one float accumulator that adds x w over its in-image taps in the
 * reference order (window rows, then columns, then input channels), then the bias, then the
 * activation: the bytes of the reference loops. What changes is how many elements are in flight.
 *
 * Convolution is a small GEMM on the NHWC data: a block of OB output channels times up to PB
 * output pixels per pass, each loaded x serving OB products and each weight PB. The weights of
 * the block are packed tap-major (OB side by side per tap, a panel of SEG taps at a time on the
 * stack), so the OB products of a tap are one contiguous run that compilers vectorize (GCC -O2:
 * SLP, the OB x PB accumulators in vector registers): still one accumulator per element, taps in
 * order; the panel is small (every kernel frame stays under 1 KiB). A panel covers taps [t0, t1)
 * of the window (t: the weight index, row, column, channel);
 * between panels the partial sums wait in the output, which is exact (a float stored and
 * reloaded is the same float), and the last panel adds the bias and the activation.
 * Depthwise keeps a fixed-width block of channels in registers across the taps instead of
 * re-reading and re-writing the output per tap. Both walk the resident window of the output
 * (a 2-D tile or a band of whole rows) alike: a resident row holds its columns side by side, so
 * a window's pixels are as contiguous as a full row's.
 */
#include "kernels_f32.h"
#include "kernels_fast.h"

#define OB 8        /* output channels per conv block (two 4-float vectors) */
#define PB 4        /* output pixels per conv block */
#define SEG 24      /* taps per packed weight panel: SEG x OB floats (768 B) on the stack */
#define DW_CHUNK 16 /* depthwise channels accumulated side by side */

/* One tap's products for the OB accumulators A0..A7 of a pixel whose x value is P. */
#define MAC8(A, P)                                                                                  \
    A##0 += P * w[0];                                                                               \
    A##1 += P * w[1];                                                                               \
    A##2 += P * w[2];                                                                               \
    A##3 += P * w[3];                                                                               \
    A##4 += P * w[4];                                                                               \
    A##5 += P * w[5];                                                                               \
    A##6 += P * w[6];                                                                               \
    A##7 += P * w[7]

#define LOAD8(A, ROW)                                                                               \
    float A##0 = ROW[0], A##1 = ROW[1], A##2 = ROW[2], A##3 = ROW[3], A##4 = ROW[4], A##5 = ROW[5], \
          A##6 = ROW[6], A##7 = ROW[7]

#define STORE8(A, ROW)                                                                              \
    ROW[0] = A##0;                                                                                  \
    ROW[1] = A##1;                                                                                  \
    ROW[2] = A##2;                                                                                  \
    ROW[3] = A##3;                                                                                  \
    ROW[4] = A##4;                                                                                  \
    ROW[5] = A##5;                                                                                  \
    ROW[6] = A##6;                                                                                  \
    ROW[7] = A##7

/* acc[p][q] += x_p[i] wt[i][q] for i < len, in order of i, for PB pixels x[p] and OB channels
 * (scalar variables, so that the compiler keeps them in vector registers). */
static void gemm_4x8(const float *const *x, const float *wt, int32_t len, float acc[PB][OB]) {
    const float *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
    LOAD8(a, acc[0]);
    LOAD8(b, acc[1]);
    LOAD8(c, acc[2]);
    LOAD8(d, acc[3]);
    int32_t i;
    for (i = 0; i < len; ++i) {
        const float p0 = x0[i], p1 = x1[i], p2 = x2[i], p3 = x3[i];
        const float *w = wt + (size_t)i * OB;
        MAC8(a, p0);
        MAC8(b, p1);
        MAC8(c, p2);
        MAC8(d, p3);
    }
    STORE8(a, acc[0]);
    STORE8(b, acc[1]);
    STORE8(c, acc[2]);
    STORE8(d, acc[3]);
}

/* gemm_4x8 for one pixel (a row's last pixels, or pixels whose windows clip differently). */
static void gemm_1x8(const float *x0, const float *wt, int32_t len, float acc[OB]) {
    LOAD8(a, acc);
    int32_t i;
    for (i = 0; i < len; ++i) {
        const float p0 = x0[i];
        const float *w = wt + (size_t)i * OB;
        MAC8(a, p0);
    }
    STORE8(a, acc);
}

/* The in-image taps of np (1..PB) output pixels side by side whose windows clip alike, for the
 * output channels of one group starting at input channel cin. */
typedef struct {
    int32_t n, iy0, ky0, ky1, ix0, kx0, kx1, np;
    size_t cin;
} conv_window_t;

/* acc[p][q] += the taps t in [t0, t1) of win's pixel p with the panel wt (tap t at row t - t0),
 * window rows then columns then channels, in order (the reference order). A run of taps is a
 * window row (group 1, no dilation along W: contiguous in x) or one tap's channels. No pointer
 * into x is formed for a window of padding only. */
static void conv_panel(const tk_f32_conv_args_t *a, const conv_window_t *win, const float *wt, size_t t0, size_t t1,
                       float acc[PB][OB]) {
    const int32_t C = a->x->c, icg = C / a->group, taps = win->kx1 - win->kx0;
    const size_t pitch = (size_t)a->aw.s * (size_t)C, step = (size_t)a->aw.d * (size_t)C;
    const int merge = a->group == 1 && a->aw.d == 1;
    const size_t len = merge ? (size_t)taps * (size_t)icg : (size_t)icg;
    int32_t ky, kx, p;
    for (ky = win->ky0; ky < win->ky1 && taps > 0; ++ky) {
        const size_t tbase = ((size_t)ky * (size_t)a->aw.k + (size_t)win->kx0) * (size_t)icg;
        const float *xp;
        if (tbase >= t1) break; /* later rows start later still */
        if (tbase + (size_t)taps * (size_t)icg <= t0) continue;
        xp = tk_f32_row(a->x, win->n, win->iy0 + ky * a->ah.d) + tk_col(a->x, win->ix0 + win->kx0 * a->aw.d) + win->cin;
        for (kx = 0; kx < (merge ? 1 : taps); ++kx) {
            const size_t ta = tbase + (size_t)kx * (size_t)icg, tb = ta + len;
            const size_t lo = ta > t0 ? ta : t0, hi = tb < t1 ? tb : t1;
            const float *xk, *w;
            if (lo >= hi) continue;
            xk = xp + (size_t)kx * step + (lo - ta);
            w = wt + (lo - t0) * OB;
            if (win->np == PB) {
                const float *xs[PB];
                for (p = 0; p < PB; ++p) xs[p] = xk + (size_t)p * pitch;
                gemm_4x8(xs, w, (int32_t)(hi - lo), acc);
            } else {
                for (p = 0; p < win->np; ++p) gemm_1x8(xk + (size_t)p * pitch, w, (int32_t)(hi - lo), acc[p]);
            }
        }
    }
}

/* y[q] = the activation of acc[q] (+ bias[q] if bias), q < nq: the reference's last steps, in
 * fixed-length loops for a whole block. */
static void conv_finish(float *y, const float *acc, const float *bias, uint8_t activation, int32_t nq) {
    float v[OB];
    int32_t q;
    if (nq != OB) {
        for (q = 0; q < nq; ++q) y[q] = tk_activate(bias != NULL ? acc[q] + bias[q] : acc[q], activation);
        return;
    }
    if (bias != NULL) {
        for (q = 0; q < OB; ++q) v[q] = acc[q] + bias[q];
    } else {
        for (q = 0; q < OB; ++q) v[q] = acc[q];
    }
    if (activation == TIGRIS_ACT_RELU) {
        for (q = 0; q < OB; ++q) v[q] = v[q] < 0.0f ? 0.0f : v[q];
    } else if (activation == TIGRIS_ACT_RELU6) {
        for (q = 0; q < OB; ++q) v[q] = v[q] < 0.0f ? 0.0f : (v[q] > 6.0f ? 6.0f : v[q]);
    }
    for (q = 0; q < OB; ++q) y[q] = v[q];
}

/* Every resident output pixel's channels [o, o + nq) over the panel of taps [t0, t1): from 0
 * (the first panel) or the partial sums in y, back into y, the bias and the activation after
 * the last panel. */
TK_NOINLINE static void conv_block_panel(const tk_f32_conv_args_t *a, const float *wt, int32_t o, int32_t nq, size_t cin,
                             size_t t0, size_t t1, size_t T) {
    const tigris_view_t *x = a->x, *y = a->y;
    conv_window_t win;
    float acc[PB][OB];
    int32_t oy, ox, p, q;
    win.cin = cin;
    for (win.n = 0; win.n < y->n; ++win.n) {
        for (oy = y->h_start; oy < y->h_end; ++oy) {
            float *yrow = tk_f32_row(y, win.n, oy);
            win.iy0 = oy * a->ah.s - a->ah.pb;
            tk_axis_taps(&a->ah, win.iy0, 0, x->h, &win.ky0, &win.ky1);
            for (ox = y->w_start; ox < y->w_end; ox += win.np) {
                win.ix0 = ox * a->aw.s - a->aw.pb;
                tk_axis_taps(&a->aw, win.ix0, 0, x->w, &win.kx0, &win.kx1);
                for (win.np = 1; win.np < PB && ox + win.np < y->w_end; ++win.np) {
                    int32_t k0, k1;
                    tk_axis_taps(&a->aw, win.ix0 + win.np * a->aw.s, 0, x->w, &k0, &k1);
                    if (k0 != win.kx0 || k1 != win.kx1) break;
                }
                for (p = 0; p < win.np; ++p) {
                    const float *yp = yrow + tk_col(y, ox + p) + (size_t)o;
                    for (q = 0; q < OB; ++q) acc[p][q] = 0.0f;
                    for (q = 0; t0 != 0 && q < nq; ++q) acc[p][q] = yp[q];
                }
                conv_panel(a, &win, wt, t0, t1, acc);
                for (p = 0; p < win.np; ++p) {
                    float *yp = yrow + tk_col(y, ox + p) + (size_t)o;
                    if (t1 == T) {
                        conv_finish(yp, acc[p], a->bias != NULL ? a->bias + o : NULL, a->activation, nq);
                    } else {
                        for (q = 0; q < nq; ++q) yp[q] = acc[p][q];
                    }
                }
            }
        }
    }
}

/* The panel of taps [t0, t1) of output channels [o, o + nq): wt[t - t0][q] = w[o + q][t], the
 * lanes past the block repeating its last channel. A tap's OB values at a time, from OB row
 * pointers held in registers: a tiled run packs every weight once per tile, so this loop is
 * part of each tile's fixed cost (two instructions a value rather than six). */
static void pack_panel(float *wt, const float *w, size_t T, int32_t o, int32_t nq, size_t t0, size_t t1) {
    const float *r0 = w + (size_t)o * T + t0;
    const size_t last = (size_t)(nq - 1) * T;
    const float *r1 = r0 + (nq > 1 ? T : last), *r2 = r0 + (nq > 2 ? 2u * T : last);
    const float *r3 = r0 + (nq > 3 ? 3u * T : last), *r4 = r0 + (nq > 4 ? 4u * T : last);
    const float *r5 = r0 + (nq > 5 ? 5u * T : last), *r6 = r0 + (nq > 6 ? 6u * T : last);
    const float *r7 = r0 + (nq > 7 ? 7u * T : last);
    const size_t n = t1 - t0;
    size_t i;
    for (i = 0; i < n; ++i, wt += OB) {
        wt[0] = r0[i];
        wt[1] = r1[i];
        wt[2] = r2[i];
        wt[3] = r3[i];
        wt[4] = r4[i];
        wt[5] = r5[i];
        wt[6] = r6[i];
        wt[7] = r7[i];
    }
}

int tk_f32_conv_fast(const tk_f32_conv_args_t *a) {
    const int32_t O = a->y->c, icg = a->x->c / a->group, ocg = O / a->group;
    const size_t T = (size_t)a->ah.k * (size_t)a->aw.k * (size_t)icg;
    float wt[SEG * OB];
    int32_t o, nq;
    for (o = 0; o < O; o += nq) { /* a block stays inside one group */
        const int32_t g = o / ocg;
        size_t t0;
        nq = (g + 1) * ocg - o < OB ? (g + 1) * ocg - o : OB;
        for (t0 = 0; t0 < T; t0 += SEG) {
            const size_t t1 = T - t0 < SEG ? T : t0 + SEG;
            pack_panel(wt, a->w, T, o, nq, t0, t1);
            conv_block_panel(a, wt, o, nq, (size_t)g * (size_t)icg, t0, t1, T);
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* acc[j] += x[j] w[j] for j < len. */
static inline void dw_tap(float *acc, const float *x, const float *w, int32_t len) {
    int32_t j;
    if (len == DW_CHUNK) {
        for (j = 0; j < DW_CHUNK; ++j) acc[j] += x[j] * w[j];
    } else {
        for (j = 0; j < len; ++j) acc[j] += x[j] * w[j];
    }
}

int tk_f32_depthwise_fast(const tk_f32_conv_args_t *a) {
    const tigris_view_t *x = a->x, *y = a->y;
    const int32_t C = y->c, KW = a->aw.k;
    const size_t step = (size_t)a->aw.d * (size_t)C; /* x from one tap to the next along W */
    float acc[DW_CHUNK];
    int32_t n, oy, ox, c0, j;
    for (n = 0; n < y->n; ++n) {
        for (oy = y->h_start; oy < y->h_end; ++oy) {
            float *yrow = tk_f32_row(y, n, oy);
            const int32_t iy0 = oy * a->ah.s - a->ah.pb;
            int32_t ky0, ky1, ky;
            tk_axis_taps(&a->ah, iy0, 0, x->h, &ky0, &ky1);
            for (ox = y->w_start; ox < y->w_end; ++ox) {
                const int32_t ix0 = ox * a->aw.s - a->aw.pb;
                int32_t kx0, kx1, kx;
                tk_axis_taps(&a->aw, ix0, 0, x->w, &kx0, &kx1);
                for (c0 = 0; c0 < C; c0 += DW_CHUNK) {
                    const int32_t len = C - c0 < DW_CHUNK ? C - c0 : DW_CHUNK;
                    float *yp = yrow + tk_col(y, ox) + (size_t)c0;
                    for (j = 0; j < len; ++j) acc[j] = 0.0f;
                    for (ky = ky0; ky < ky1 && kx0 < kx1; ++ky) { /* no pointer into x for padding only */
                        const float *xp =
                            tk_f32_row(x, n, iy0 + ky * a->ah.d) + tk_col(x, ix0 + kx0 * a->aw.d) + (size_t)c0;
                        const float *wp = a->w + ((size_t)ky * (size_t)KW + (size_t)kx0) * (size_t)C + (size_t)c0;
                        for (kx = 0; kx < kx1 - kx0; ++kx)
                            dw_tap(acc, xp + (size_t)kx * step, wp + (size_t)kx * (size_t)C, len);
                    }
                    for (j = 0; j < len; ++j)
                        yp[j] = tk_activate(a->bias != NULL ? acc[j] + a->bias[c0 + j] : acc[j], a->activation);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}
