/* kernels_f32_window.c - float32 convolutions and pools over channels-last views.
 *
 * Rank 4 tensors are [N, H, W, C]; rank 3 ([N, C, L], stored [N, L, C]) are the same with
 * W = 1, so conv1d is conv with a 1-wide kernel (an OKI [O, K, I/g] weight has the bytes
 * of an OHWI [O, K, 1, I/g] one). Each kernel computes the resident output rows; a window
 * row outside the image is padding (zero for convolutions, skipped by max pool, counted or
 * not by average pool), a row inside the image that is not resident is
 * TIGRIS_KERNEL_ERR_BAND. Sums run in float32 in tap order, the bias is added last (as
 * im2col + gemm does), then the fused activation.
 */
#include <math.h>

#include "kernels_f32.h"

typedef struct {
    int32_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
} tk_window_t;

/* The window fields of op; along W a rank-3 op has kernel, stride and dilation 1, no pads. */
static int window_of(const tigris_op_t *op, int32_t rank, tk_window_t *w) {
    w->kh = op->kernel_h;
    w->sh = op->stride_h;
    w->dh = op->dilation_h;
    w->pt = op->pad_top;
    w->pb = op->pad_bottom;
    if (rank == 3) {
        w->kw = w->sw = w->dw = 1;
        w->pl = w->pr = 0;
    } else {
        w->kw = op->kernel_w;
        w->sw = op->stride_w;
        w->dw = op->dilation_w;
        w->pl = op->pad_left;
        w->pr = op->pad_right;
    }
    if (w->kh < 1 || w->kw < 1 || w->sh < 1 || w->sw < 1 || w->dh < 1 || w->dw < 1) return TIGRIS_KERNEL_ERR_PARAMS;
    return (rank == 3 || rank == 4) ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_UNSUPPORTED;
}

/* Output length of a convolution window along one axis, or -1 if the window does not fit. */
static int32_t conv_length(int32_t in, int32_t k, int32_t s, int32_t d, int32_t pb, int32_t pe) {
    int32_t span = in + pb + pe - d * (k - 1) - 1;
    return span < 0 ? -1 : span / s + 1;
}

/* Pooled length; in ceil mode a last window starting in the end padding is dropped. */
static int32_t pool_length(int32_t in, int32_t k, int32_t s, int32_t d, int32_t pb, int32_t pe, int ceil_mode) {
    int32_t span = in + pb + pe - d * (k - 1) - 1, out;
    if (span < 0) return -1;
    out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (out - 1) * s >= in + pb) --out;
    return out;
}

/* The optional bias operand (operand 2) as `count` floats; *bias = NULL if absent. */
static int bias_of(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, int32_t count,
                   const float **bias) {
    tigris_view_t b;
    uint16_t t = tk_input(plan, op, 2);
    int err;
    *bias = NULL;
    if (op->num_inputs < 3) return TIGRIS_KERNEL_OK;
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_view(plan, mem, t, &b);
    if (err != TIGRIS_KERNEL_OK) return err;
    if ((size_t)b.n * (size_t)b.h * (size_t)b.w * (size_t)b.c != (size_t)count) return TIGRIS_KERNEL_ERR_SHAPE;
    *bias = (const float *)(const void *)b.data;
    return TIGRIS_KERNEL_OK;
}

