/* tigris.h - the TiGrIS runtime: plan handle, loader errors, limits, inline accessors.
 *
 * Public API of spec/c-api.md (this header, tigris_loader.h, tigris_mem.h,
 * tigris_executor.h) plus tigris_kernels.h (the reference kernels). C99, no heap,
 * no mutable globals: two plans can run in two threads with their own tigris_mem_t.
 * The wire records are in tigris_format.h, generated from the compiler's Python
 * definition; docs/tgrs-format.md describes every field.
 */
#ifndef TIGRIS_H
#define TIGRIS_H

#include <stddef.h>
#include <stdint.h>

#include "tigris_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tensor alignment in the fast arena and the slow buffer (memory-model.md). */
#ifndef TIGRIS_TENSOR_ALIGN
#if defined(__XTENSA__)
#define TIGRIS_TENSOR_ALIGN 8
#elif defined(__aarch64__)
#define TIGRIS_TENSOR_ALIGN 16
#elif defined(__x86_64__) || defined(_M_X64)
#define TIGRIS_TENSOR_ALIGN 32
#elif defined(__arm__) || defined(_M_ARM)
#define TIGRIS_TENSOR_ALIGN 4
#else
#define TIGRIS_TENSOR_ALIGN 8
#endif
#endif

/* Compiled executor limits; a plan beyond them is refused by the loader with
 * TIGRIS_ERR_PLAN_LIMITS. They size fixed tables inside tigris_mem_t. */
#ifndef TIGRIS_MAX_FAST_ALLOCS
#define TIGRIS_MAX_FAST_ALLOCS 64 /* tensors live in the fast arena at once */
#endif
#ifndef TIGRIS_MAX_SLOW_ALLOCS
#define TIGRIS_MAX_SLOW_ALLOCS 64 /* tensors held in the slow buffer at once */
#endif
#ifndef TIGRIS_MAX_BANDS
#define TIGRIS_MAX_BANDS 64 /* activation tensors touched by one tiled stage or chain */
#endif

/* Op types TIGRIS_OP_CUSTOM_FIRST..LAST (tigris_format.h, generated from the compiler's
 * definition) are free for extension ops: the loader accepts them, the reference kernels
 * reject them, a user kernel callback implements them. */

typedef enum {
    TIGRIS_OK = 0,
    TIGRIS_ERR_NULL = -1,         /* null pointer argument */
    TIGRIS_ERR_TOO_SMALL = -2,    /* buffer smaller than the header */
    TIGRIS_ERR_BAD_MAGIC = -3,    /* magic is not "TGRS" */
    TIGRIS_ERR_BAD_VERSION = -4,  /* major != ours, or minor newer than ours */
    TIGRIS_ERR_BAD_SIZE = -5,     /* header file_size != buf_len, or header_size wrong */
    TIGRIS_ERR_BAD_SECTION = -6,  /* section offset/size/count out of bounds or inconsistent */
    TIGRIS_ERR_MISSING_SEC = -7,  /* a required section is absent */
    TIGRIS_ERR_ENDIAN = -8,       /* platform is not little-endian */
    TIGRIS_ERR_PLAN_LIMITS = -9,  /* plan exceeds the compiled limits above */
    TIGRIS_ERR_BAD_CRC = -10,     /* CRC-32 of the bytes after the header does not match */
    TIGRIS_ERR_BAD_RECORD = -11,  /* a record field is out of range (docs/tgrs-format.md) */
    TIGRIS_ERR_BAD_ALIGN = -12    /* buffer not 4-byte aligned (records are read in place) */
} tigris_error_t;

