/* kernels_i8.h - the int8 (and uint8) reference kernels (not public API).
 *
 * tigris_ref_kernel (kernel_dispatch.c) hands an op to tigris_i8_kernel_for(op_type) when the
 * op is QUANTIZE or DEQUANTIZE or any operand or result is I8/U8. The kernels compute
 * onnxruntime's QDQ meaning (tigris_dialects/quant/arith.py, docs/int8.md), bit for bit the
 * Python interpreter's (tigris_dialects/interpreter/tgr_int8.py): exact int32 accumulation then
 * the op's float32 requantization scales for dense ops; dequantize, the float32 op, quantize
 * (i8_math.h) for element-wise arithmetic, means, softmax and values moved between different
 * parameters, reading each tensor's scale and zero point from its quant params; lookup tables
 * for activations. docs/tgrs-format.md lists the op fields each kernel reads.
 *
 * Every kernel is band-aware: it computes the resident rows of its output and returns
 * TIGRIS_KERNEL_ERR_BAND if an in-image input row it needs is not resident (rows outside the
 * image are padding). Conv, depthwise, conv1d and the max / average pools also compute 2-D
 * tiles (a window of columns, kernels_fast.h), and so do the element-wise kernels (binary,
 * table, quantize, dequantize: tigris_k_nd_of_window); every other kernel refuses a window
 * (tigris_view_of, tigris_k_nd_of). Parameters are validated before the output is written.
 *
 * Names: tigris_i8_* have external linkage; i8_* (in the .c files) are file-local.
 */
#ifndef TIGRIS_KERNELS_I8_H
#define TIGRIS_KERNELS_I8_H

#include <stdint.h>

#include "i8_math.h"
#include "kernels_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The int8 kernel of an op type, NULL if there is none (BATCH_NORM, INST_NORM). */
tigris_kernel_fn tigris_i8_kernel_for(uint8_t op_type);

/* -- shared by the kernels_i8_*.c files ------------------------------------------------------ */

/* How the bytes of an 8-bit tensor hold integers (i8_math.h: tigris_i8_value). */
typedef struct {
    uint8_t flip;  /* 0x80 int8, 0 uint8 */
    int32_t bias;  /* 128 int8, 0 uint8 */
    int32_t qmin;  /* storage range */
    int32_t qmax;
} tigris_i8_storage_t;

/* The op's requantization scales (binary32 bits in the quant data), each checked to be a
 * positive finite float; read one with tigris_i8_f32(bits[i]). */
typedef struct {
    const int32_t *bits;
    uint32_t count;
} tigris_i8_scales_t;

/* A per-tensor quantized 8-bit tensor: its storage, scale and zero point. */
typedef struct {
    tigris_i8_storage_t s;
    float scale;
    int32_t zp;
} tigris_i8_q_t;

/* Storage of an I8/U8 dtype; TIGRIS_KERNEL_ERR_UNSUPPORTED for any other dtype. */
int tigris_i8_storage(uint8_t dtype, tigris_i8_storage_t *out);

/* The op's scales; TIGRIS_KERNEL_ERR_PARAMS unless there are exactly `count` of them inside the
 * quant data and all are positive and finite. */
int tigris_i8_scales(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t count, tigris_i8_scales_t *out);

/* Storage, scale and zero point of an I8/U8 tensor with per-tensor quant params (scale positive
 * and finite, zero point in the storage range); ERR_UNSUPPORTED for another dtype, ERR_PARAMS
 * without per-tensor params. */
int tigris_i8_tensor_q(const tigris_plan_t *plan, uint16_t tensor_idx, tigris_i8_q_t *out);

/* The stored byte of a tensor as a float: dequantize. */
static inline float tigris_i8_dequantize_q(const tigris_i8_q_t *q, uint8_t byte) {
    return tigris_i8_dequantize_value(tigris_i8_value(byte, q->s.flip, q->s.bias), q->zp, q->scale);
}

/* A float as a tensor's stored byte: quantize (to the storage range). */
static inline uint8_t tigris_i8_quantize_q(const tigris_i8_q_t *q, float y) {
    return tigris_i8_byte(tigris_i8_quantize_value(y, q->scale, q->zp, q->s.qmin, q->s.qmax));
}

/* How values move from an operand tensor to a result: a copy when both hold values the same way
 * (storage, scale and zero point; quantize(dequantize(v)) is then v), else quantize(dequantize(v)). */
typedef struct {
    int requant;
    tigris_i8_q_t in, out;
} tigris_i8_move_t;

int tigris_i8_move_setup(const tigris_plan_t *plan, uint16_t in, uint16_t out, tigris_i8_move_t *mv);

/* A stored byte of the operand as the result's stored byte. */
static inline uint8_t tigris_i8_move_byte(const tigris_i8_move_t *mv, uint8_t byte) {
    return mv->requant ? tigris_i8_quantize_q(&mv->out, tigris_i8_dequantize_q(&mv->in, byte)) : byte;
}

/* TIGRIS_KERNEL_ERR_PARAMS unless zero_point lies in the storage range (which keeps every
 * value - zero_point within [-255, 255]). */
int tigris_i8_check_zp(const tigris_i8_storage_t *s, int32_t zero_point);

/* The clamp [act_min, act_max] of a dense op, checked against the output storage. */
int tigris_i8_act_range(const tigris_op_t *op, const tigris_i8_storage_t *out, int32_t *lo, int32_t *hi);

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
int tigris_i8_softmax(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
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
/* kernels_move.c: slice, gather, tile of 8-bit values (requantized when the parameters differ) */
int tigris_i8_slice(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx);
int tigris_i8_gather(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx);
int tigris_i8_tile(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_I8_H */