/* x, weight and output views of a windowed op, all float32. */
static int operands_of(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, tigris_view_t *x,
                       tigris_view_t *w, tigris_view_t *y) {
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_view(plan, mem, tx, x);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_view(plan, mem, ty, y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (plan->tensors[tx].ndim != plan->tensors[ty].ndim || x->n != y->n) return TIGRIS_KERNEL_ERR_SHAPE;
    if (w != NULL) {
        uint16_t tw = tk_input(plan, op, 1);
        if (tw == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
        err = tk_f32_view(plan, mem, tw, w);
    }
    return err;
}

int tigris_f32_conv(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    tigris_view_t x, w, y;
    tk_window_t win;
    const float *wd, *bias;
    const int32_t *ws;
    int32_t rank, out_ch, kh_n, kw_n, in_g, out_g, n, oh, ow, o;
    uint16_t tw;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, &x, &w, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    if (rank != (op->op_type == TIGRIS_OP_CONV1D ? 3 : 4)) return TIGRIS_KERNEL_ERR_SHAPE;
    err = window_of(op, rank, &win);
    if (err != TIGRIS_KERNEL_OK) return err;
    tw = tk_input(plan, op, 1);
    if (tigris_k_layout(plan, tw) != (rank == 4 ? TIGRIS_LAYOUT_OHWI : TIGRIS_LAYOUT_OKI) ||
        plan->tensors[tw].ndim != rank)
        return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    ws = tigris_tensor_shape(plan, &plan->tensors[tw]);
    out_ch = ws[0];
    kh_n = ws[1];
    kw_n = rank == 4 ? ws[2] : 1;
    in_g = ws[rank - 1];
    if (op->group < 1 || x.c != in_g * op->group || out_ch % op->group != 0 || y.c != out_ch) return TIGRIS_KERNEL_ERR_SHAPE;
    out_g = out_ch / op->group;
    if (kh_n != win.kh || kw_n != win.kw) return TIGRIS_KERNEL_ERR_SHAPE;
    if (y.h != conv_length(x.h, kh_n, win.sh, win.dh, win.pt, win.pb) ||
        y.w != conv_length(x.w, kw_n, win.sw, win.dw, win.pl, win.pr))
        return TIGRIS_KERNEL_ERR_SHAPE;
    err = bias_of(plan, op, mem, out_ch, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    wd = (const float *)(const void *)w.data;

    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            const int32_t ih0 = oh * win.sh - win.pt;
            int32_t kh;
            for (kh = 0; kh < kh_n; ++kh) { /* every row of the window inside the image is resident */
                int32_t ih = ih0 + kh * win.dh;
                if (ih >= 0 && ih < x.h && tk_f32_row(&x, n, ih) == NULL) return TIGRIS_KERNEL_ERR_BAND;
            }
            for (ow = 0; ow < y.w; ++ow) {
                const int32_t iw0 = ow * win.sw - win.pl;
                float *yp = yrow + (size_t)ow * (size_t)out_ch;
                for (o = 0; o < out_ch; ++o) {
                    const int32_t c0 = (o / out_g) * in_g;
                    float acc = 0.0f;
                    int32_t kw;
                    for (kh = 0; kh < kh_n; ++kh) {
                        const int32_t ih = ih0 + kh * win.dh;
                        const float *xrow;
                        if (ih < 0 || ih >= x.h) continue;
                        xrow = tk_f32_row(&x, n, ih);
                        for (kw = 0; kw < kw_n; ++kw) {
                            const int32_t iw = iw0 + kw * win.dw;
                            const float *xp, *wp;
                            int32_t i;
                            if (iw < 0 || iw >= x.w) continue;
                            xp = xrow + (size_t)iw * (size_t)x.c + (size_t)c0;
                            wp = wd + (((size_t)o * (size_t)kh_n + (size_t)kh) * (size_t)kw_n + (size_t)kw) * (size_t)in_g;
                            for (i = 0; i < in_g; ++i) acc += xp[i] * wp[i];
                        }
                    }
                    if (bias != NULL) acc += bias[o];
                    yp[o] = tk_activate(acc, op->activation);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_depthwise(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx) {
    tigris_view_t x, w, y;
    tk_window_t win;
    const float *wd, *bias;
    const int32_t *ws;
    int32_t rank, mult, n, oh, ow, o;
    uint16_t tw;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, &x, &w, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    err = window_of(op, rank, &win);
    if (err != TIGRIS_KERNEL_OK) return err;
    tw = tk_input(plan, op, 1);
    if (tigris_k_layout(plan, tw) != TIGRIS_LAYOUT_HWC || plan->tensors[tw].ndim != 3) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    ws = tigris_tensor_shape(plan, &plan->tensors[tw]);
    mult = op->group;
    if (mult < 1 || y.c != x.c * mult || ws[2] != y.c || ws[0] != win.kh || ws[1] != win.kw) return TIGRIS_KERNEL_ERR_SHAPE;
    if (y.h != conv_length(x.h, win.kh, win.sh, win.dh, win.pt, win.pb) ||
        y.w != conv_length(x.w, win.kw, win.sw, win.dw, win.pl, win.pr))
        return TIGRIS_KERNEL_ERR_SHAPE;
    err = bias_of(plan, op, mem, y.c, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    wd = (const float *)(const void *)w.data;

    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            const int32_t ih0 = oh * win.sh - win.pt;
            for (ow = 0; ow < y.w; ++ow) {
                const int32_t iw0 = ow * win.sw - win.pl;
                float *yp = yrow + (size_t)ow * (size_t)y.c;
                int32_t kh, kw;
                for (o = 0; o < y.c; ++o) yp[o] = 0.0f;
                for (kh = 0; kh < win.kh; ++kh) {
                    const int32_t ih = ih0 + kh * win.dh;
                    const float *xrow;
                    if (ih < 0 || ih >= x.h) continue;
                    xrow = tk_f32_row(&x, n, ih);
                    if (xrow == NULL) return TIGRIS_KERNEL_ERR_BAND;
                    for (kw = 0; kw < win.kw; ++kw) {
                        const int32_t iw = iw0 + kw * win.dw;
                        const float *xp, *wp;
                        if (iw < 0 || iw >= x.w) continue;
                        xp = xrow + (size_t)iw * (size_t)x.c;
                        wp = wd + ((size_t)kh * (size_t)win.kw + (size_t)kw) * (size_t)y.c;
                        if (mult == 1) {
                            for (o = 0; o < y.c; ++o) yp[o] += xp[o] * wp[o];
                        } else {
                            for (o = 0; o < y.c; ++o) yp[o] += xp[o / mult] * wp[o];
                        }
                    }
                }
                for (o = 0; o < y.c; ++o) yp[o] = tk_activate(bias != NULL ? yp[o] + bias[o] : yp[o], op->activation);
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* Where w[o][kh][kw][i] (output channel o, input channel i of o's group) is in a
 * conv_transpose weight: OHWI [O, KH, KW, I/g] (2-D), OKI [O, K, I/g] (1-D), or ONNX's
 * [I, O/g, KH(, KW)] (PLAIN, a weight the lowering left in ONNX order). */
typedef struct {
    size_t group, out, kh, kw, in; /* element strides */
} tk_tconv_strides_t;

int tigris_f32_conv_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                              tigris_mem_t *mem, void *user_ctx) {
    tigris_view_t x, w, y;
    tk_window_t win;
    tk_tconv_strides_t st;
    const float *wd, *bias;
    const int32_t *ws, *params;
    int32_t rank, out_ch, kh_n, kw_n, in_g, out_g, group, pad_h = 0, pad_w = 0, n, oh, ow, o;
    uint16_t tw;
    uint8_t layout;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, &x, &w, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    err = window_of(op, rank, &win);
    if (err != TIGRIS_KERNEL_OK) return err;
    tw = tk_input(plan, op, 1);
    layout = tigris_k_layout(plan, tw);
    ws = tigris_tensor_shape(plan, &plan->tensors[tw]);
    group = op->group;
    if (group < 1) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((layout == TIGRIS_LAYOUT_OHWI && plan->tensors[tw].ndim == 4 && rank == 4) ||
        (layout == TIGRIS_LAYOUT_OKI && plan->tensors[tw].ndim == 3 && rank == 3)) {
        out_ch = ws[0];
        kh_n = ws[1];
        kw_n = rank == 4 ? ws[2] : 1;
        in_g = ws[rank - 1];
        out_g = out_ch / group;
        st.in = 1;
        st.kw = (size_t)in_g;
        st.kh = st.kw * (size_t)kw_n;
        st.out = st.kh * (size_t)kh_n;
        st.group = st.out * (size_t)out_g;
    } else if (layout == TIGRIS_LAYOUT_PLAIN && plan->tensors[tw].ndim == rank) {
        in_g = ws[0] / group;
        out_g = ws[1];
        out_ch = out_g * group;
        kh_n = ws[2];
        kw_n = rank == 4 ? ws[3] : 1;
        st.kw = 1;
        st.kh = (size_t)kw_n;
        st.out = st.kh * (size_t)kh_n;
        st.in = st.out * (size_t)out_g;
        st.group = st.in * (size_t)in_g;
    } else {
        return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    }
    if (x.c != in_g * group || out_ch != out_g * group || y.c != out_ch || kh_n != win.kh || kw_n != win.kw)
        return TIGRIS_KERNEL_ERR_SHAPE;
    params = tk_params(plan, op);
    if (params == NULL) return TIGRIS_KERNEL_ERR_PARAMS;
    if (op->num_params >= 1) pad_h = params[0];
    if (op->num_params >= 2 && rank == 4) pad_w = params[1];
    if (y.h != win.sh * (x.h - 1) + pad_h + win.dh * (kh_n - 1) + 1 - win.pt - win.pb ||
        y.w != win.sw * (x.w - 1) + pad_w + win.dw * (kw_n - 1) + 1 - win.pl - win.pr)
        return TIGRIS_KERNEL_ERR_SHAPE;
    err = bias_of(plan, op, mem, out_ch, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    wd = (const float *)(const void *)w.data;

    /* Gather form: output (oh, ow) takes input (ih, iw) through tap (kh, kw) when
     * oh + pad_top = ih * stride + kh * dilation (and the same along W). */
    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            int32_t kh;
            for (kh = 0; kh < kh_n; ++kh) {
                int32_t t = oh + win.pt - kh * win.dh;
                if (t >= 0 && t % win.sh == 0 && t / win.sh < x.h && tk_f32_row(&x, n, t / win.sh) == NULL)
                    return TIGRIS_KERNEL_ERR_BAND;
            }
            for (ow = 0; ow < y.w; ++ow) {
                float *yp = yrow + (size_t)ow * (size_t)out_ch;
                for (o = 0; o < out_ch; ++o) {
                    const int32_t g = o / out_g;
                    const float *wo = wd + (size_t)g * st.group + (size_t)(o % out_g) * st.out;
                    float acc = 0.0f;
                    int32_t kw;
                    for (kh = 0; kh < kh_n; ++kh) {
                        const int32_t th = oh + win.pt - kh * win.dh;
                        const float *xrow;
                        if (th < 0 || th % win.sh != 0 || th / win.sh >= x.h) continue;
                        xrow = tk_f32_row(&x, n, th / win.sh);
                        for (kw = 0; kw < kw_n; ++kw) {
                            const int32_t tww = ow + win.pl - kw * win.dw;
                            const float *xp, *wp;
                            int32_t i;
                            if (tww < 0 || tww % win.sw != 0 || tww / win.sw >= x.w) continue;
                            xp = xrow + (size_t)(tww / win.sw) * (size_t)x.c + (size_t)g * (size_t)in_g;
                            wp = wo + (size_t)kh * st.kh + (size_t)kw * st.kw;
                            for (i = 0; i < in_g; ++i) acc += xp[i] * wp[(size_t)i * st.in];
                        }
                    }
                    if (bias != NULL) acc += bias[o];
                    yp[o] = tk_activate(acc, op->activation);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* How many taps of a window starting at `start` (step d, k taps) fall in [lo, hi). */
static int32_t taps_inside(int32_t start, int32_t k, int32_t d, int32_t lo, int32_t hi) {
    int32_t count = 0, i;
    for (i = 0; i < k; ++i) {
        int32_t p = start + i * d;
        if (p >= lo && p < hi) ++count;
    }
    return count;
}

int tigris_f32_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    tigris_view_t x, y;
    tk_window_t win;
    const int is_max = op->op_type == TIGRIS_OP_MAX_POOL;
    const int ceil_mode = (op->flags & TIGRIS_OPF_CEIL_MODE) != 0;
    const int include_pad = (op->flags & TIGRIS_OPF_COUNT_INCLUDE_PAD) != 0;
    int32_t rank, n, oh, ow, c;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, &x, NULL, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    err = window_of(op, rank, &win);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (y.c != x.c || y.h != pool_length(x.h, win.kh, win.sh, win.dh, win.pt, win.pb, ceil_mode) ||
        y.w != pool_length(x.w, win.kw, win.sw, win.dw, win.pl, win.pr, ceil_mode))
        return TIGRIS_KERNEL_ERR_SHAPE;

    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            const int32_t ih0 = oh * win.sh - win.pt;
            const int32_t rows_in = taps_inside(ih0, win.kh, win.dh, 0, x.h);
            const int32_t rows_counted = include_pad ? taps_inside(ih0, win.kh, win.dh, -win.pt, x.h + win.pb) : rows_in;
            for (ow = 0; ow < y.w; ++ow) {
                const int32_t iw0 = ow * win.sw - win.pl;
                float *yp = yrow + (size_t)ow * (size_t)y.c;
                int32_t kh, kw;
                for (c = 0; c < y.c; ++c) yp[c] = is_max ? -INFINITY : 0.0f;
                for (kh = 0; kh < win.kh; ++kh) {
                    const int32_t ih = ih0 + kh * win.dh;
                    const float *xrow;
                    if (ih < 0 || ih >= x.h) continue;
                    xrow = tk_f32_row(&x, n, ih);
                    if (xrow == NULL) return TIGRIS_KERNEL_ERR_BAND;
                    for (kw = 0; kw < win.kw; ++kw) {
                        const int32_t iw = iw0 + kw * win.dw;
                        const float *xp;
                        if (iw < 0 || iw >= x.w) continue;
                        xp = xrow + (size_t)iw * (size_t)x.c;
                        if (is_max) {
                            for (c = 0; c < y.c; ++c)
                                if (xp[c] > yp[c] || xp[c] != xp[c]) yp[c] = xp[c];
                        } else {
                            for (c = 0; c < y.c; ++c) yp[c] += xp[c];
                        }
                    }
                }
                if (!is_max) {
                    const int32_t cols = include_pad ? taps_inside(iw0, win.kw, win.dw, -win.pl, x.w + win.pr)
                                                     : taps_inside(iw0, win.kw, win.dw, 0, x.w);
                    const float count = (float)(rows_counted * cols);
                    for (c = 0; c < y.c; ++c) yp[c] /= count;
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_global_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                           void *user_ctx) {
    tigris_view_t x, y;
    const int is_max = op->op_type == TIGRIS_OP_GLOBAL_MAX;
    int32_t n, c, r, i;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, &x, NULL, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (plan->tensors[tk_input(plan, op, 0)].ndim < 3 || y.c != x.c || y.h != 1 || y.w != 1) return TIGRIS_KERNEL_ERR_SHAPE;
    if (y.h_start >= y.h_end) return TIGRIS_KERNEL_OK; /* no output row in this band */
    if (x.h_start != 0 || x.h_end != x.h) return TIGRIS_KERNEL_ERR_BAND;

    for (n = 0; n < y.n; ++n) {
        float *yp = tk_f32_row(&y, n, 0);
        for (c = 0; c < x.c; ++c) {
            float sum = 0.0f, comp = 0.0f, best = -INFINITY; /* Kahan-compensated sum */
            for (r = 0; r < x.h; ++r) {
                const float *xp = tk_f32_row(&x, n, r) + c;
                for (i = 0; i < x.w; ++i) {
                    const float v = xp[(size_t)i * (size_t)x.c];
                    if (is_max) {
                        if (v > best || v != v) best = v;
                    } else {
                        const float term = v - comp, next = sum + term;
                        comp = (next - sum) - term;
                        sum = next;
                    }
                }
            }
            yp[c] = is_max ? best : sum / (float)((size_t)x.h * (size_t)x.w);
        }
    }
    return TIGRIS_KERNEL_OK;
}
