/* kernels_f32_reduce.c - reductions over chosen axes (mean, sum, max, min), LRN and layer norm.
 *
 * The reductions share one walk: for each output element, every element of the reduced axes
 * is folded in by the op's accumulate rule (a Kahan sum for mean and sum, a comparison for max
 * and min). Axes arrive in runtime (channels-last) order and are mapped back to model order,
 * where tk_nd_t strides address either storage layout. LRN works across the channels of each
 * pixel, so it computes any resident band of rows; layer norm needs the whole tensor. */
#include <math.h>

#include "kernels_f32.h"

/* -- reduce_mean, reduce_sum, reduce_max, reduce_min ------------------------------------- */

typedef struct {
    float sum, comp; /* Kahan sum (mean, sum) */
    float best;      /* running max or min */
} reduce_acc_t;

static void acc_start(reduce_acc_t *acc, uint8_t op_type) {
    acc->sum = 0.0f;
    acc->comp = 0.0f;
    acc->best = op_type == TIGRIS_OP_REDUCE_MIN ? INFINITY : -INFINITY;
}

static void acc_add(reduce_acc_t *acc, uint8_t op_type, float v) {
    if (op_type == TIGRIS_OP_REDUCE_MAX) {
        if (v > acc->best || v != v) acc->best = v; /* NaN propagates */
    } else if (op_type == TIGRIS_OP_REDUCE_MIN) {
        if (v < acc->best || v != v) acc->best = v;
    } else {
        const float term = v - acc->comp, next = acc->sum + term;
        acc->comp = (next - acc->sum) - term;
        acc->sum = next;
    }
}

static float acc_result(const reduce_acc_t *acc, uint8_t op_type, size_t count) {
    if (op_type == TIGRIS_OP_REDUCE_MAX || op_type == TIGRIS_OP_REDUCE_MIN) return acc->best;
    if (op_type == TIGRIS_OP_REDUCE_MEAN) return acc->sum / (float)count;
    return acc->sum;
}

