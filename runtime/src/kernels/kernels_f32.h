/* kernels_f32.h - the float32 reference kernels (not public API).
 *
 * Every kernel is a tigris_kernel_fn for one op type (or a family sharing one body), reads
 * its operands in operand order (docs/tgrs-format.md, "Op parameters by op type"), and
 * computes only the resident rows of its output view (tiled stages), returning
 * TIGRIS_KERNEL_ERR_BAND if a row it needs inside the image is not resident. Conv, depthwise,
 * conv1d and the max / average pools also compute 2-D tiles (a window of columns, see
 * kernels_fast.h); every other kernel refuses a window (tigris_view_of). */
#ifndef TIGRIS_KERNELS_F32_H
#define TIGRIS_KERNELS_F32_H

#include <stdint.h>

#include "kernels_internal.h"

/* The float kernel of an op type, NULL if there is none. */
tigris_kernel_fn tigris_f32_kernel_for(uint8_t op_type);

/* kernels_f32_window.c */
int tigris_f32_conv(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx);
int tigris_f32_depthwise(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx);
int tigris_f32_conv_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                              tigris_mem_t *mem, void *user_ctx);
int tigris_f32_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx);
int tigris_f32_global_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                           void *user_ctx);

/* kernels_f32_dense.c */
int tigris_f32_fully_conn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx);
int tigris_f32_matmul(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);

/* kernels_f32_elementwise.c */
int tigris_f32_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);
int tigris_f32_unary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_f32_softmax(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx);
int tigris_f32_batch_norm(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx);
int tigris_f32_inst_norm(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx);

/* kernels_f32_math.c: one value of an element-wise math op (NEG..SILU), for tigris_f32_unary */
float tigris_f32_math_unary(const tigris_op_t *op, float x);

/* kernels_f32_shape.c */
int tigris_f32_concat(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);
int tigris_f32_pad(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx);
int tigris_f32_resize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);
int tigris_f32_copy(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx);
int tigris_f32_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx);

/* kernels_move.c: slice, gather, tile (elements of any size) */
int tigris_f32_slice(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_f32_gather(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);
int tigris_f32_tile(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx);

/* kernels_f32_reduce.c (reduce: mean, sum, max, min by op type) */
int tigris_f32_reduce(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);
int tigris_f32_lrn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx);
int tigris_f32_layer_norm(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx);

/* The fused activation of conv, depthwise, conv1d, fully_conn (and binary ops if set). */
static inline float tk_activate(float v, uint8_t activation) {
    if (activation == TIGRIS_ACT_RELU) return v < 0.0f ? 0.0f : v;
    if (activation == TIGRIS_ACT_RELU6) return v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
    return v;
}

/* A float32 operand as a tk_nd_t (TIGRIS_KERNEL_ERR_UNSUPPORTED for another dtype). */
static inline int tk_f32_nd(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tk_nd_t *out) {
    int err = tigris_k_nd_of(plan, mem, tensor_idx, out);
    if (err != TIGRIS_KERNEL_OK) return err;
    return out->dtype == TIGRIS_DTYPE_F32 ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_UNSUPPORTED;
}

/* Input tx and output ty of an op that needs both whole (softmax, reductions, normalizations):
 * float32 tk_nd_t views with every row resident (TIGRIS_KERNEL_ERR_PARAMS for a missing index). */
static inline int tk_f32_whole_pair(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tx, uint16_t ty,
                                    tk_nd_t *x, tk_nd_t *y) {
    int err;
    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_nd(plan, mem, tx, x);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_nd(plan, mem, ty, y);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(x);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(y);
    return err;
}

/* err, or TIGRIS_KERNEL_ERR_UNSUPPORTED if the view it filled is not float32. */
static inline int tk_f32_only(int err, const tigris_view_t *v) {
    if (err != TIGRIS_KERNEL_OK) return err;
    return v->dtype == TIGRIS_DTYPE_F32 ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_UNSUPPORTED;
}

/* A float32 operand as a tigris_view_t of whole rows (a 2-D tile's window: ERR_BAND). */
static inline int tk_f32_view(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx,
                              tigris_view_t *out) {
    return tk_f32_only(tigris_view_of(plan, mem, tensor_idx, out), out);
}

/* tk_f32_view for the kernels that compute 2-D tiles (kernels_fast.h): a window is accepted. */
static inline int tk_f32_window_view(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx,
                                     tigris_view_t *out) {
    return tk_f32_only(tigris_view_of_window(plan, mem, tensor_idx, out), out);
}

/* Row `row` of batch item n of a float view, NULL if not resident. */
static inline float *tk_f32_row(const tigris_view_t *v, int32_t n, int32_t row) {
    return (float *)(void *)tigris_view_row(v, n, row);
}

#endif /* TIGRIS_KERNELS_F32_H */
