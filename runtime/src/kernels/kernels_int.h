/* kernels_int.h - kernels of ops computed on int32 / int64 tensors (not public API). */
#ifndef TIGRIS_KERNELS_INT_H
#define TIGRIS_KERNELS_INT_H

#include <stdint.h>

#include "kernels_internal.h"

/* The integer kernel of an op type, NULL if there is none. */
tigris_kernel_fn tigris_int_kernel_for(uint8_t op_type);

/* ADD, SUB, MUL, DIV, MAX, MIN on int32 or int64 operands of one dtype, broadcast. */
int tigris_int_binary(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);

#endif
