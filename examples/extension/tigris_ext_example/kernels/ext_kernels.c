/* ext_kernels.c - the C kernels of the `ext` dialect (thresholded_relu, lp_pool): ext_kernel, a
 * tigris_kernel_fn.
 *
 * The host build (`tigris run`) compiles this file with the runtime and calls ext_kernel for
 * every op before the reference kernels; a firmware calls it from its own tigris_kernel_fn
 * the same way. It runs the op types it owns and returns TIGRIS_KERNEL_ERR_UNSUPPORTED for
 * every other op. Strict C99 (-std=c99 -Wall -Wextra -Werror -pedantic), no heap, no state.
 */
#include <math.h>

#include "tigris_kernels.h"

#define EXT_OP_THRESHOLDED_RELU 130 /* dialect.py THRESHOLDED_RELU */
#define EXT_OP_LP_POOL 131          /* dialect.py LP_POOL */

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

/* The input taps of output index `o` along one axis: index o * stride - pad + k * dilation for
 * k in [0, kernel); taps outside [0, size) read the zero padding, which adds nothing. */
static int64_t first_tap(int32_t o, uint16_t stride, uint16_t pad) {
    return (int64_t)o * (int64_t)stride - (int64_t)pad;
}

/* y = (sum over each window of |x|^p)^(1/p), p (params[0]) 1 or 2; the window is the record's
 * kernel, stride, dilation and pads, which the emitter wrote from the op's SpatialWindow (the
 * runtime computed this band's input rows from the same fields). Walks the resident output
 * rows (a tiled stage: the current band), reading each input row it needs through
 * tigris_view_row: a row that is not resident is TIGRIS_KERNEL_ERR_BAND, never a misread. The
 * sum runs in kernel-row, kernel-column order, as the interpreter's. */
static int lp_pool(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem) {
    tigris_view_t x, y;
    int32_t n, oh, ow, kh, kw, ch, p;
    int err;

    if (op->num_inputs != 1 || op->num_outputs != 1 || op->num_params != 1) return TIGRIS_KERNEL_ERR_PARAMS;
    p = tigris_op_params(plan, op)[0];
    if ((p != 1 && p != 2) || op->stride_h < 1 || op->stride_w < 1 || op->dilation_h < 1 || op->dilation_w < 1)
        return TIGRIS_KERNEL_ERR_PARAMS;
    err = tigris_view_of(plan, mem, tigris_op_inputs(plan, op)[0], &x);
    if (err == TIGRIS_KERNEL_OK) err = tigris_view_of(plan, mem, tigris_op_outputs(plan, op)[0], &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x.dtype != TIGRIS_DTYPE_F32 || y.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (x.n != y.n || x.c != y.c) return TIGRIS_KERNEL_ERR_SHAPE;
    for (n = 0; n < y.n; n++) {
        for (oh = y.h_start; oh < y.h_end; oh++) {
            float *yrow = (float *)(void *)tigris_view_row(&y, n, oh);
            if (yrow == NULL) return TIGRIS_KERNEL_ERR_BAND;
            for (ow = 0; ow < y.w; ow++) {
                float *acc = yrow + (size_t)ow * (size_t)y.c;
                for (ch = 0; ch < y.c; ch++) acc[ch] = 0.0f;
                for (kh = 0; kh < op->kernel_h; kh++) {
                    int64_t ih = first_tap(oh, op->stride_h, op->pad_top) + (int64_t)kh * op->dilation_h;
                    const float *xrow;
                    if (ih < 0 || ih >= x.h) continue;
                    xrow = (const float *)(const void *)tigris_view_row(&x, n, (int32_t)ih);
                    if (xrow == NULL) return TIGRIS_KERNEL_ERR_BAND;
                    for (kw = 0; kw < op->kernel_w; kw++) {
                        int64_t iw = first_tap(ow, op->stride_w, op->pad_left) + (int64_t)kw * op->dilation_w;
                        const float *xp;
                        if (iw < 0 || iw >= x.w) continue;
                        xp = xrow + (size_t)iw * (size_t)x.c;
                        for (ch = 0; ch < y.c; ch++) acc[ch] += p == 1 ? fabsf(xp[ch]) : xp[ch] * xp[ch];
                    }
                }
                if (p == 2)
                    for (ch = 0; ch < y.c; ch++) acc[ch] = sqrtf(acc[ch]);
            }
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
    case EXT_OP_LP_POOL: return lp_pool(plan, op, mem);
    default: return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    }
}