int tigris_f32_reduce(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t y, x;
    int32_t yidx[TK_MAX_RANK], ridx[TK_MAX_RANK], reduced_axes[TK_MAX_RANK], y_axis_of[TK_MAX_RANK];
    const int32_t *axes = tk_params(plan, op);
    const int keep = (op->flags & TIGRIS_OPF_KEEPDIMS) != 0;
    uint32_t reduced = 0;
    int32_t nred = 0, a, b = 0, k;
    size_t count = 1, total, e;
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    (void)op_index;
    (void)user_ctx;

    err = tk_f32_whole_pair(plan, mem, tx, ty, &x, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (axes == NULL) return TIGRIS_KERNEL_ERR_PARAMS; /* no axes: reduces nothing, a copy (ONNX) */
    for (k = 0; k < op->num_params; ++k) { /* runtime axes -> model axes of x */
        const int32_t m = tigris_k_model_axis(axes[k], x.rank);
        if (m < 0) return TIGRIS_KERNEL_ERR_PARAMS;
        reduced |= 1u << m;
    }
    for (a = 0; a < x.rank; ++a) { /* y's axis of each kept x axis; the reduced axes */
        y_axis_of[a] = -1;
        if (reduced & (1u << a)) {
            reduced_axes[nred++] = a;
            count *= (size_t)x.dims[a];
            if (keep) {
                if (b >= y.rank || y.dims[b] != 1) return TIGRIS_KERNEL_ERR_SHAPE;
                ++b;
            }
        } else {
            if (b >= y.rank || y.dims[b] != x.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
            y_axis_of[a] = b++;
        }
    }
    if (b != y.rank) return TIGRIS_KERNEL_ERR_SHAPE;
    total = tk_count(y.dims, y.rank);
    for (a = 0; a < y.rank; ++a) yidx[a] = 0;
    for (e = 0; e < total; ++e) {
        ptrdiff_t yoff = 0, xbase = 0;
        reduce_acc_t acc;
        size_t i;
        for (a = 0; a < y.rank; ++a) yoff += (ptrdiff_t)yidx[a] * y.strides[a];
        for (a = 0; a < x.rank; ++a)
            if (y_axis_of[a] >= 0) xbase += (ptrdiff_t)yidx[y_axis_of[a]] * x.strides[a];
        for (k = 0; k < nred; ++k) ridx[k] = 0;
        acc_start(&acc, op->op_type);
        for (i = 0; i < count; ++i) {
            ptrdiff_t at = xbase;
            for (k = 0; k < nred; ++k) at += (ptrdiff_t)ridx[k] * x.strides[reduced_axes[k]];
            acc_add(&acc, op->op_type, ((const float *)(const void *)x.data)[at]);
            for (k = nred - 1; k >= 0; --k) {
                if (++ridx[k] < x.dims[reduced_axes[k]]) break;
                ridx[k] = 0;
            }
        }
        ((float *)(void *)y.data)[yoff] = acc_result(&acc, op->op_type, count);
        for (a = y.rank - 1; a >= 0; --a) {
            if (++yidx[a] < y.dims[a]) break;
            yidx[a] = 0;
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* -- lrn ------------------------------------------------------------------------------------ */

/* LRN: each pixel from its own channels, so it computes exactly the pixels its output holds (a
 * band of rows, or a 2-D tile's window) from the same pixels of x. */
int tigris_f32_lrn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx) {
    tigris_view_t x, y;
    const int32_t size = (int32_t)op->kernel_h, before = (size - 1) / 2, after = size - 1 - (size - 1) / 2;
    const float scale = op->alpha / (float)size;
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int32_t n, r, i, c, k, cols;
    int err;
    (void)op_index;
    (void)user_ctx;

    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16 || size < 1) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_window_view(plan, mem, tx, &x);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_window_view(plan, mem, ty, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (plan->tensors[tx].ndim < 2 || plan->tensors[tx].ndim != plan->tensors[ty].ndim || x.n != y.n || x.h != y.h ||
        x.w != y.w || x.c != y.c)
        return TIGRIS_KERNEL_ERR_SHAPE;
    if (!tk_view_covers(&x, &y)) return TIGRIS_KERNEL_ERR_BAND;
    cols = y.w_end - y.w_start;
    for (n = 0; n < y.n; ++n) {
        for (r = y.h_start; r < y.h_end; ++r) { /* x's pixels from column y.w_start on, laid out as y's */
            const float *xp = (const float *)(const void *)tigris_view_px(&x, n, r, y.w_start);
            float *yp = tk_f32_row(&y, n, r);
            for (i = 0; i < cols; ++i) {
                const float *px = xp + (size_t)i * (size_t)x.c;
                float *py = yp + (size_t)i * (size_t)x.c;
                for (c = 0; c < x.c; ++c) { /* channels [c - before, c + after] inside [0, C) */
                    const int32_t lo = c < before ? 0 : c - before;
                    const int32_t hi = x.c - 1 - c < after ? x.c - 1 : c + after;
                    float square_sum = 0.0f;
                    for (k = lo; k <= hi; ++k) square_sum += px[k] * px[k];
                    py[c] = px[c] / powf(op->epsilon + scale * square_sum, op->beta);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* -- layer_norm ----------------------------------------------------------------------------- */

/* Offset in t of the flat index `flat` of axes [lo, rank) walked row-major. */
static ptrdiff_t trailing_offset(const tk_nd_t *t, int32_t lo, size_t flat) {
    ptrdiff_t off = 0;
    int32_t a;
    for (a = t->rank - 1; a >= lo; --a) {
        const size_t d = (size_t)t->dims[a];
        off += (ptrdiff_t)(flat % d) * t->strides[a];
        flat /= d;
    }
    return off;
}

/* Operand i, if present: float, with exactly x's dims from `axis` on. */
static int norm_param(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, uint32_t i,
                      const tk_nd_t *x, int32_t axis, tk_nd_t *out, int *present) {
    uint16_t t = tk_input(plan, op, i);
    int32_t a;
    int err;
    *present = 0;
    if (i >= op->num_inputs || t == TIGRIS_NONE16) return TIGRIS_KERNEL_OK;
    err = tk_f32_nd(plan, mem, t, out);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(out);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (out->rank != x->rank - axis) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = 0; a < out->rank; ++a)
        if (out->dims[a] != x->dims[axis + a]) return TIGRIS_KERNEL_ERR_SHAPE;
    *present = 1;
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_layer_norm(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx) {
    tk_nd_t x, y, scale, bias;
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int32_t axis, a;
    int has_scale, has_bias, err;
    size_t outer, inner, o, i;
    (void)op_index;
    (void)user_ctx;

    err = tk_f32_whole_pair(plan, mem, tx, ty, &x, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x.rank != y.rank || x.rank == 0) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = 0; a < x.rank; ++a)
        if (x.dims[a] != y.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
    axis = tigris_k_model_axis(op->axis, x.rank);
    if (axis < 0) return TIGRIS_KERNEL_ERR_PARAMS;
    err = norm_param(plan, op, mem, 1, &x, axis, &scale, &has_scale);
    if (err == TIGRIS_KERNEL_OK) err = norm_param(plan, op, mem, 2, &x, axis, &bias, &has_bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (!has_scale) return TIGRIS_KERNEL_ERR_PARAMS;
    outer = tk_count(x.dims, axis);
    inner = tk_count(x.dims + axis, x.rank - axis);
    if (inner == 0) return TIGRIS_KERNEL_OK;
    for (o = 0; o < outer; ++o) {
        /* the leading axes [0, axis) of index o, as the trailing axes of a rank-`axis` tensor */
        tk_nd_t lead = x;
        const float *xd;
        float *yd;
        float sum = 0.0f, comp = 0.0f, mean = 0.0f, denom = 1.0f;
        int pass;
        lead.rank = axis;
        xd = (const float *)(const void *)x.data + trailing_offset(&lead, 0, o);
        lead = y;
        lead.rank = axis;
        yd = (float *)(void *)y.data + trailing_offset(&lead, 0, o);
        for (pass = 0; pass < 2; ++pass) { /* Kahan sums of x, then of (x - mean)^2 */
            for (i = 0; i < inner; ++i) {
                const float v = xd[trailing_offset(&x, axis, i)];
                const float term = (pass == 0 ? v : (v - mean) * (v - mean)) - comp;
                const float next = sum + term;
                comp = (next - sum) - term;
                sum = next;
            }
            if (pass == 0) mean = sum / (float)inner;
            else denom = sqrtf(sum / (float)inner + op->epsilon);
            sum = comp = 0.0f;
        }
        for (i = 0; i < inner; ++i) {
            float v = (xd[trailing_offset(&x, axis, i)] - mean) / denom;
            v *= ((const float *)(const void *)scale.data)[trailing_offset(&scale, 0, i)];
            if (has_bias) v += ((const float *)(const void *)bias.data)[trailing_offset(&bias, 0, i)];
            yd[trailing_offset(&y, axis, i)] = v;
        }
    }
    return TIGRIS_KERNEL_OK;
}
