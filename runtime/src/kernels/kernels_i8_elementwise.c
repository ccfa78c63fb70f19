/* kernels_i8_elementwise.c - int8 element-wise ops: add, sub, mul, div, max, min, prelu (ONNX
 * broadcasting), softmax, the lookup-table activations, and the float conversions quantize / dequantize. */

#include "i8_math.h"
#include "kernels_fast.h"
#include "kernels_i8.h"

/* An operand or result as a tk_nd_t with its 8-bit storage. `window`: a 2-D tile's window of
 * columns is accepted (the element-wise kernels: their walk covers exactly the resident pixels
 * of the output); softmax needs whole tensors and refuses it. */
static int nd8(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, tk_nd_t *nd,
               tigris_i8_storage_t *s, int window) {
    int err;
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = window ? tigris_k_nd_of_window(plan, mem, t, nd) : tigris_k_nd_of(plan, mem, t, nd);
    if (err != TIGRIS_KERNEL_OK) return err;
    return s != NULL ? tigris_i8_storage(nd->dtype, s) : TIGRIS_KERNEL_OK;
}

/* Walk `out` in its storage order with the operands broadcast to it (walk operands 1, 2). */
static int walk_setup(tk_iter_t *it, const tk_nd_t *out, const tk_nd_t *a, const tk_nd_t *b) {
    int32_t order[TK_MAX_RANK];
    int err;
    tigris_k_storage_order(out, order);
    tigris_k_iter_output(it, out, out->rank > 0 ? order : NULL);
    if ((err = tigris_k_iter_broadcast(it, out, order, a)) != TIGRIS_KERNEL_OK) return err;
    return b != NULL ? tigris_k_iter_broadcast(it, out, order, b) : TIGRIS_KERNEL_OK;
}

/* The binary loop of one op type over a started walk: F(f1, f2) is the float result. */
#define BINARY_LOOP(F)                                                                                \
    do {                                                                                              \
        const int32_t last_ = it->rank - 1;                                                           \
        const ptrdiff_t so_ = it->stride[0][last_], sa_ = it->stride[1][last_], sb_ = it->stride[2][last_]; \
        do {                                                                                          \
            const int32_t count_ = tk_iter_inner(it);                                                 \
            uint8_t *y_ = out->data + it->off[0];                                                     \
            const uint8_t *x1_ = a->data + it->off[1], *x2_ = b->data + it->off[2];                   \
            int32_t i_;                                                                               \
            for (i_ = 0; i_ < count_; ++i_) {                                                         \
                const float f1 = da[x1_[i_ * sa_]], f2 = db[x2_[i_ * sb_]];                           \
                const float r_ = F;                                                                   \
                y_[i_ * so_] = tigris_i8_byte(tigris_i8_round_fast(&range, r_ / ys));                 \
            }                                                                                         \
        } while (tk_iter_next(it));                                                                   \
    } while (0)

/* The binary ops' loop without per-element work that does not depend on the element: each
 * operand's 256 dequantized values in a table (the same function of the byte, so the same
 * floats), the op chosen once, the output range's bounds computed once; per element the
 * reference loop's arithmetic (the op in float32, then quantize: the division by the scale, then
 * tigris_i8_round_fast, the value of the reference's rintf rounding for every float). */
static int binary_fast(tk_iter_t *it, uint8_t type, const tk_nd_t *out, const tk_nd_t *a, const tk_nd_t *b,
                       const tigris_i8_q_t *yq, const tigris_i8_q_t *aq, const tigris_i8_q_t *bq) {
    const tigris_i8_range_t range = tigris_i8_range(yq->zp, yq->s.qmin, yq->s.qmax);
    const float ys = yq->scale;
    float da[256], db[256];
    int32_t v;
    for (v = 0; v < 256; ++v) {
        da[v] = tigris_i8_dequantize_q(aq, (uint8_t)v);
        db[v] = tigris_i8_dequantize_q(bq, (uint8_t)v);
    }
    switch (type) {
    case TIGRIS_OP_ADD: BINARY_LOOP(f1 + f2); break;
    case TIGRIS_OP_SUB: BINARY_LOOP(f1 - f2); break;
    case TIGRIS_OP_MUL: BINARY_LOOP(f1 * f2); break;
    case TIGRIS_OP_MAX: BINARY_LOOP(f1 > f2 ? f1 : f2); break;
    case TIGRIS_OP_MIN: BINARY_LOOP(f1 < f2 ? f1 : f2); break;
    case TIGRIS_OP_PRELU: BINARY_LOOP(f1 >= 0.0f ? f1 : f2 * f1); break;
    default: BINARY_LOOP(f1 / f2); break;
    }
    return TIGRIS_KERNEL_OK;
}

