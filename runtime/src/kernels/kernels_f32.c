/* kernels_f32.c - the float kernel of each op type. */
#include "kernels_f32.h"

tigris_kernel_fn tigris_f32_kernel_for(uint8_t op_type) {
    switch (op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_CONV1D: return tigris_f32_conv;
    case TIGRIS_OP_DEPTHWISE: return tigris_f32_depthwise;
    case TIGRIS_OP_CONV_TRANSPOSE: return tigris_f32_conv_transpose;
    case TIGRIS_OP_MAX_POOL:
    case TIGRIS_OP_AVG_POOL: return tigris_f32_pool;
    case TIGRIS_OP_GLOBAL_AVG:
    case TIGRIS_OP_GLOBAL_MAX: return tigris_f32_global_pool;
    case TIGRIS_OP_FULLY_CONN: return tigris_f32_fully_conn;
    case TIGRIS_OP_MATMUL: return tigris_f32_matmul;
    case TIGRIS_OP_ADD:
    case TIGRIS_OP_SUB:
    case TIGRIS_OP_MUL:
    case TIGRIS_OP_DIV:
    case TIGRIS_OP_MAX:
    case TIGRIS_OP_MIN:
    case TIGRIS_OP_POW_TENSOR:
    case TIGRIS_OP_PRELU: return tigris_f32_binary;
    case TIGRIS_OP_RELU:
    case TIGRIS_OP_RELU6:
    case TIGRIS_OP_CLIP:
    case TIGRIS_OP_LEAKY_RELU:
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH:
    TK_CASES_UNARY_MATH: return tigris_f32_unary;
    case TIGRIS_OP_SOFTMAX:
    case TIGRIS_OP_LOG_SOFTMAX: return tigris_f32_softmax;
    case TIGRIS_OP_BATCH_NORM: return tigris_f32_batch_norm;
    case TIGRIS_OP_INST_NORM: return tigris_f32_inst_norm;
    case TIGRIS_OP_CONCAT: return tigris_f32_concat;
    case TIGRIS_OP_PAD: return tigris_f32_pad;
    case TIGRIS_OP_RESIZE: return tigris_f32_resize;
    case TIGRIS_OP_RESHAPE:
    case TIGRIS_OP_FLATTEN:
    case TIGRIS_OP_SQUEEZE:
    case TIGRIS_OP_UNSQUEEZE: return tigris_f32_copy;
    case TIGRIS_OP_TRANSPOSE: return tigris_f32_transpose;
    case TIGRIS_OP_SLICE: return tigris_f32_slice;
    case TIGRIS_OP_GATHER: return tigris_f32_gather;
    case TIGRIS_OP_TILE: return tigris_f32_tile;
    case TIGRIS_OP_REDUCE_MEAN:
    case TIGRIS_OP_REDUCE_SUM:
    case TIGRIS_OP_REDUCE_MAX:
    case TIGRIS_OP_REDUCE_MIN: return tigris_f32_reduce;
    case TIGRIS_OP_LRN: return tigris_f32_lrn;
    case TIGRIS_OP_LAYER_NORM: return tigris_f32_layer_norm;
    default: return NULL;
    }
}
