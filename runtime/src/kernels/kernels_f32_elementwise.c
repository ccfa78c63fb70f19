/* kernels_f32_elementwise.c - float32 element-wise ops, softmax and normalizations.
 *
 * Binary ops broadcast in model (recorded) order, ONNX style: each operand is a tk_nd_t
 * whose strides say where element (n, c, h, w, ...) is stored (channels-last activations,
 * PLAIN constants in ONNX order), and the walk visits the output in its storage order. The
 * float formulas are the interpreter's (kernels_math.py): stable two-branch sigmoid,
 * onnxruntime's hard_swish x * clamp(x / 6 + 0.5, 0, 1), clip as max then min.
 */
#include <math.h>
#include <stdint.h>

#include "kernels_f32.h"
#include "kernels_fast.h"

/* A float32 operand or result of an element-wise op: in a 2-D tile, its window (the walk
 * covers exactly the output's resident pixels, and tigris_k_iter_broadcast checks that each
 * operand holds the pixels it reads). */
static int f32_window_nd(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, tk_nd_t *out) {
    int err = tigris_k_nd_of_window(plan, mem, t, out);
    if (err != TIGRIS_KERNEL_OK) return err;
    return out->dtype == TIGRIS_DTYPE_F32 ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_UNSUPPORTED;
}

/* Output and operands of an element-wise op in one walk (operand k is it->off[k]). */
static int elementwise_walk(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, int32_t operands,
                            tk_nd_t *y, tk_nd_t *x, tk_iter_t *it) {
    int32_t order[TK_MAX_RANK], k;
    uint16_t ty = tk_output(plan, op, 0);
    int err;
    if (ty == TIGRIS_NONE16 || op->num_inputs < operands) return TIGRIS_KERNEL_ERR_PARAMS;
    err = f32_window_nd(plan, mem, ty, y);
    if (err != TIGRIS_KERNEL_OK) return err;
    tigris_k_storage_order(y, order);
    tigris_k_iter_output(it, y, order);
    for (k = 0; k < operands; ++k) {
        uint16_t t = tk_input(plan, op, (uint32_t)k);
        if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
        err = f32_window_nd(plan, mem, t, &x[k]);
        if (err == TIGRIS_KERNEL_OK) err = tigris_k_iter_broadcast(it, y, order, &x[k]);
        if (err != TIGRIS_KERNEL_OK) return err;
    }
    return TIGRIS_KERNEL_OK;
}

/* A binary op's float result (the reference loop's, and the fast loop's for strided runs). */
static float binary_value(uint8_t type, float a, float b) {
    switch (type) {
    case TIGRIS_OP_ADD: return a + b;
    case TIGRIS_OP_SUB: return a - b;
    case TIGRIS_OP_MUL: return a * b;
    case TIGRIS_OP_MAX: return (a > b || a != a) ? a : b; /* NaN propagates, as numpy */
    case TIGRIS_OP_MIN: return (a < b || a != a) ? a : b;
    case TIGRIS_OP_PRELU: return a >= 0.0f ? a : b * a; /* a = x, b = slope */
    case TIGRIS_OP_POW_TENSOR: return powf(a, b);
    default: return a / b;
    }
}

/* Element-wise loops compilers vectorize at their default optimization (GCC -O2 vectorizes only
 * what needs neither a scalar epilogue nor a run-time alias check): blocks of EW_BLOCK elements,
 * a fixed trip count, over restrict pointers, then the rest one by one. BODY computes element k. */
#define EW_BLOCK 16
#define EW_LOOP(n, BODY)                                                                        \
    do {                                                                                        \
        int32_t i_ = 0, j_;                                                                     \
        for (; i_ + EW_BLOCK <= (n); i_ += EW_BLOCK)                                            \
            for (j_ = 0; j_ < EW_BLOCK; ++j_) {                                                 \
                const int32_t k = i_ + j_;                                                      \
                BODY;                                                                           \
            }                                                                                   \
        for (; i_ < (n); ++i_) {                                                                \
            const int32_t k = i_;                                                               \
            BODY;                                                                               \
        }                                                                                       \
    } while (0)

/* The binary ops' float result of a_ and b_ (the reference loop's expressions), in a switch
 * over the op type around EW_LOOP: the op is chosen once per run. */
