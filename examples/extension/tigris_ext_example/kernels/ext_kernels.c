/* ext_kernels.c - the C kernels of the `ext` dialect: ext_kernel, a tigris_kernel_fn.
 *
 * The host build (`tigris run`) compiles this file with the runtime and calls ext_kernel for
 * every op before the reference kernels; a firmware calls it from its own tigris_kernel_fn
 * the same way. It runs the op types it owns and returns TIGRIS_KERNEL_ERR_UNSUPPORTED for
 * every other op. Strict C99 (-std=c99 -Wall -Wextra -Werror -pedantic), no heap, no state.
 */
#include "tigris_kernels.h"

#define EXT_OP_THRESHOLDED_RELU 130 /* dialect.py THRESHOLDED_RELU */

/* y = x if x > alpha else 0; alpha is in op->alpha (NaN is not greater: 0, as in onnxruntime).
 * Pointwise over the rows of the output that are resident: in a tiled stage that is the
 * current band (the input holds the same rows), otherwise the whole tensor. */
static int thresholded_relu(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem) {
    tigris_view_t x, y;
    int32_t n, row;
    size_t i, count;
    int err;

    if (op->num_inputs != 1 || op->num_outputs != 1) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tigris_view_of(plan, mem, tigris_op_inputs(plan, op)[0], &x);
    if (err == TIGRIS_KERNEL_OK) err = tigris_view_of(plan, mem, tigris_op_outputs(plan, op)[0], &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x.dtype != TIGRIS_DTYPE_F32 || y.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (x.n != y.n || x.h != y.h || x.w != y.w || x.c != y.c) return TIGRIS_KERNEL_ERR_SHAPE;
    count = (size_t)y.w * (size_t)y.c;
    for (n = 0; n < y.n; n++) {
        for (row = y.h_start; row < y.h_end; row++) {
            const float *xp = (const float *)(const void *)tigris_view_row(&x, n, row);
            float *yp = (float *)(void *)tigris_view_row(&y, n, row);
            if (xp == NULL || yp == NULL) return TIGRIS_KERNEL_ERR_BAND;
            for (i = 0; i < count; i++) yp[i] = xp[i] > op->alpha ? xp[i] : 0.0f;
        }
    }
    return TIGRIS_KERNEL_OK;
}

int ext_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
               void *user_ctx) {
    (void)op_index;
    (void)user_ctx;
    switch (op->op_type) {
    case EXT_OP_THRESHOLDED_RELU: return thresholded_relu(plan, op, mem);
    default: return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    }
}
