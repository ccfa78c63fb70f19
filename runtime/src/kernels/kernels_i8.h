/* kernels_i8.h - the int8 (and uint8) reference kernels (not public API).
 *
 * tigris_ref_kernel (kernel_dispatch.c) hands an op to tigris_i8_kernel_for(op_type) when the
 * op is QUANTIZE or DEQUANTIZE or any operand or result is I8/U8. The kernels follow the
 * Python interpreter's int8 semantics (tigris_dialects/interpreter/tgr_int8.py, TFLite's
 * integer-only reference) bit for bit: int32 accumulation, the op's multiplier/shift pairs
 * (i8_math.h), lookup tables for activations; no float except QUANTIZE (float in) and
 * DEQUANTIZE (float out). docs/tgrs-format.md lists the op fields each kernel reads.
 *
 * Every kernel is band-aware: it computes the resident rows of its output and returns
 * TIGRIS_KERNEL_ERR_BAND if an in-image input row it needs is not resident (rows outside the
 * image are padding). Parameters are validated before the output is written.
 *
 * Names: tigris_i8_* have external linkage; i8_* (in the .c files) are file-local.
 */
#ifndef TIGRIS_KERNELS_I8_H
#define TIGRIS_KERNELS_I8_H

#include <stdint.h>

#include "kernels_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The int8 kernel of an op type, NULL if there is none (e.g. SOFTMAX, DIV, BATCH_NORM). */
tigris_kernel_fn tigris_i8_kernel_for(uint8_t op_type);

/* -- shared by the kernels_i8_*.c files ------------------------------------------------------ */

/* How the bytes of an 8-bit tensor hold integers (i8_math.h: tigris_i8_value). */
typedef struct {
    uint8_t flip;  /* 0x80 int8, 0 uint8 */
    int32_t bias;  /* 128 int8, 0 uint8 */
    int32_t qmin;  /* storage range */
    int32_t qmax;
} tigris_i8_storage_t;

/* The op's multiplier/shift pairs, validated (multipliers >= 0, shifts in [-31, 31]). */
typedef struct {
    const int32_t *mult;
    const int32_t *shift;
    uint32_t count;
} tigris_i8_mults_t;

/* Storage of an I8/U8 dtype; TIGRIS_KERNEL_ERR_UNSUPPORTED for any other dtype. */
int tigris_i8_storage(uint8_t dtype, tigris_i8_storage_t *out);

/* The op's pairs; TIGRIS_KERNEL_ERR_PARAMS unless there are `count` of them (any number when
 * count is TIGRIS_I8_ANY) inside the quant data and all valid. */
#define TIGRIS_I8_ANY 0xFFFFFFFFu
int tigris_i8_mults(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t count, tigris_i8_mults_t *out);

/* TIGRIS_KERNEL_ERR_PARAMS unless zero_point lies in the storage range (which keeps every
 * value - zero_point within [-255, 255]). */
int tigris_i8_check_zp(const tigris_i8_storage_t *s, int32_t zero_point);

/* The clamp [act_min, act_max] of a requantizing op, checked against the output storage. */
int tigris_i8_act_range(const tigris_op_t *op, const tigris_i8_storage_t *out, int32_t *lo, int32_t *hi);

/* Per-tensor zero point of a tensor (0 without quant params); ERR_PARAMS if per-axis. */
int tigris_i8_tensor_zp(const tigris_plan_t *plan, uint16_t tensor_idx, int32_t *zp);

/* Zero points of a weight along `axis` of its recorded shape: *per_channel points at
 * `channels` values (per-axis parameters), or is NULL and *scalar holds the per-tensor one. */
int tigris_i8_channel_zps(const tigris_plan_t *plan, uint16_t tensor_idx, int32_t axis, int32_t channels,
                          const int32_t **per_channel, int32_t *scalar);

/* The kernels (tigris_kernel_fn). */
int tigris_i8_conv(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx);
int tigris_i8_conv_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                             tigris_mem_t *mem, void *user_ctx);
int tigris_i8_fully_conn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx);
int tigris_i8_matmul(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_i8_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx);
int tigris_i8_global_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx);
int tigris_i8_reduce_mean(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx);
int tigris_i8_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_i8_table(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx);
int tigris_i8_quantize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx);
int tigris_i8_dequantize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx);
int tigris_i8_concat(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_i8_pad(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                  void *user_ctx);
int tigris_i8_resize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_i8_copy(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx);
int tigris_i8_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                        void *user_ctx);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_I8_H */
