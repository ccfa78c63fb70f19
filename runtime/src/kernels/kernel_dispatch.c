/* kernel_dispatch.c - tigris_ref_kernel: the int8, integer or float kernel of an op, by dtype. */
#include "kernels_f32.h"
#include "kernels_i8.h"
#include "kernels_int.h"

/* An op runs the int8 kernels if it converts to or from int8, or touches an I8/U8 tensor. */
static int is_int8_op(const tigris_plan_t *plan, const tigris_op_t *op) {
    uint32_t i;
    if (op->op_type == TIGRIS_OP_QUANTIZE || op->op_type == TIGRIS_OP_DEQUANTIZE) return 1;
    for (i = 0; i < (uint32_t)op->num_inputs + op->num_outputs; ++i) {
        uint16_t t = i < op->num_inputs ? tk_input(plan, op, i) : tk_output(plan, op, i - op->num_inputs);
        uint8_t dtype;
        if (t == TIGRIS_NONE16) continue;
        dtype = plan->tensors[t].dtype;
        if (dtype == TIGRIS_DTYPE_I8 || dtype == TIGRIS_DTYPE_U8) return 1;
    }
    return 0;
}

/* An op computes on integers if its first result is int32 or int64 (arithmetic on ids and
 * counts); the data-movement ops have no integer kernel of their own (their float kernels
 * move bytes whatever the dtype). */
static int is_integer_op(const tigris_plan_t *plan, const tigris_op_t *op) {
    uint16_t t = op->num_outputs > 0 ? tk_output(plan, op, 0) : TIGRIS_NONE16;
    uint8_t dtype = t == TIGRIS_NONE16 ? 0 : plan->tensors[t].dtype;
    return dtype == TIGRIS_DTYPE_I32 || dtype == TIGRIS_DTYPE_I64;
}

int tigris_ref_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tigris_kernel_fn fn = NULL;
    if (plan == NULL || op == NULL || mem == NULL || plan->header == NULL) return TIGRIS_KERNEL_ERR_PARAMS;
    if (op->op_type >= TIGRIS_OP_CUSTOM_FIRST) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (is_int8_op(plan, op)) {
        fn = tigris_i8_kernel_for(op->op_type);
    } else {
        if (is_integer_op(plan, op)) fn = tigris_int_kernel_for(op->op_type);
        if (fn == NULL) fn = tigris_f32_kernel_for(op->op_type);
    }
    if (fn == NULL) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    return fn(plan, op, op_index, mem, user_ctx);
}

const char *tigris_kernel_error_str(int err) {
    switch (err) {
    case TIGRIS_KERNEL_OK: return "ok";
    case TIGRIS_KERNEL_ERR_UNSUPPORTED: return "op type or dtype combination not implemented";
    case TIGRIS_KERNEL_ERR_SHAPE: return "operand shapes inconsistent with the op";
    case TIGRIS_KERNEL_ERR_BAND: return "a row the op needs is not resident in its band";
    case TIGRIS_KERNEL_ERR_PARAMS: return "missing table, scales, parameters or tensor data";
    case TIGRIS_KERNEL_ERR_RANGE: return "a size or parameter is beyond the kernel's integer range";
    default: return "unknown kernel error";
    }
}