/* Parsed plan. Every pointer points into the caller's buffer (zero copy). */
typedef struct {
    const tigris_file_header_t *header;
    const tigris_tensor_t *tensors;   /* [num_tensors] */
    const tigris_op_t *ops;           /* [num_ops] */
    const tigris_stage_t *stages;     /* [num_stages] */
    const tigris_tile_plan_t *tile_plans; /* [num_tile_plans] */
    const uint16_t *index_pool;
    const int32_t *shape_pool;
    const char *strings;
    const tigris_weight_entry_t *weight_entries; /* [num_weights] or NULL */
    const uint8_t *weight_blob;       /* contiguous weight data, or NULL */

    /* Compressed weight blocks (optional) */
    const tigris_weight_block_t *weight_blocks;
    const uint8_t *weight_blocks_data;
    uint16_t num_weight_blocks;
    uint16_t weight_compression;      /* tigris_compression_t */

    /* Quantization (optional) */
    const tigris_quant_param_t *quant_params;
    const int32_t *quant_data;
    uint16_t num_quant_params;

    /* Convenience: model I/O */
    const uint16_t *model_inputs;     /* [num_model_inputs] */
    const uint16_t *model_outputs;    /* [num_model_outputs] */

    /* Additions to spec/c-api.md */
    const int8_t *tables;             /* [num_tables][TIGRIS_TABLE_SIZE] or NULL */
    uint16_t num_model_inputs;
    uint16_t num_model_outputs;
    uint32_t index_pool_len;          /* elements, for bounds checks by kernels and tools */
    uint32_t shape_pool_len;
    uint32_t quant_data_len;
} tigris_plan_t;

/* Bytes of one element of a tigris_dtype_t, 0 if unknown. */
static inline uint32_t tigris_dtype_size(uint8_t dtype) {
    switch (dtype) {
    case TIGRIS_DTYPE_F32: case TIGRIS_DTYPE_I32: return 4;
    case TIGRIS_DTYPE_F16: case TIGRIS_DTYPE_I16: return 2;
    case TIGRIS_DTYPE_I8: case TIGRIS_DTYPE_U8: case TIGRIS_DTYPE_BOOL: return 1;
    case TIGRIS_DTYPE_I64: return 8;
    default: return 0;
    }
}

static inline const char *tigris_tensor_name(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    return plan->strings + t->name;
}

/* The recorded (model, NCHW-order) shape: t->ndim entries. */
static inline const int32_t *tigris_tensor_shape(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    return plan->shape_pool + t->shape;
}

static inline const char *tigris_op_name(const tigris_plan_t *plan, const tigris_op_t *op) {
    return plan->strings + op->name;
}

static inline const uint16_t *tigris_op_inputs(const tigris_plan_t *plan, const tigris_op_t *op) {
    return plan->index_pool + op->inputs;
}

static inline const uint16_t *tigris_op_outputs(const tigris_plan_t *plan, const tigris_op_t *op) {
    return plan->index_pool + op->outputs;
}

/* op->num_params int32 entries (perm, pads, scales, axes, ... by op type). */
static inline const int32_t *tigris_op_params(const tigris_plan_t *plan, const tigris_op_t *op) {
    return plan->shape_pool + op->params;
}

/* op->num_scales float32 requantization scales of an int8 dense op, as their binary32 bits
 * (the quant data pool holds int32 words; memcpy one into a float to read it). */
static inline const int32_t *tigris_op_scale_bits(const tigris_plan_t *plan, const tigris_op_t *op) {
    return plan->quant_data + op->scales;
}

/* The 256-entry lookup table of a quantized activation, or NULL. */
static inline const int8_t *tigris_op_table(const tigris_plan_t *plan, const tigris_op_t *op) {
    if (op->table == TIGRIS_NONE16 || plan->tables == NULL) return NULL;
    return plan->tables + (size_t)op->table * TIGRIS_TABLE_SIZE;
}

/* Where a constant tensor's bytes are when they can be read in place (the blob or
 * a raw block); NULL for a non-constant or a weight inside an LZ4 block, which
 * only exists in the arena (use mem->tensor_ptrs, set by the executor). */
