/* kernels_i8_elementwise.c - int8 element-wise ops: add, sub, mul (ONNX broadcasting), the
 * lookup-table activations, and the float conversions quantize / dequantize. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "i8_math.h"
#include "kernels_i8.h"

/* An operand or result as a tk_nd_t with its 8-bit storage. */
static int nd8(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, tk_nd_t *nd,
               tigris_i8_storage_t *s) {
    int err;
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_k_nd_of(plan, mem, t, nd)) != TIGRIS_KERNEL_OK) return err;
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

/* ADD / SUB: TFLite's AddElementwise (tgr.add_params): both inputs, offset by their zero points,
 * shifted left by left_shift (20) and scaled by their multipliers (shifts <= 0); the sum or
 * difference is requantized with the output multiplier. MUL: clamp(out_zp + MBQM((a - zp_a)(b - zp_b))). */
int tigris_i8_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tk_nd_t out, a, b;
    tk_iter_t it;
    tigris_i8_storage_t os, as, bs;
    tigris_i8_mults_t q;
    int32_t lo, hi, m = 0, s = 0;
    const int is_mul = op->op_type == TIGRIS_OP_MUL;
    const int subtract = op->op_type == TIGRIS_OP_SUB;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (op->num_inputs != 2) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, &os)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &a, &as)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 1), &b, &bs)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_check_zp(&as, op->input_zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_check_zp(&bs, op->input2_zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_check_zp(&os, op->output_zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_act_range(op, &os, &lo, &hi)) != TIGRIS_KERNEL_OK) return err;
    if (is_mul) {
        if ((err = tigris_i8_mults(plan, op, 1, &q)) != TIGRIS_KERNEL_OK) return err;
        m = q.mult[0];
        s = q.shift[0];
    } else {
        /* |value - zp| <= 255: with left_shift <= 22 the shifted inputs stay below 2^30, and
         * input multipliers below one (shifts <= 0) keep each scaled input below 2^30, so their
         * sum or difference fits int32 */
        if (op->left_shift < 0 || op->left_shift > 22 || op->input_multiplier < 0 || op->input2_multiplier < 0 ||
            op->output_multiplier < 0 || op->input_shift > 0 || op->input2_shift > 0 ||
            op->input_shift < TIGRIS_I8_SHIFT_MIN || op->input2_shift < TIGRIS_I8_SHIFT_MIN ||
            op->output_shift < TIGRIS_I8_SHIFT_MIN || op->output_shift > TIGRIS_I8_SHIFT_MAX)
            return TIGRIS_KERNEL_ERR_PARAMS;
    }
    if ((err = walk_setup(&it, &out, &a, &b)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sa = it.stride[1][last], sb = it.stride[2][last];
        uint8_t *y = out.data + it.off[0];
        const uint8_t *x1 = a.data + it.off[1], *x2 = b.data + it.off[2];
        int32_t i;
        if (is_mul) {
            for (i = 0; i < count; ++i) {
                int32_t v1 = tigris_i8_value(x1[i * sa], as.flip, as.bias) - op->input_zp;
                int32_t v2 = tigris_i8_value(x2[i * sb], bs.flip, bs.bias) - op->input2_zp;
                y[i * so] = tigris_i8_byte(tigris_i8_requant(v1 * v2, m, s, op->output_zp, lo, hi));
            }
        } else {
            for (i = 0; i < count; ++i) {
                int32_t v1 = (tigris_i8_value(x1[i * sa], as.flip, as.bias) - op->input_zp) * (1 << op->left_shift);
                int32_t v2 = (tigris_i8_value(x2[i * sb], bs.flip, bs.bias) - op->input2_zp) * (1 << op->left_shift);
                int32_t s1 = tigris_i8_mbqm(v1, op->input_multiplier, op->input_shift);
                int32_t s2 = tigris_i8_mbqm(v2, op->input2_multiplier, op->input2_shift);
                int32_t raw = subtract ? s1 - s2 : s1 + s2;
                y[i * so] = tigris_i8_byte(
                    tigris_i8_requant(raw, op->output_multiplier, op->output_shift, op->output_zp, lo, hi));
            }
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* RELU, RELU6, CLIP, LEAKY_RELU, SIGMOID, TANH, HARD_SWISH: out = table[v - qmin]. */
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
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, &os)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, &xs)) != TIGRIS_KERNEL_OK) return err;
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