#define F32_BINARY_SWITCH(type, n, A, B)                                                        \
    do {                                                                                        \
        switch (type) {                                                                         \
        case TIGRIS_OP_ADD: EW_LOOP(n, y[k] = (A) + (B)); break;                                \
        case TIGRIS_OP_SUB: EW_LOOP(n, y[k] = (A) - (B)); break;                                \
        case TIGRIS_OP_MUL: EW_LOOP(n, y[k] = (A) * (B)); break;                                \
        case TIGRIS_OP_MAX: EW_LOOP(n, y[k] = ((A) > (B) || (A) != (A)) ? (A) : (B)); break;    \
        case TIGRIS_OP_MIN: EW_LOOP(n, y[k] = ((A) < (B) || (A) != (A)) ? (A) : (B)); break;    \
        case TIGRIS_OP_PRELU: EW_LOOP(n, y[k] = (A) >= 0.0f ? (A) : (B) * (A)); break;          \
        case TIGRIS_OP_POW_TENSOR: EW_LOOP(n, y[k] = powf(A, B)); break;                        \
        default: EW_LOOP(n, y[k] = (A) / (B)); break;                                           \
        }                                                                                       \
    } while (0)

/* One contiguous run, y apart from a and b. */
static void f32_binary_vv(uint8_t type, float *restrict y, const float *restrict a, const float *restrict b,
                          int32_t n) {
    F32_BINARY_SWITCH(type, n, a[k], b[k]);
}

/* One contiguous run of a against the single value b (broadcast along the run), y apart from a. */
static void f32_binary_vs(uint8_t type, float *restrict y, const float *restrict a, const float b, int32_t n) {
    F32_BINARY_SWITCH(type, n, a[k], b);
}

/* The single value a against a contiguous run of b, y apart from b. */
static void f32_binary_sv(uint8_t type, float *restrict y, const float a, const float *restrict b, int32_t n) {
    F32_BINARY_SWITCH(type, n, a, b[k]);
}

/* Whether n floats at p and at q share no byte. */
static int disjoint(const float *p, const float *q, int32_t n) {
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q, len = (uintptr_t)n * sizeof(float);
    return a + len <= b || b + len <= a;
}

/* The binary ops' walk merged into the longest runs (tk_iter_coalesce), the op chosen once per
 * run, contiguous runs in vectorizable loops and the fused activation a second pass over the run:
 * every element gets the reference loop's float operations in the same order, so the same bits.
 * A run whose output overlaps an operand (never in a plan: each tensor has its own bytes) or
 * that is strided takes the reference's loop. */
static void f32_binary_fast(tk_iter_t *it, const tigris_op_t *op, float *y, const float *a, const float *b) {
    const int32_t last = it->rank - 1;
    const ptrdiff_t sy = it->stride[0][last], sa = it->stride[1][last], sb = it->stride[2][last];
    const uint8_t type = op->op_type;
    do {
        const int32_t count = tk_iter_inner(it);
        float *yp = y + it->off[0];
        const float *ap = a + it->off[1], *bp = b + it->off[2];
        int32_t i;
        if (sy == 1 && sa == 1 && sb == 1 && disjoint(yp, ap, count) && disjoint(yp, bp, count)) {
            f32_binary_vv(type, yp, ap, bp, count);
        } else if (sy == 1 && sa == 1 && sb == 0 && disjoint(yp, ap, count) && disjoint(yp, bp, 1)) {
            f32_binary_vs(type, yp, ap, *bp, count);
        } else if (sy == 1 && sa == 0 && sb == 1 && disjoint(yp, bp, count) && disjoint(yp, ap, 1)) {
            f32_binary_sv(type, yp, *ap, bp, count);
        } else {
            for (i = 0; i < count; ++i)
                yp[(ptrdiff_t)i * sy] = binary_value(type, ap[(ptrdiff_t)i * sa], bp[(ptrdiff_t)i * sb]);
        }
        if (op->activation != TIGRIS_ACT_NONE)
            for (i = 0; i < count; ++i) yp[(ptrdiff_t)i * sy] = tk_activate(yp[(ptrdiff_t)i * sy], op->activation);
    } while (tk_iter_next(it));
}

/* ADD, SUB, MUL, DIV, MAX, MIN, PRELU (input 0 is x, input 1 the slope), POW_TENSOR (x ** y),
 * broadcast. */
