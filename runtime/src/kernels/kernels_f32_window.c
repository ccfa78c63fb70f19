/* kernels_f32_window.c - float32 convolutions and pools over channels-last views.
 *
 * Rank 4 tensors are [N, H, W, C]; rank 3 ([N, C, L], stored [N, L, C]) are the same with
 * W = 1, so conv1d is conv with a 1-wide kernel (an OKI [O, K, I/g] weight has the bytes
 * of an OHWI [O, K, 1, I/g] one). Each kernel computes the resident output rows (conv,
 * depthwise and the pools: the resident window of a 2-D tile, kernels_fast.h); a tap
 * outside the image is padding (zero for convolutions, skipped by max pool, counted or
 * not by average pool), a pixel inside the image that is not resident is
 * TIGRIS_KERNEL_ERR_BAND. Sums run in float32 in tap order, the bias is added last (as
 * im2col + gemm does), then the fused activation.
 */
#include <math.h>

#include "kernels_f32.h"
#include "kernels_fast.h"

/* The window of op along H and W (tk_axis_t, kernels_internal.h); along W a rank-3 op has
 * kernel, stride and dilation 1 and no pads. */
static int window_axes(const tigris_op_t *op, int32_t rank, const tigris_view_t *x, tk_axis_t *ah, tk_axis_t *aw) {
    int err = tk_axis_init(ah, x->h, op->kernel_h, op->stride_h, op->dilation_h, op->pad_top, op->pad_bottom);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (rank == 3) err = tk_axis_init(aw, x->w, 1, 1, 1, 0, 0);
    else err = tk_axis_init(aw, x->w, op->kernel_w, op->stride_w, op->dilation_w, op->pad_left, op->pad_right);
    if (err != TIGRIS_KERNEL_OK) return err;
    return (rank == 3 || rank == 4) ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_UNSUPPORTED;
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

/* How an op views its activations: tk_f32_window_view if it computes 2-D tiles, else tk_f32_view. */
typedef int (*f32_view_fn)(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx,
                           tigris_view_t *out);

/* x, weight and output views of a windowed op, all float32; x and y through view_of. */
static int operands_of(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, f32_view_fn view_of,
                       tigris_view_t *x, tigris_view_t *w, tigris_view_t *y) {
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = view_of(plan, mem, tx, x);
    if (err == TIGRIS_KERNEL_OK) err = view_of(plan, mem, ty, y);
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
    tk_axis_t ah, aw;
    const float *wd, *bias;
    const int32_t *ws;
    int32_t rank, out_ch, kh_n, kw_n, in_g, out_g, n, oh, ow, o;
    uint16_t tw;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, tk_f32_window_view, &x, &w, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    if (rank != (op->op_type == TIGRIS_OP_CONV1D ? 3 : 4)) return TIGRIS_KERNEL_ERR_SHAPE;
    err = window_axes(op, rank, &x, &ah, &aw);
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
    if (op->group < 1 || (int64_t)x.c != (int64_t)in_g * op->group || out_ch % op->group != 0 || y.c != out_ch)
        return TIGRIS_KERNEL_ERR_SHAPE;
    out_g = out_ch / op->group;
    if (kh_n != ah.k || kw_n != aw.k) return TIGRIS_KERNEL_ERR_SHAPE;
    if (y.h != tk_axis_conv_length(&ah) || y.w != tk_axis_conv_length(&aw)) return TIGRIS_KERNEL_ERR_SHAPE;
    err = bias_of(plan, op, mem, out_ch, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    wd = (const float *)(const void *)w.data;
    if ((err = tk_window_resident(&x, &y, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED) return tk_f32_conv_fast(&(tk_f32_conv_args_t){&x, &y, wd, bias, ah, aw, op->group, op->activation});

    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            const int32_t ih0 = oh * ah.s - ah.pb;
            int32_t kh0, kh1, kh;
            tk_axis_taps(&ah, ih0, 0, x.h, &kh0, &kh1);
            for (ow = y.w_start; ow < y.w_end; ++ow) {
                const int32_t iw0 = ow * aw.s - aw.pb;
                float *yp = yrow + tk_col(&y, ow);
                int32_t kw0, kw1;
                tk_axis_taps(&aw, iw0, 0, x.w, &kw0, &kw1);
                for (o = 0; o < out_ch; ++o) {
                    const int32_t c0 = (o / out_g) * in_g;
                    float acc = 0.0f;
                    int32_t kw;
                    for (kh = kh0; kh < kh1; ++kh) {
                        const float *xrow = tk_f32_row(&x, n, ih0 + kh * ah.d);
                        for (kw = kw0; kw < kw1; ++kw) {
                            const float *xp = xrow + tk_col(&x, iw0 + kw * aw.d) + (size_t)c0;
                            const size_t tap = ((size_t)o * (size_t)kh_n + (size_t)kh) * (size_t)kw_n + (size_t)kw;
                            const float *wp = wd + tap * (size_t)in_g;
                            int32_t i;
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
    tk_axis_t ah, aw;
    const float *wd, *bias;
    const int32_t *ws;
    int32_t rank, mult, n, oh, ow, o;
    uint16_t tw;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, tk_f32_window_view, &x, &w, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    err = window_axes(op, rank, &x, &ah, &aw);
    if (err != TIGRIS_KERNEL_OK) return err;
    tw = tk_input(plan, op, 1);
    if (tigris_k_layout(plan, tw) != TIGRIS_LAYOUT_HWC || plan->tensors[tw].ndim != 3)
        return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    ws = tigris_tensor_shape(plan, &plan->tensors[tw]);
    mult = op->group;
    if (mult < 1 || (int64_t)y.c != (int64_t)x.c * mult || ws[2] != y.c || ws[0] != ah.k || ws[1] != aw.k)
        return TIGRIS_KERNEL_ERR_SHAPE;
    if (y.h != tk_axis_conv_length(&ah) || y.w != tk_axis_conv_length(&aw)) return TIGRIS_KERNEL_ERR_SHAPE;
    err = bias_of(plan, op, mem, y.c, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    wd = (const float *)(const void *)w.data;
    if ((err = tk_window_resident(&x, &y, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED && mult == 1)
        return tk_f32_depthwise_fast(&(tk_f32_conv_args_t){&x, &y, wd, bias, ah, aw, 1, op->activation});

    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            const int32_t ih0 = oh * ah.s - ah.pb;
            int32_t kh0, kh1, kh;
            tk_axis_taps(&ah, ih0, 0, x.h, &kh0, &kh1);
            for (ow = y.w_start; ow < y.w_end; ++ow) {
                const int32_t iw0 = ow * aw.s - aw.pb;
                float *yp = yrow + tk_col(&y, ow);
                int32_t kw0, kw1, kw;
                tk_axis_taps(&aw, iw0, 0, x.w, &kw0, &kw1);
                for (o = 0; o < y.c; ++o) yp[o] = 0.0f;
                for (kh = kh0; kh < kh1; ++kh) {
                    const float *xrow = tk_f32_row(&x, n, ih0 + kh * ah.d);
                    for (kw = kw0; kw < kw1; ++kw) {
                        const float *xp = xrow + tk_col(&x, iw0 + kw * aw.d);
                        const float *wp = wd + ((size_t)kh * (size_t)aw.k + (size_t)kw) * (size_t)y.c;
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

/* The taps [*first, *end) of a transposed window that can reach output index o: those with
 * 0 <= o + pb - k d < in * s (the caller still checks that s divides it). */
static void transposed_taps(const tk_axis_t *ax, int32_t o, int32_t *first, int32_t *end) {
    const int64_t reach = (int64_t)o + ax->pb, d = ax->d;
    const int64_t below = reach - (int64_t)ax->in * ax->s; /* k d must exceed this */
    int64_t f = below < 0 ? 0 : below / d + 1, e = reach / d + 1;
    if (e > ax->k) e = ax->k;
    if (f > e) f = e;
    *first = (int32_t)f;
    *end = (int32_t)e;
}

int tigris_f32_conv_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                              tigris_mem_t *mem, void *user_ctx) {
    tigris_view_t x, w, y;
    tk_axis_t ah, aw;
    tk_tconv_strides_t st;
    const float *wd, *bias;
    const int32_t *ws, *params;
    int32_t rank, out_ch, kh_n, kw_n, in_g, out_g, group, pad_h = 0, pad_w = 0, n, oh, ow, o;
    int64_t channels;
    uint16_t tw;
    uint8_t layout;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, tk_f32_view, &x, &w, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    err = window_axes(op, rank, &x, &ah, &aw);
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
        channels = (int64_t)out_g * group;
        if (channels > INT32_MAX) return TIGRIS_KERNEL_ERR_SHAPE;
        out_ch = (int32_t)channels;
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
    if ((int64_t)x.c != (int64_t)in_g * group || (int64_t)out_ch != (int64_t)out_g * group || y.c != out_ch ||
        kh_n != ah.k || kw_n != aw.k)
        return TIGRIS_KERNEL_ERR_SHAPE;
    params = tk_params(plan, op);
    if (params == NULL) return TIGRIS_KERNEL_ERR_PARAMS;
    if (op->num_params >= 1) pad_h = params[0];
    if (op->num_params >= 2 && rank == 4) pad_w = params[1];
    if (pad_h < 0 || pad_w < 0) return TIGRIS_KERNEL_ERR_PARAMS;
    /* every index below (o + pb - k d, with o < the output extent) stays inside int32 */
    if ((int64_t)y.h + ah.pb >= TK_GEOMETRY_LIMIT || (int64_t)y.w + aw.pb >= TK_GEOMETRY_LIMIT)
        return TIGRIS_KERNEL_ERR_RANGE;
    if ((int64_t)y.h != (int64_t)ah.s * (x.h - 1) + pad_h + tk_axis_span(&ah) - ah.pb - ah.pe ||
        (int64_t)y.w != (int64_t)aw.s * (x.w - 1) + pad_w + tk_axis_span(&aw) - aw.pb - aw.pe)
        return TIGRIS_KERNEL_ERR_SHAPE;
    err = bias_of(plan, op, mem, out_ch, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    wd = (const float *)(const void *)w.data;

    /* Gather form: output (oh, ow) takes input (ih, iw) through tap (kh, kw) when
     * oh + pad_top = ih * stride + kh * dilation (and the same along W). */
    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            int32_t kh0, kh1, kh;
            transposed_taps(&ah, oh, &kh0, &kh1);
            for (kh = kh0; kh < kh1; ++kh) {
                int32_t t = oh + ah.pb - kh * ah.d;
                if (t % ah.s == 0 && tk_f32_row(&x, n, t / ah.s) == NULL) return TIGRIS_KERNEL_ERR_BAND;
            }
            for (ow = 0; ow < y.w; ++ow) {
                float *yp = yrow + (size_t)ow * (size_t)out_ch;
                int32_t kw0, kw1;
                transposed_taps(&aw, ow, &kw0, &kw1);
                for (o = 0; o < out_ch; ++o) {
                    const int32_t g = o / out_g;
                    const float *wo = wd + (size_t)g * st.group + (size_t)(o % out_g) * st.out;
                    float acc = 0.0f;
                    int32_t kw;
                    for (kh = kh0; kh < kh1; ++kh) {
                        const int32_t th = oh + ah.pb - kh * ah.d;
                        const float *xrow;
                        if (th % ah.s != 0) continue;
                        xrow = tk_f32_row(&x, n, th / ah.s);
                        for (kw = kw0; kw < kw1; ++kw) {
                            const int32_t tww = ow + aw.pb - kw * aw.d;
                            const float *xp, *wp;
                            int32_t i;
                            if (tww % aw.s != 0) continue;
                            xp = xrow + (size_t)(tww / aw.s) * (size_t)x.c + (size_t)g * (size_t)in_g;
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

int tigris_f32_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    tigris_view_t x, y;
    tk_axis_t ah, aw;
    const int is_max = op->op_type == TIGRIS_OP_MAX_POOL;
    const int ceil_mode = (op->flags & TIGRIS_OPF_CEIL_MODE) != 0;
    const int include_pad = (op->flags & TIGRIS_OPF_COUNT_INCLUDE_PAD) != 0;
    int32_t rank, n, oh, ow, c;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = operands_of(plan, op, mem, tk_f32_window_view, &x, NULL, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    rank = plan->tensors[tk_input(plan, op, 0)].ndim;
    err = window_axes(op, rank, &x, &ah, &aw);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (y.c != x.c || y.h != tk_axis_pool_length(&ah, ceil_mode) || y.w != tk_axis_pool_length(&aw, ceil_mode))
        return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tk_window_resident(&x, &y, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;

    for (n = 0; n < y.n; ++n) {
        for (oh = y.h_start; oh < y.h_end; ++oh) {
            float *yrow = tk_f32_row(&y, n, oh);
            const int32_t ih0 = oh * ah.s - ah.pb;
            const float rows = (float)tk_axis_pool_count(&ah, ih0, include_pad); /* average pool */
            int32_t kh0, kh1, kh;
            tk_axis_taps(&ah, ih0, 0, x.h, &kh0, &kh1);
            for (ow = y.w_start; ow < y.w_end; ++ow) {
                const int32_t iw0 = ow * aw.s - aw.pb;
                float *yp = yrow + tk_col(&y, ow);
                int32_t kw0, kw1, kw;
                tk_axis_taps(&aw, iw0, 0, x.w, &kw0, &kw1);
                for (c = 0; c < y.c; ++c) yp[c] = is_max ? -INFINITY : 0.0f;
                for (kh = kh0; kh < kh1; ++kh) {
                    const float *xrow = tk_f32_row(&x, n, ih0 + kh * ah.d);
                    for (kw = kw0; kw < kw1; ++kw) {
                        const float *xp = xrow + tk_col(&x, iw0 + kw * aw.d);
                        if (is_max) {
                            for (c = 0; c < y.c; ++c)
                                if (xp[c] > yp[c] || xp[c] != xp[c]) yp[c] = xp[c];
                        } else {
                            for (c = 0; c < y.c; ++c) yp[c] += xp[c];
                        }
                    }
                }
                if (!is_max) {
                    const float count = rows * (float)tk_axis_pool_count(&aw, iw0, include_pad);
                    for (c = 0; c < y.c; ++c) yp[c] /= count;
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* A global pool's state for one (batch item, channel): the Kahan-compensated sum and its
 * compensation (average), or the maximum (a NaN sticks); F32_POOL_STATE floats. */
#define F32_POOL_STATE(is_max) ((is_max) ? 1 : 2)

static void f32_pool_start(float *state, int is_max) {
    state[0] = is_max ? -INFINITY : 0.0f;
    if (!is_max) state[1] = 0.0f;
}

/* The resident rows x columns of channel c of batch item n into state, top to bottom, left to
 * right: all rows in one call, a band per tile or, one row tall, a run of columns per tile make
 * the same float operations in the same order. */
static void f32_pool_rows(const tigris_view_t *x, int32_t n, int32_t c, int is_max, float *state) {
    float acc = state[0], comp = is_max ? 0.0f : state[1];
    const int32_t cols = x->w_end - x->w_start;
    int32_t r, i;
    for (r = x->h_start; r < x->h_end; ++r) {
        const float *xp = tk_f32_row(x, n, r) + c;
        for (i = 0; i < cols; ++i) {
            const float v = xp[(size_t)i * (size_t)x->c];
            if (is_max) {
                if (v > acc || v != v) acc = v;
            } else {
                const float term = v - comp, next = acc + term;
                comp = (next - acc) - term;
                acc = next;
            }
        }
    }
    state[0] = acc;
    if (!is_max) state[1] = comp;
}

/* GLOBAL_AVG / GLOBAL_MAX over the spatial axes; in reduction tiles a band (or a window of one
 * row: tiles cut along W) at a time, the state started at the first pixel and the result written
 * at the last. */
int tigris_f32_global_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                           void *user_ctx) {
    tigris_view_t x, y;
    const int is_max = op->op_type == TIGRIS_OP_GLOBAL_MAX;
    const size_t width = (size_t)F32_POOL_STATE(is_max);
    float *acc = NULL;
    int32_t n, c, c0 = 0, c1;
    int err;
    (void)user_ctx;

    err = operands_of(plan, op, mem, tk_f32_window_view, &x, NULL, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (plan->tensors[tk_input(plan, op, 0)].ndim < 3 || y.c != x.c || y.h != 1 || y.w != 1) return TIGRIS_KERNEL_ERR_SHAPE;
    if (y.w_start != 0 || y.w_end != y.w) return TIGRIS_KERNEL_ERR_BAND; /* the output is written whole */
    c1 = x.c;
    if (tk_reduces(mem, op_index)) { /* the accumulator holds the tile's channel block */
        void *state;
        if ((err = tk_reduce_channels(mem, x.c, &c0, &c1)) != TIGRIS_KERNEL_OK) return err;
        err = tigris_k_accumulator(mem, (uint64_t)x.n * (uint64_t)(c1 - c0) * width * sizeof(float), &x, &y, &state);
        if (err != TIGRIS_KERNEL_OK) return err;
        acc = (float *)state;
    } else {
        if (y.h_start >= y.h_end) return TIGRIS_KERNEL_OK; /* no output row in this band */
        if (x.h_start != 0 || x.h_end != x.h || x.w_start != 0 || x.w_end != x.w) return TIGRIS_KERNEL_ERR_BAND;
    }

    for (n = 0; n < y.n; ++n) {
        float *yp = tk_f32_row(&y, n, 0);
        for (c = c0; c < c1; ++c) {
            float own[2] = {0.0f, 0.0f}; /* untiled: the state lives here for the one call */
            float *state = acc != NULL ? acc + ((size_t)n * (size_t)(c1 - c0) + (size_t)(c - c0)) * width : own;
            if (x.h_start == 0 && x.w_start == 0) f32_pool_start(state, is_max);
            f32_pool_rows(&x, n, c, is_max, state);
            if (x.h_end == x.h && x.w_end == x.w) yp[c] = is_max ? state[0] : state[0] / (float)((size_t)x.h * (size_t)x.w);
        }
    }
    return TIGRIS_KERNEL_OK;
}