/* The per-tensor (scale, zero point) of a conversion's quantized side. */
static int conversion_params(const tigris_plan_t *plan, uint16_t t, const tigris_i8_storage_t *s, float *scale,
                             int32_t *zp) {
    const tigris_quant_param_t *q;
    const tigris_tensor_t *tensor = &plan->tensors[t];
    if (tensor->quant == TIGRIS_NONE16 || plan->quant_params == NULL || tensor->quant >= plan->num_quant_params)
        return TIGRIS_KERNEL_ERR_PARAMS;
    q = &plan->quant_params[tensor->quant];
    if (q->axis >= 0) return TIGRIS_KERNEL_ERR_UNSUPPORTED; /* per-axis activations */
    if (!(q->scale > 0.0f && q->scale <= FLT_MAX)) return TIGRIS_KERNEL_ERR_PARAMS;
    *scale = q->scale;
    *zp = q->zero_point;
    return tigris_i8_check_zp(s, *zp);
}

static int is_f32_aligned(const void *p) {
    return ((uintptr_t)p % sizeof(float)) == 0;
}

/* QUANTIZE (float32 in): saturate(rint(x / scale) + zero_point), in float32 as onnxruntime's
 * QuantizeLinear and the interpreter (round half to even; NaN gives 0). */
int tigris_i8_quantize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx) {
    tk_nd_t out, x;
    tk_iter_t it;
    tigris_i8_storage_t os;
    float scale, zpf, lo, hi;
    int32_t zp;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, &os)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, NULL)) != TIGRIS_KERNEL_OK) return err;
    if (x.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (!is_f32_aligned(x.data)) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = conversion_params(plan, out.tensor, &os, &scale, &zp)) != TIGRIS_KERNEL_OK) return err;
    zpf = (float)zp;
    lo = (float)os.qmin;
    hi = (float)os.qmax;
    if ((err = walk_setup(&it, &out, &x, NULL)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sx = it.stride[1][last];
        uint8_t *y = out.data + it.off[0];
        const float *v = (const float *)(const void *)x.data + it.off[1];
        int32_t i;
        for (i = 0; i < count; ++i) {
            float r = v[i * sx] / scale;
            float qv = rintf(r) + zpf;
            int32_t stored;
            if (isnan(qv)) stored = 0;
            else if (qv <= lo) stored = os.qmin;
            else if (qv >= hi) stored = os.qmax;
            else stored = (int32_t)qv;
            y[i * so] = tigris_i8_byte(stored);
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* DEQUANTIZE (float32 out): (x - zero_point) in integers, then one float32 multiply by scale. */
int tigris_i8_dequantize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx) {
    tk_nd_t out, x;
    tk_iter_t it;
    tigris_i8_storage_t xs;
    float scale;
    int32_t zp;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd8(plan, mem, tk_output(plan, op, 0), &out, NULL)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd8(plan, mem, tk_input(plan, op, 0), &x, &xs)) != TIGRIS_KERNEL_OK) return err;
    if (out.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (!is_f32_aligned(out.data)) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = conversion_params(plan, x.tensor, &xs, &scale, &zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = walk_setup(&it, &out, &x, NULL)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t so = it.stride[0][last], sx = it.stride[1][last];
        float *y = (float *)(void *)out.data + it.off[0];
        const uint8_t *v = x.data + it.off[1];
        int32_t i;
        for (i = 0; i < count; ++i) y[i * so] = (float)(tigris_i8_value(v[i * sx], xs.flip, xs.bias) - zp) * scale;
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}