static inline const void *tigris_tensor_weight(const tigris_plan_t *plan, uint16_t tensor_idx) {
    const tigris_tensor_t *t = &plan->tensors[tensor_idx];
    const tigris_weight_entry_t *e;
    if (t->weight == TIGRIS_NONE16 || plan->weight_entries == NULL) return NULL;
    e = &plan->weight_entries[t->weight];
    if (e->block == TIGRIS_NONE16) return plan->weight_blob + e->offset;
    if (plan->weight_compression != TIGRIS_COMPRESSION_NONE) return NULL;
    return plan->weight_blocks_data + plan->weight_blocks[e->block].offset + e->offset;
}

static inline const void *tigris_op_weight(const tigris_plan_t *plan, const tigris_op_t *op) {
    return op->weight == TIGRIS_NONE16 ? NULL : tigris_tensor_weight(plan, op->weight);
}

static inline const void *tigris_op_bias(const tigris_plan_t *plan, const tigris_op_t *op) {
    return op->bias == TIGRIS_NONE16 ? NULL : tigris_tensor_weight(plan, op->bias);
}

static inline const tigris_quant_param_t *tigris_tensor_quant(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    return (t->quant == TIGRIS_NONE16 || plan->quant_params == NULL) ? NULL : &plan->quant_params[t->quant];
}

static inline const uint16_t *tigris_stage_ops(const tigris_plan_t *plan, const tigris_stage_t *stage) {
    return plan->index_pool + stage->ops;
}

static inline const uint16_t *tigris_stage_inputs(const tigris_plan_t *plan, const tigris_stage_t *stage) {
    return plan->index_pool + stage->inputs;
}

static inline const uint16_t *tigris_stage_outputs(const tigris_plan_t *plan, const tigris_stage_t *stage) {
    return plan->index_pool + stage->outputs;
}

static inline const tigris_tile_plan_t *tigris_stage_tile_plan(const tigris_plan_t *plan, const tigris_stage_t *stage) {
    return stage->tile_plan == TIGRIS_NONE16 ? NULL : &plan->tile_plans[stage->tile_plan];
}

static inline const char *tigris_model_name(const tigris_plan_t *plan) {
    return plan->strings + plan->header->name;
}

/* Extra fast-arena bytes the plan needs for LZ4 decompression (header fast_reserved). */
static inline uint32_t tigris_weight_decompression_overhead(const tigris_plan_t *plan) {
    return plan->header->fast_reserved;
}

/* Activation geometry. A rank >= 3 tensor of recorded shape [N, C, d1, ..., dk] is
 * stored channels-last [N, d1, ..., dk, C]; its rows are along d1 (H; L for conv1d).
 * Rank <= 2 tensors have one row (they are never banded). */
static inline int32_t tigris_tensor_rows(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    return t->ndim >= 3 ? tigris_tensor_shape(plan, t)[2] : 1;
}

/* Bytes of one row of one batch item (W * C * elem for NHWC). */
static inline uint32_t tigris_tensor_row_bytes(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    const int32_t *s = tigris_tensor_shape(plan, t);
    if (t->ndim < 3) return t->size;
    if (s[0] <= 0 || s[2] <= 0) return 0;
    return t->size / (uint32_t)s[0] / (uint32_t)s[2];
}

/* Whether consecutive bands of the op's output read overlapping rows of its inputs: a window
 * along H whose effective kernel ((kernel_h - 1) * dilation_h + 1, a kernel of 0 counting as 1)
 * is larger than its stride, a global window, or a row map (pad, resize). The inputs such an
 * op reads are the ones a row-cache group keeps in slots (docs/tgrs-format.md, "Row caches";
 * transforms/plan/row_cache.py reads_overlapping). */
static inline int tigris_op_reads_overlapping_rows(const tigris_op_t *op) {
    uint32_t eff;
    switch (op->geometry_h) {
    case TIGRIS_GEOM_WINDOW:
        eff = ((uint32_t)(op->kernel_h > 0 ? op->kernel_h : 1) - 1u) * (uint32_t)op->dilation_h + 1u;
        return eff > (uint32_t)op->stride_h;
    case TIGRIS_GEOM_GLOBAL: case TIGRIS_GEOM_PAD: case TIGRIS_GEOM_RESIZE:
        return 1;
    default:
        return 0;
    }
}

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_H */
