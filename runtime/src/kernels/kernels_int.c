/* kernels_int.c - element-wise binary ops on int32 and int64 tensors (ONNX Add, Sub, Mul,
 * Div, Max, Min on integer types).
 *
 * Integer arithmetic of ONNX is the machine's: two's-complement wrap-around on overflow (as
 * onnxruntime and numpy compute it), division truncating toward zero (onnxruntime's integer
 * Div). C leaves signed overflow and INT_MIN / -1 undefined, so sums and products are taken
 * in the unsigned type of the same width and converted back, and a division by zero or
 * INT_MIN / -1 is refused as TIGRIS_KERNEL_ERR_RANGE instead of trapping. Broadcasting and
 * the walk over a band are tk_iter_t's, as for the float kernels.
 */
#include "kernels_int.h"

/* Both operands and the output of an integer binary op, all of one integer dtype. */
static int int_binary_walk(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, tk_nd_t *y,
                           tk_nd_t *x, tk_iter_t *it) {
    int32_t order[TK_MAX_RANK], k;
    uint16_t ty = tk_output(plan, op, 0);
    int err;
    if (ty == TIGRIS_NONE16 || op->num_inputs != 2 || op->num_outputs != 1) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tigris_k_nd_of_window(plan, mem, ty, y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (y->dtype != TIGRIS_DTYPE_I32 && y->dtype != TIGRIS_DTYPE_I64) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    tigris_k_storage_order(y, order);
    tigris_k_iter_output(it, y, order);
    for (k = 0; k < 2; ++k) {
        uint16_t t = tk_input(plan, op, (uint32_t)k);
        if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
        err = tigris_k_nd_of_window(plan, mem, t, &x[k]);
        if (err != TIGRIS_KERNEL_OK) return err;
        if (x[k].dtype != y->dtype) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
        err = tigris_k_iter_broadcast(it, y, order, &x[k]);
        if (err != TIGRIS_KERNEL_OK) return err;
    }
    return TIGRIS_KERNEL_OK;
}

/* One element of op_type on int64 values, the result wrapped to `bits` (32 or 64) bits;
 * 0 if the op is undefined for these values (a zero divisor, the minimum over -1). */
static int int_value(uint8_t op_type, int64_t a, int64_t b, int bits, int64_t *out) {
    const uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    const int64_t min = bits == 32 ? (int64_t)INT32_MIN : INT64_MIN;
    uint64_t u;
    switch (op_type) {
    case TIGRIS_OP_ADD: u = ua + ub; break;
    case TIGRIS_OP_SUB: u = ua - ub; break;
    case TIGRIS_OP_MUL: u = ua * ub; break;
    case TIGRIS_OP_MAX: *out = a > b ? a : b; return 1;
    case TIGRIS_OP_MIN: *out = a < b ? a : b; return 1;
    default: /* TIGRIS_OP_DIV */
        if (b == 0 || (a == min && b == -1)) return 0;
        *out = a / b; /* C99 truncates toward zero */
        return 1;
    }
    if (bits == 32) { /* the low 32 bits as a signed value, without an implementation-defined cast */
        u &= 0xFFFFFFFFu;
        *out = u >= 0x80000000u ? (int64_t)u - (int64_t)0x100000000 : (int64_t)u;
    } else {
        *out = u > (uint64_t)INT64_MAX ? -(int64_t)(~u) - 1 : (int64_t)u;
    }
    return 1;
}

int tigris_int_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t y, x[2];
    tk_iter_t it;
    int err, bits;
    (void)op_index;
    (void)user_ctx;

    if (op->activation != TIGRIS_ACT_NONE) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    err = int_binary_walk(plan, op, mem, &y, x, &it);
    if (err != TIGRIS_KERNEL_OK) return err;
    bits = y.dtype == TIGRIS_DTYPE_I32 ? 32 : 64;
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1, count = tk_iter_inner(&it);
        const ptrdiff_t sy = it.stride[0][last], sa = it.stride[1][last], sb = it.stride[2][last];
        int32_t i;
        for (i = 0; i < count; ++i) {
            const ptrdiff_t iy = it.off[0] + (ptrdiff_t)i * sy, ia = it.off[1] + (ptrdiff_t)i * sa,
                            ib = it.off[2] + (ptrdiff_t)i * sb;
            int64_t a, b, v;
            if (bits == 32) {
                a = ((const int32_t *)(const void *)x[0].data)[ia];
                b = ((const int32_t *)(const void *)x[1].data)[ib];
            } else {
                a = ((const int64_t *)(const void *)x[0].data)[ia];
                b = ((const int64_t *)(const void *)x[1].data)[ib];
            }
            if (!int_value(op->op_type, a, b, bits, &v)) return TIGRIS_KERNEL_ERR_RANGE;
            if (bits == 32)
                ((int32_t *)(void *)y.data)[iy] = (int32_t)v;
            else
                ((int64_t *)(void *)y.data)[iy] = v;
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

tigris_kernel_fn tigris_int_kernel_for(uint8_t op_type) {
    switch (op_type) {
    case TIGRIS_OP_ADD:
    case TIGRIS_OP_SUB:
    case TIGRIS_OP_MUL:
    case TIGRIS_OP_DIV:
    case TIGRIS_OP_MAX:
    case TIGRIS_OP_MIN: return tigris_int_binary;
    default: return NULL;
    }
}