int tigris_f32_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t y, x[2];
    tk_iter_t it;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = elementwise_walk(plan, op, mem, 2, &y, x, &it);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED) tk_iter_coalesce(&it);
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    if (TK_FAST_ENABLED) {
        f32_binary_fast(&it, op, (float *)(void *)y.data, (const float *)(const void *)x[0].data,
                        (const float *)(const void *)x[1].data);
        return TIGRIS_KERNEL_OK;
    }
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t sy = it.stride[0][last], sa = it.stride[1][last], sb = it.stride[2][last];
        float *yp = (float *)(void *)y.data + it.off[0];
        const float *ap = (const float *)(const void *)x[0].data + it.off[1];
        const float *bp = (const float *)(const void *)x[1].data + it.off[2];
        int32_t i;
        for (i = 0; i < count; ++i)
            yp[(ptrdiff_t)i * sy] = tk_activate(binary_value(op->op_type, ap[(ptrdiff_t)i * sa], bp[(ptrdiff_t)i * sb]),
                                                op->activation);
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

static float sigmoid(float x) {
    const float e = expf(-fabsf(x));
    return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

static float unary_value(const tigris_op_t *op, float x) {
    switch (op->op_type) {
    case TIGRIS_OP_RELU: return x < 0.0f ? 0.0f : x;
    case TIGRIS_OP_RELU6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case TIGRIS_OP_CLIP: {
        float v = x < op->clip_min ? op->clip_min : x;
        return v > op->clip_max ? op->clip_max : v;
    }
    case TIGRIS_OP_LEAKY_RELU: return x >= 0.0f ? x : op->alpha * x;
    case TIGRIS_OP_SIGMOID: return sigmoid(x);
    case TIGRIS_OP_TANH: return tanhf(x);
    case TIGRIS_OP_HARD_SWISH: {
        const float alpha = (float)(1.0 / 6.0);
        float gate = alpha * x + 0.5f;
        gate = gate > 1.0f ? 1.0f : gate;
        gate = gate < 0.0f ? 0.0f : gate;
        return x * gate;
    }
    default: return tigris_f32_math_unary(op, x); /* NEG..SILU: kernels_f32_math.c */
    }
}

/* One contiguous run of a unary op, y apart from x, with the op chosen once: the reference's
 * float operations per element (unary_value's) in EW_LOOPs. The sigmoid takes two passes: the
 * expf calls, then 1 or e over 1 + e in one division (the division of the reference's branch). */
static void f32_unary_run(const tigris_op_t *op, float *restrict y, const float *restrict x, int32_t n) {
    switch (op->op_type) {
    case TIGRIS_OP_RELU: EW_LOOP(n, y[k] = x[k] < 0.0f ? 0.0f : x[k]); break;
    case TIGRIS_OP_RELU6: EW_LOOP(n, y[k] = x[k] < 0.0f ? 0.0f : (x[k] > 6.0f ? 6.0f : x[k])); break;
    case TIGRIS_OP_CLIP: {
        const float lo = op->clip_min, hi = op->clip_max;
        EW_LOOP(n, const float v = x[k] < lo ? lo : x[k]; y[k] = v > hi ? hi : v);
        break;
    }
    case TIGRIS_OP_LEAKY_RELU: {
        const float alpha = op->alpha;
        EW_LOOP(n, y[k] = x[k] >= 0.0f ? x[k] : alpha * x[k]);
        break;
    }
    case TIGRIS_OP_SIGMOID: {
        int32_t i;
        for (i = 0; i < n; ++i) y[i] = expf(-fabsf(x[i]));
        EW_LOOP(n, const float e = y[k]; const float top = x[k] >= 0.0f ? 1.0f : e; y[k] = top / (1.0f + e));
        break;
    }
    case TIGRIS_OP_HARD_SWISH: {
        const float alpha = (float)(1.0 / 6.0);
        EW_LOOP(n, float gate = alpha * x[k] + 0.5f; gate = gate > 1.0f ? 1.0f : gate; gate = gate < 0.0f ? 0.0f : gate;
                y[k] = x[k] * gate);
        break;
    }
    default: {
        int32_t i;
        for (i = 0; i < n; ++i) y[i] = unary_value(op, x[i]);
        break;
    }
    }
}

int tigris_f32_unary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tk_nd_t y, x;
    tk_iter_t it;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = elementwise_walk(plan, op, mem, 1, &y, &x, &it);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED) tk_iter_coalesce(&it); /* the same walk in longer runs */
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t sy = it.stride[0][last], sx = it.stride[1][last];
        float *yp = (float *)(void *)y.data + it.off[0];
        const float *xp = (const float *)(const void *)x.data + it.off[1];
        int32_t i;
        if (TK_FAST_ENABLED && sy == 1 && sx == 1 && disjoint(yp, xp, count)) {
            f32_unary_run(op, yp, xp, count);
            continue;
        }
        for (i = 0; i < count; ++i) yp[(ptrdiff_t)i * sy] = unary_value(op, xp[(ptrdiff_t)i * sx]);
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_softmax(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx) {
    tk_nd_t y, x;
    tk_iter_t it;
    int32_t order[TK_MAX_RANK], axis, a, j = 0;
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    (void)op_index;
    (void)user_ctx;

    err = tk_f32_whole_pair(plan, mem, tx, ty, &x, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x.rank != y.rank || x.rank == 0) return TIGRIS_KERNEL_ERR_SHAPE;
    tigris_k_nd_to_runtime(&x);
    tigris_k_nd_to_runtime(&y);
    axis = op->axis < 0 ? op->axis + y.rank : op->axis;
    if (axis < 0 || axis >= y.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    for (a = 0; a < y.rank; ++a)
        if (a != axis) order[j++] = a;
    order[j] = axis; /* the softmax axis is the inner loop */
    tigris_k_iter_output(&it, &y, order);
    err = tigris_k_iter_broadcast(&it, &y, order, &x);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x.dims[axis] != y.dims[axis]) return TIGRIS_KERNEL_ERR_SHAPE;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t sy = it.stride[0][last], sx = it.stride[1][last];
        float *yp = (float *)(void *)y.data + it.off[0];
        const float *xp = (const float *)(const void *)x.data + it.off[1];
        float top = -INFINITY, sum = 0.0f;
        int32_t i;
        for (i = 0; i < count; ++i)
            if (xp[(ptrdiff_t)i * sx] > top) top = xp[(ptrdiff_t)i * sx];
        for (i = 0; i < count; ++i) {
            const float e = expf(xp[(ptrdiff_t)i * sx] - top);
            yp[(ptrdiff_t)i * sy] = e;
            sum += e;
        }
        if (op->op_type == TIGRIS_OP_LOG_SOFTMAX) { /* x - max - log(sum(exp(x - max))) */
            const float log_sum = logf(sum);
            for (i = 0; i < count; ++i) yp[(ptrdiff_t)i * sy] = (xp[(ptrdiff_t)i * sx] - top) - log_sum;
        } else {
            for (i = 0; i < count; ++i) yp[(ptrdiff_t)i * sy] /= sum;
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* Operand i (1..) of a normalization: a float vector of `count` elements. */
static int channel_vector(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, uint32_t i,
                          int32_t count, const float **out) {
    tigris_view_t v;
    uint16_t t = tk_input(plan, op, i);
    int err;
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_view(plan, mem, t, &v);
    if (err != TIGRIS_KERNEL_OK) return err;
    if ((size_t)v.n * (size_t)v.h * (size_t)v.w * (size_t)v.c != (size_t)count) return TIGRIS_KERNEL_ERR_SHAPE;
    *out = (const float *)(const void *)v.data;
    return TIGRIS_KERNEL_OK;
}

/* Views of x and y for a normalization over channels (model axis 1: the view's c), either
 * possibly a 2-D tile's window. */
static int norm_window_views(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, int32_t min_rank,
                             tigris_view_t *x, tigris_view_t *y) {
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_window_view(plan, mem, tx, x);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_window_view(plan, mem, ty, y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (plan->tensors[tx].ndim < min_rank || plan->tensors[tx].ndim != plan->tensors[ty].ndim || x->n != y->n ||
        x->h != y->h || x->w != y->w || x->c != y->c)
        return TIGRIS_KERNEL_ERR_SHAPE;
    return TIGRIS_KERNEL_OK;
}

/* norm_window_views for the kernels that walk whole rows: a window is TIGRIS_KERNEL_ERR_BAND. */
static int norm_views(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, int32_t min_rank,
                      tigris_view_t *x, tigris_view_t *y) {
    int err = norm_window_views(plan, op, mem, min_rank, x, y);
    if (err == TIGRIS_KERNEL_OK && (x->w_start != 0 || x->w_end != x->w || y->w_start != 0 || y->w_end != y->w))
        return TIGRIS_KERNEL_ERR_BAND;
    return err;
}

/* BATCH_NORM: each value by its channel's constants, so it computes exactly the pixels its
 * output holds (a band of rows, or a 2-D tile's window) from the same pixels of x. */
int tigris_f32_batch_norm(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx) {
    tigris_view_t x, y;
    const float *scale, *bias, *mean, *var;
    int32_t n, r, c, i, cols;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = norm_window_views(plan, op, mem, 2, &x, &y);
    if (err == TIGRIS_KERNEL_OK) err = channel_vector(plan, op, mem, 1, x.c, &scale);
    if (err == TIGRIS_KERNEL_OK) err = channel_vector(plan, op, mem, 2, x.c, &bias);
    if (err == TIGRIS_KERNEL_OK) err = channel_vector(plan, op, mem, 3, x.c, &mean);
    if (err == TIGRIS_KERNEL_OK) err = channel_vector(plan, op, mem, 4, x.c, &var);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (!tk_view_covers(&x, &y)) return TIGRIS_KERNEL_ERR_BAND;
    cols = y.w_end - y.w_start;
    for (n = 0; n < y.n; ++n) {
        for (r = y.h_start; r < y.h_end; ++r) { /* x's pixels from column y.w_start on, laid out as y's */
            const float *xp = (const float *)(const void *)tigris_view_px(&x, n, r, y.w_start);
            float *yp = tk_f32_row(&y, n, r);
            for (c = 0; c < x.c; ++c) { /* onnxruntime's folding: x * k + (bias - mean * k) */
                const float k = 1.0f / sqrtf(var[c] + op->epsilon) * scale[c];
                const float shift = bias[c] - mean[c] * k;
                for (i = 0; i < cols; ++i) {
                    const size_t at = (size_t)i * (size_t)x.c + (size_t)c;
                    yp[at] = xp[at] * k + shift;
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_inst_norm(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx) {
    tigris_view_t x, y;
    const float *scale, *bias;
    int32_t n, r, c, i;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = norm_views(plan, op, mem, 3, &x, &y);
    if (err == TIGRIS_KERNEL_OK) err = channel_vector(plan, op, mem, 1, x.c, &scale);
    if (err == TIGRIS_KERNEL_OK) err = channel_vector(plan, op, mem, 2, x.c, &bias);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x.h_start != 0 || x.h_end != x.h) return TIGRIS_KERNEL_ERR_BAND; /* statistics need every row */
    for (n = 0; n < y.n; ++n) {
        for (c = 0; c < x.c; ++c) {
            const float count = (float)((size_t)x.h * (size_t)x.w);
            float sum = 0.0f, comp = 0.0f, mean = 0.0f, denom = 1.0f;
            int pass;
            for (pass = 0; pass < 2; ++pass) { /* Kahan sums of x, then of (x - mean)^2 */
                for (r = 0; r < x.h; ++r) {
                    const float *xp = tk_f32_row(&x, n, r) + c;
                    for (i = 0; i < x.w; ++i) {
                        const float v = xp[(size_t)i * (size_t)x.c];
                        const float term = (pass == 0 ? v : (v - mean) * (v - mean)) - comp;
                        const float next = sum + term;
                        comp = (next - sum) - term;
                        sum = next;
                    }
                }
                if (pass == 0) mean = sum / count;
                else denom = sqrtf(sum / count + op->epsilon);
                sum = comp = 0.0f;
            }
            for (r = y.h_start; r < y.h_end; ++r) {
                const float *xp = tk_f32_row(&x, n, r) + c;
                float *yp = tk_f32_row(&y, n, r) + c;
                for (i = 0; i < x.w; ++i) {
                    const size_t at = (size_t)i * (size_t)x.c;
                    yp[at] = (xp[at] - mean) / denom * scale[c] + bias[c];
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}
