/* kernels_f32_fast.c - the float32 convolution loops behind tigris_f32_conv and
 * tigris_f32_depthwise (kernels_fast.h).
 *
 * Each output element is one float accumulator that adds x w over its in-image taps in the
 * reference order (window rows, then columns, then input channels), then the bias, then the
 * activation: the bytes of the reference loops. What changes is how many elements are in flight:
 * convolution computes two pixels by four output channels per pass over the window (each loaded
 * x serves four products, each w two), depthwise keeps a fixed-width block of channels in
 * registers across the taps instead of re-reading and re-writing the output per tap.
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

int tk_f32_conv_fast(const tk_f32_conv_args_t *a) {
    const tigris_view_t *x = a->x, *y = a->y;
    const int32_t O = y->c, C = x->c, icg = C / a->group, ocg = O / a->group, KH = a->ah.k, KW = a->aw.k;
    const size_t T = (size_t)KH * (size_t)KW * (size_t)icg;
    const int merge = a->group == 1 && a->aw.d == 1; /* a window row is one contiguous run */
    int32_t n, oy, ox, o, ky, kx;
    for (n = 0; n < y->n; ++n) {
        for (oy = y->h_start; oy < y->h_end; ++oy) {
            float *yrow = tk_f32_row(y, n, oy);
            const int32_t iy0 = oy * a->ah.s - a->ah.pb;
            int32_t ky0, ky1;
            tk_axis_taps(&a->ah, iy0, 0, x->h, &ky0, &ky1);
            for (ox = 0; ox < y->w;) {
                const int32_t ix0 = ox * a->aw.s - a->aw.pb;
                int32_t kx0, kx1, kx0b, kx1b, np = 1, pitch, p, q;
                tk_axis_taps(&a->aw, ix0, 0, x->w, &kx0, &kx1);
                if (ox + 1 < y->w) {
                    tk_axis_taps(&a->aw, ix0 + a->aw.s, 0, x->w, &kx0b, &kx1b);
                    if (kx0b == kx0 && kx1b == kx1) np = 2;
                }
                pitch = np == 2 ? a->aw.s * C : 0;
                for (o = 0; o < O; o += OB) {
                    const int32_t g = o / ocg;
                    const size_t cin = (size_t)g * (size_t)icg;
                    const float *w[OB];
                    float acc[2][OB];
                    int32_t nq = 0;
                    /* a block stays inside one group; lanes past its end repeat its last channel */
                    for (q = 0; q < OB; ++q) {
                        const int32_t oc = o + q < O && (o + q) / ocg == g ? o + q : o + nq - 1;
                        if (oc == o + q) ++nq;
                        w[q] = a->w + (size_t)oc * T;
                        acc[0][q] = acc[1][q] = 0.0f;
                    }
                    for (ky = ky0; ky < ky1; ++ky) {
                        const float *row = tk_f32_row(x, n, iy0 + ky * a->ah.d);
                        if (merge) {
                            const float *xp = row + (size_t)(ix0 + kx0) * (size_t)C + cin;
                            dot_2x4(xp, xp + pitch, w, ((size_t)ky * (size_t)KW + (size_t)kx0) * (size_t)icg,
                                    (kx1 - kx0) * icg, acc);
                        } else {
                            for (kx = kx0; kx < kx1; ++kx) {
                                const float *xp = row + (size_t)(ix0 + kx * a->aw.d) * (size_t)C + cin;
                                dot_2x4(xp, xp + pitch, w, ((size_t)ky * (size_t)KW + (size_t)kx) * (size_t)icg, icg,
                                        acc);
                            }
                        }
                    }
                    for (p = 0; p < np; ++p) {
                        float *yp = yrow + (size_t)(ox + p) * (size_t)O + (size_t)o;
                        for (q = 0; q < nq; ++q) {
                            float v = acc[p][q];
                            if (a->bias != NULL) v += a->bias[o + q];
                            yp[q] = tk_activate(v, a->activation);
                        }
                    }
                    if (nq < OB) o -= OB - nq; /* the next block starts at the next group */
                }
                ox += np;
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
    float acc[DW_CHUNK];
    int32_t n, oy, ox, c0, j;
    for (n = 0; n < y->n; ++n) {
        for (oy = y->h_start; oy < y->h_end; ++oy) {
            float *yrow = tk_f32_row(y, n, oy);
            const int32_t iy0 = oy * a->ah.s - a->ah.pb;
            int32_t ky0, ky1, ky;
            tk_axis_taps(&a->ah, iy0, 0, x->h, &ky0, &ky1);
            for (ox = 0; ox < y->w; ++ox) {
                const int32_t ix0 = ox * a->aw.s - a->aw.pb;
                int32_t kx0, kx1, kx;
                tk_axis_taps(&a->aw, ix0, 0, x->w, &kx0, &kx1);
                for (c0 = 0; c0 < C; c0 += DW_CHUNK) {
                    const int32_t len = C - c0 < DW_CHUNK ? C - c0 : DW_CHUNK;
                    float *yp = yrow + (size_t)ox * (size_t)C + (size_t)c0;
                    for (j = 0; j < len; ++j) acc[j] = 0.0f;
                    for (ky = ky0; ky < ky1; ++ky) {
                        const float *row = tk_f32_row(x, n, iy0 + ky * a->ah.d);
                        for (kx = kx0; kx < kx1; ++kx)
                            dw_tap(acc, row + (size_t)(ix0 + kx * a->aw.d) * (size_t)C + (size_t)c0,
                                   a->w + ((size_t)ky * (size_t)KW + (size_t)kx) * (size_t)C + (size_t)c0, len);
                    }
                    for (j = 0; j < len; ++j)
                        yp[j] = tk_activate(a->bias != NULL ? acc[j] + a->bias[c0 + j] : acc[j], a->activation);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}
