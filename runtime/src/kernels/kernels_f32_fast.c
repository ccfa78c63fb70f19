/* kernels_f32_fast.c - the float32 convolution loops behind tigris_f32_conv and
 * tigris_f32_depthwise (kernels_fast.h).
 *
 * Each output element is one float accumulator that adds x w over its in-image taps in the
 * reference order (window rows, then columns, then input channels), then the bias, then the
 * activation: the bytes of the reference loops. What changes is how many elements are in flight:
 * convolution computes two pixels by four output channels per pass over the window (each loaded
 * x serves four products, each w two), depthwise keeps a fixed-width block of channels in
 * registers across the taps instead of re-reading and re-writing the output per tap. Both walk
 * the resident window of the output (a 2-D tile or a band of whole rows) alike: a resident row
 * holds its columns side by side, so a window's pixels are as contiguous as a full row's.
 */
#include "kernels_f32.h"
#include "kernels_fast.h"

#define OB 4        /* output channels per conv pass */
#define DW_CHUNK 16 /* depthwise channels accumulated side by side */

/* acc[p][q] += x_p[i] w_q[i] for i < len, in order of i, for 2 pixels and OB channels. */
static void dot_2x4(const float *x0, const float *x1, const float *const *w, size_t woff, int32_t len,
                    float acc[2][OB]) {
    const float *w0 = w[0] + woff, *w1 = w[1] + woff, *w2 = w[2] + woff, *w3 = w[3] + woff;
    float a0 = acc[0][0], a1 = acc[0][1], a2 = acc[0][2], a3 = acc[0][3];
    float b0 = acc[1][0], b1 = acc[1][1], b2 = acc[1][2], b3 = acc[1][3];
    int32_t i;
    for (i = 0; i < len; ++i) {
        const float p = x0[i], q = x1[i];
        a0 += p * w0[i];
        a1 += p * w1[i];
        a2 += p * w2[i];
        a3 += p * w3[i];
        b0 += q * w0[i];
        b1 += q * w1[i];
        b2 += q * w2[i];
        b3 += q * w3[i];
    }
    acc[0][0] = a0;
    acc[0][1] = a1;
    acc[0][2] = a2;
    acc[0][3] = a3;
    acc[1][0] = b0;
    acc[1][1] = b1;
    acc[1][2] = b2;
    acc[1][3] = b3;
}

/* dot_2x4 for one pixel: a pixel without a partner (a window's edge, or a tile's last
 * column) costs half a pair, not a whole one. */
static void dot_1x4(const float *x0, const float *const *w, size_t woff, int32_t len, float acc[OB]) {
    const float *w0 = w[0] + woff, *w1 = w[1] + woff, *w2 = w[2] + woff, *w3 = w[3] + woff;
    float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t i;
    for (i = 0; i < len; ++i) {
        const float p = x0[i];
        a0 += p * w0[i];
        a1 += p * w1[i];
        a2 += p * w2[i];
        a3 += p * w3[i];
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* The in-image taps of one output pixel of a conv, or of two (np) side by side whose windows
 * clip alike, for the output channels of one group starting at input channel cin. */
typedef struct {
    int32_t n, iy0, ky0, ky1, ix0, kx0, kx1, np;
    size_t cin;
} conv_window_t;

/* acc[p][q] += the taps of win's pixel p with weight row w[q], window rows then columns, in
 * order (the reference order). No pointer into x is formed for a window of padding only. */
static void conv_taps(const tk_f32_conv_args_t *a, const conv_window_t *win, const float *const *w,
                      float acc[2][OB]) {
    const int32_t C = a->x->c, icg = C / a->group, taps = win->kx1 - win->kx0;
    const size_t pitch = (size_t)a->aw.s * (size_t)C, step = (size_t)a->aw.d * (size_t)C;
    const int merge = a->group == 1 && a->aw.d == 1; /* a window row is one contiguous run */
    int32_t ky, kx;
    for (ky = win->ky0; ky < win->ky1 && taps > 0; ++ky) {
        const float *xp = tk_f32_row(a->x, win->n, win->iy0 + ky * a->ah.d) +
                          tk_col(a->x, win->ix0 + win->kx0 * a->aw.d) + win->cin;
        const size_t woff = ((size_t)ky * (size_t)a->aw.k + (size_t)win->kx0) * (size_t)icg;
        for (kx = 0; kx < (merge ? 1 : taps); ++kx) {
            const int32_t len = merge ? taps * icg : icg;
            const float *xk = xp + (size_t)kx * step;
            if (win->np == 2) dot_2x4(xk, xk + pitch, w, woff + (size_t)kx * (size_t)icg, len, acc);
            else dot_1x4(xk, w, woff + (size_t)kx * (size_t)icg, len, acc[0]);
        }
    }
}

int tk_f32_conv_fast(const tk_f32_conv_args_t *a) {
    const tigris_view_t *x = a->x, *y = a->y;
    const int32_t O = y->c, icg = x->c / a->group, ocg = O / a->group;
    const size_t T = (size_t)a->ah.k * (size_t)a->aw.k * (size_t)icg;
    conv_window_t win;
    int32_t oy, ox, o, p, q;
    for (win.n = 0; win.n < y->n; ++win.n) {
        for (oy = y->h_start; oy < y->h_end; ++oy) {
            float *yrow = tk_f32_row(y, win.n, oy);
            win.iy0 = oy * a->ah.s - a->ah.pb;
            tk_axis_taps(&a->ah, win.iy0, 0, x->h, &win.ky0, &win.ky1);
            for (ox = y->w_start; ox < y->w_end; ox += win.np) {
                int32_t kx0b, kx1b;
                win.ix0 = ox * a->aw.s - a->aw.pb;
                tk_axis_taps(&a->aw, win.ix0, 0, x->w, &win.kx0, &win.kx1);
                win.np = 1;
                if (ox + 1 < y->w_end) {
                    tk_axis_taps(&a->aw, win.ix0 + a->aw.s, 0, x->w, &kx0b, &kx1b);
                    if (kx0b == win.kx0 && kx1b == win.kx1) win.np = 2;
                }
                for (o = 0; o < O; o += OB) {
                    const int32_t g = o / ocg;
                    const float *w[OB];
                    float acc[2][OB];
                    int32_t nq = 0;
                    win.cin = (size_t)g * (size_t)icg;
                    /* a block stays inside one group; lanes past its end repeat its last channel */
                    for (q = 0; q < OB; ++q) {
                        const int32_t oc = o + q < O && (o + q) / ocg == g ? o + q : o + nq - 1;
                        if (oc == o + q) ++nq;
                        w[q] = a->w + (size_t)oc * T;
                        acc[0][q] = acc[1][q] = 0.0f;
                    }
                    conv_taps(a, &win, w, acc);
                    for (p = 0; p < win.np; ++p) {
                        float *yp = yrow + tk_col(y, ox + p) + (size_t)o;
                        for (q = 0; q < nq; ++q) {
                            float v = acc[p][q];
                            if (a->bias != NULL) v += a->bias[o + q];
                            yp[q] = tk_activate(v, a->activation);
                        }
                    }
                    if (nq < OB) o -= OB - nq; /* the next block starts at the next group */
                }
            }
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