/* ADD, SUB, MUL, DIV, MAX, MIN, PRELU: quantize(dequantize(a) op dequantize(b)) in float32,
 * onnxruntime's QDQ steps; scales and zero points are the tensors'. */
int tigris_i8_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tk_nd_t out, a, b;
    tk_iter_t it;
    tigris_i8_q_t yq, aq, bq;
    const uint8_t type = op->op_type;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (op->num_inputs != 2) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &a, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 1), &b, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, out.tensor, &yq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, a.tensor, &aq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, b.tensor, &bq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = walk_setup(&it, &out, &a, &b)) != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED) tk_iter_coalesce(&it); /* the same walk in longer runs */
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    if (TK_FAST_ENABLED) return binary_fast(&it, type, &out, &a, &b, &yq, &aq, &bq);
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sa = it.stride[1][last], sb = it.stride[2][last];
        uint8_t *y = out.data + it.off[0];
        const uint8_t *x1 = a.data + it.off[1], *x2 = b.data + it.off[2];
        int32_t i;
        for (i = 0; i < count; ++i) {
            const float f1 = tigris_i8_dequantize_q(&aq, x1[i * sa]);
            const float f2 = tigris_i8_dequantize_q(&bq, x2[i * sb]);
            float r;
            if (type == TIGRIS_OP_ADD) r = f1 + f2;
            else if (type == TIGRIS_OP_SUB) r = f1 - f2;
            else if (type == TIGRIS_OP_MUL) r = f1 * f2;
            else if (type == TIGRIS_OP_MAX) r = f1 > f2 ? f1 : f2;
            else if (type == TIGRIS_OP_MIN) r = f1 < f2 ? f1 : f2;
            else if (type == TIGRIS_OP_PRELU) r = f1 >= 0.0f ? f1 : f2 * f1; /* f2: the slope */
            else r = f1 / f2; /* DIV: IEEE (x / 0 is +-inf, 0 / 0 NaN, then saturated / lo) */
            y[i * so] = tigris_i8_quantize_q(&yq, r);
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* SOFTMAX along `axis` (runtime order): quantize(e / s) with e = expf(x - max) of the dequantized
 * values and s their sum in index order, all float32 (quant/arith.py softmax_f32). Each slice
 * along the axis is whole in every band (the op is DENSE: never tiled across rows). */
int tigris_i8_softmax(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t out, x;
    tk_iter_t it;
    tigris_i8_q_t yq, xq;
    int32_t order[TK_MAX_RANK], axis, j, pos, n;
    ptrdiff_t sx, sy;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, NULL, 0)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, NULL, 0)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, out.tensor, &yq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, x.tensor, &xq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&out)) != TIGRIS_KERNEL_OK) return err;
    if (x.rank < 1 || x.rank != out.rank) return TIGRIS_KERNEL_ERR_SHAPE;
    for (j = 0; j < x.rank; ++j)
        if (x.dims[j] != out.dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
    axis = tigris_k_model_axis(op->axis, x.rank);
    if (axis < 0) return TIGRIS_KERNEL_ERR_PARAMS;
    /* walk every position but the softmax axis (its extent 1 in the walk), the axis in the loop */
    for (j = 0, pos = 0; j < x.rank; ++j)
        if (j != axis) order[pos++] = j;
    order[pos] = axis;
    tigris_k_iter_output(&it, &out, order);
    it.hi[it.rank - 1] = it.lo[it.rank - 1] + 1;
    if ((err = tigris_k_iter_broadcast(&it, &out, order, &x)) != TIGRIS_KERNEL_OK) return err;
    n = x.dims[axis];
    if (n < 1) return TIGRIS_KERNEL_OK; /* an empty tensor */
    sx = x.strides[axis];
    sy = out.strides[axis];
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const uint8_t *v = x.data + it.off[1];
        uint8_t *y = out.data + it.off[0];
        float m, sum = 0.0f;
        int32_t i;
        m = tigris_i8_dequantize_q(&xq, v[0]);
        for (i = 1; i < n; ++i) {
            const float f = tigris_i8_dequantize_q(&xq, v[i * sx]);
            if (f > m) m = f;
        }
        for (i = 0; i < n; ++i) {
            const float d = tigris_i8_dequantize_q(&xq, v[i * sx]) - m;
            sum = sum + tigris_i8_expf(d);
        }
        for (i = 0; i < n; ++i) { /* e / sum with e as summed: the same float32 steps again */
            const float d = tigris_i8_dequantize_q(&xq, v[i * sx]) - m;
            const float e = tigris_i8_expf(d);
            y[i * sy] = tigris_i8_quantize_q(&yq, e / sum);
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* RELU, RELU6, CLIP, LEAKY_RELU, SIGMOID, TANH, HARD_SWISH, NEG..SILU: out = table[v - qmin]. */
int tigris_i8_table(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    tk_nd_t out, x;
    tk_iter_t it;
    tigris_i8_storage_t os, xs;
    const uint8_t *table;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (op->table == TIGRIS_NONE16 || plan->tables == NULL || op->table >= plan->header->num_tables)
        return TIGRIS_KERNEL_ERR_PARAMS;
    table = (const uint8_t *)(const void *)tigris_op_table(plan, op);
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, &os, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, &xs, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = walk_setup(&it, &out, &x, NULL)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sx = it.stride[1][last];
        uint8_t *y = out.data + it.off[0];
        const uint8_t *v = x.data + it.off[1];
        int32_t i;
        for (i = 0; i < count; ++i) y[i * so] = table[(uint8_t)(v[i * sx] ^ xs.flip)];
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

static int is_f32_aligned(const void *p) {
    return ((uintptr_t)p % sizeof(float)) == 0;
}

/* QUANTIZE (float32 in): onnxruntime's QuantizeLinear, clamp(rint(x / scale) + zero_point) with
 * ties to even and NaN -> the storage minimum (i8_math.h tigris_i8_quantize_value). */
int tigris_i8_quantize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx) {
    tk_nd_t out, x;
    tk_iter_t it;
    tigris_i8_q_t yq;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if (x.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (!is_f32_aligned(x.data)) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_i8_tensor_q(plan, out.tensor, &yq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = walk_setup(&it, &out, &x, NULL)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sx = it.stride[1][last];
        uint8_t *y = out.data + it.off[0];
        const float *v = (const float *)(const void *)x.data + it.off[1];
        int32_t i;
        for (i = 0; i < count; ++i)
            y[i * so] = tigris_i8_quantize_q(&yq, v[i * sx]);
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* DEQUANTIZE (float32 out): onnxruntime's DequantizeLinear, (float)(x - zero_point) * scale. */
int tigris_i8_dequantize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx) {
    tk_nd_t out, x;
    tk_iter_t it;
    tigris_i8_q_t xq;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, NULL, 1)) != TIGRIS_KERNEL_OK) return err;
    if (out.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (!is_f32_aligned(out.data)) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_i8_tensor_q(plan, x.tensor, &xq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = walk_setup(&it, &out, &x, NULL)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sx = it.stride[1][last];
        float *y = (float *)(void *)out.data + it.off[0];
        const uint8_t *v = x.data + it.off[1];
        int32_t i;
        for (i = 0; i < count; ++i)
            y[i * so] = tigris_i8_dequantize_q(&xq, v[i * sx]);
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}
