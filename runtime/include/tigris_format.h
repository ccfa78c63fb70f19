/* tigris_format.h - the .tgrs execution-plan format: wire records and enums.
 *
 * GENERATED from tigris.emit.tgrs (enums.py, records.py) by
 *     python -m tigris.emit.tgrs.cheader runtime/include/tigris_format.h
 * Do not edit; docs/tgrs-format.md explains every field and the loader's checks.
 *
 * Little-endian. Every struct uses C's natural alignment with explicit reserved
 * fields, so its in-memory layout is the file layout: no pragma, no hidden padding.
 * Enum-typed fields are stored in the integer width given in the struct.
 */
#ifndef TIGRIS_FORMAT_H
#define TIGRIS_FORMAT_H

#include <stdint.h>

/* Compile-time layout check (C99 has no _Static_assert): a negative array size fails. */
#define TIGRIS_FORMAT_CHECK_SIZE(type, size) \
    typedef char type##_size_check[(sizeof(type) == (size)) ? 1 : -1]

#define TIGRIS_FORMAT_MAGIC "TGRS"
#define TIGRIS_FORMAT_VERSION_MAJOR 2
#define TIGRIS_FORMAT_VERSION_MINOR 6
#define TIGRIS_FORMAT_VERSION_MINOR_OLDEST 4
#define TIGRIS_SECTION_ALIGN 16
#define TIGRIS_WEIGHT_ALIGN 16
#define TIGRIS_TABLE_SIZE 256
#define TIGRIS_MAX_RANK 8
#define TIGRIS_NONE16 0xFFFFu
#define TIGRIS_NONE32 0xFFFFFFFFu
#define TIGRIS_OP_CUSTOM_FIRST 128
#define TIGRIS_OP_CUSTOM_LAST 254

/* `tigris_op_type_t` of spec/c-api.md (1..32, 255) plus our 33..35. */
typedef enum {
    TIGRIS_OP_CONV           = 1,
    TIGRIS_OP_DEPTHWISE      = 2,
    TIGRIS_OP_RELU           = 3,
    TIGRIS_OP_RELU6          = 4,
    TIGRIS_OP_MAX_POOL       = 5,
    TIGRIS_OP_AVG_POOL       = 6,
    TIGRIS_OP_ADD            = 7,
    TIGRIS_OP_MUL            = 8,
    TIGRIS_OP_FULLY_CONN     = 9,
    TIGRIS_OP_SOFTMAX        = 10,
    TIGRIS_OP_CLIP           = 11,
    TIGRIS_OP_SIGMOID        = 12,
    TIGRIS_OP_CONCAT         = 13,
    TIGRIS_OP_PAD            = 14,
    TIGRIS_OP_GLOBAL_AVG     = 15,
    TIGRIS_OP_FLATTEN        = 16,
    TIGRIS_OP_RESHAPE        = 17,
    TIGRIS_OP_SUB            = 18,
    TIGRIS_OP_DIV            = 19,
    TIGRIS_OP_TANH           = 20,
    TIGRIS_OP_LEAKY_RELU     = 21,
    TIGRIS_OP_BATCH_NORM     = 22,
    TIGRIS_OP_INST_NORM      = 23,
    TIGRIS_OP_CONV_TRANSPOSE = 24,
    TIGRIS_OP_MATMUL         = 25,
    TIGRIS_OP_REDUCE_MEAN    = 26,
    TIGRIS_OP_SQUEEZE        = 27,
    TIGRIS_OP_UNSQUEEZE      = 28,
    TIGRIS_OP_TRANSPOSE      = 29,
    TIGRIS_OP_RESIZE         = 30,
    TIGRIS_OP_GLOBAL_MAX     = 31,
    TIGRIS_OP_CONV1D         = 32,
    TIGRIS_OP_HARD_SWISH     = 33,
    TIGRIS_OP_QUANTIZE       = 34,
    TIGRIS_OP_DEQUANTIZE     = 35,
    TIGRIS_OP_NEG            = 36,
    TIGRIS_OP_ABS            = 37,
    TIGRIS_OP_EXP            = 38,
    TIGRIS_OP_LOG            = 39,
    TIGRIS_OP_SQRT           = 40,
    TIGRIS_OP_RECIPROCAL     = 41,
    TIGRIS_OP_ELU            = 42,
    TIGRIS_OP_SELU           = 43,
    TIGRIS_OP_SOFTPLUS       = 44,
    TIGRIS_OP_SOFTSIGN       = 45,
    TIGRIS_OP_ERF            = 46,
    TIGRIS_OP_GELU           = 47,
    TIGRIS_OP_HARD_SIGMOID   = 48,
    TIGRIS_OP_SIGN           = 49,
    TIGRIS_OP_SHRINK         = 50,
    TIGRIS_OP_POW            = 51,
    TIGRIS_OP_SILU           = 52,
    TIGRIS_OP_SLICE          = 60,
    TIGRIS_OP_GATHER         = 61,
    TIGRIS_OP_TILE           = 62,
    TIGRIS_OP_PRELU          = 70,
    TIGRIS_OP_MAX            = 71,
    TIGRIS_OP_MIN            = 72,
    TIGRIS_OP_POW_TENSOR     = 73,
    TIGRIS_OP_REDUCE_SUM     = 80,
    TIGRIS_OP_REDUCE_MAX     = 81,
    TIGRIS_OP_REDUCE_MIN     = 82,
    TIGRIS_OP_LOG_SOFTMAX    = 83,
    TIGRIS_OP_LRN            = 84,
    TIGRIS_OP_LAYER_NORM     = 85,
    TIGRIS_OP_UNKNOWN        = 255,
} tigris_op_type_t;

/* Which input indices a band of an op's output reads along one axis (op geometry_h / geometry_w). */
typedef enum {
    TIGRIS_GEOM_NONE   = 0,
    TIGRIS_GEOM_SAME   = 1,
    TIGRIS_GEOM_WINDOW = 2,
    TIGRIS_GEOM_GLOBAL = 3,
    TIGRIS_GEOM_PAD    = 4,
    TIGRIS_GEOM_RESIZE = 5,
} tigris_band_geometry_t;

/* Element type of a tensor (`uint8_t dtype` in `tigris_tensor_t`). */
typedef enum {
    TIGRIS_DTYPE_F32  = 1,
    TIGRIS_DTYPE_F16  = 2,
    TIGRIS_DTYPE_I8   = 3,
    TIGRIS_DTYPE_U8   = 4,
    TIGRIS_DTYPE_I16  = 5,
    TIGRIS_DTYPE_I32  = 6,
    TIGRIS_DTYPE_I64  = 7,
    TIGRIS_DTYPE_BOOL = 8,
} tigris_dtype_t;

/* What a section holds; its element size fixes `size == count * element size`. */
typedef enum {
    TIGRIS_SECTION_TENSORS           = 1,
    TIGRIS_SECTION_OPS               = 2,
    TIGRIS_SECTION_STAGES            = 3,
    TIGRIS_SECTION_TILE_PLANS        = 4,
    TIGRIS_SECTION_WEIGHT_ENTRIES    = 5,
    TIGRIS_SECTION_WEIGHT_BLOCKS     = 6,
    TIGRIS_SECTION_QUANT_PARAMS      = 7,
    TIGRIS_SECTION_INDEX_POOL        = 8,
    TIGRIS_SECTION_SHAPE_POOL        = 9,
    TIGRIS_SECTION_STRINGS           = 10,
    TIGRIS_SECTION_QUANT_DATA        = 11,
    TIGRIS_SECTION_TABLES            = 12,
    TIGRIS_SECTION_WEIGHT_BLOB       = 13,
    TIGRIS_SECTION_WEIGHT_BLOCK_DATA = 14,
} tigris_section_kind_t;

/* `flags` of the file header. */
typedef enum {
    TIGRIS_FLAG_XIP       = 1,
    TIGRIS_FLAG_LZ4       = 2,
    TIGRIS_FLAG_QUANTIZED = 4,
} tigris_file_flag_t;

/* `tigris_plan_t.weight_compression`: the loader derives it from TIGRIS_FLAG_LZ4. */
typedef enum {
    TIGRIS_COMPRESSION_NONE = 0,
    TIGRIS_COMPRESSION_LZ4  = 1,
} tigris_compression_t;

/* `flags` of a tensor; the loader checks they agree with the model I/O lists and `weight`. */
typedef enum {
    TIGRIS_TENSOR_MODEL_INPUT  = 1,
    TIGRIS_TENSOR_MODEL_OUTPUT = 2,
    TIGRIS_TENSOR_CONSTANT     = 4,
} tigris_tensor_flag_t;

/* `flags` of a tile plan. */
typedef enum {
    TIGRIS_TILE_ROW_CACHE = 1,
} tigris_tile_flag_t;

/* `flags` of an op: the boolean ONNX attributes. */
typedef enum {
    TIGRIS_OPF_CEIL_MODE         = 1,
    TIGRIS_OPF_COUNT_INCLUDE_PAD = 2,
    TIGRIS_OPF_KEEPDIMS          = 4,
    TIGRIS_OPF_STORED_ORDER      = 8,
} tigris_op_flag_t;

/* Fused activation of conv, depthwise, conv1d, fully_conn. */
typedef enum {
    TIGRIS_ACT_NONE  = 0,
    TIGRIS_ACT_RELU  = 1,
    TIGRIS_ACT_RELU6 = 2,
} tigris_activation_t;

/* What the axes of a stored constant mean (the `weight_layout` names of `tgr` ops). */
typedef enum {
    TIGRIS_LAYOUT_PLAIN         = 0,
    TIGRIS_LAYOUT_CHANNELS_LAST = 1,
    TIGRIS_LAYOUT_OHWI          = 2,
    TIGRIS_LAYOUT_HWC           = 3,
    TIGRIS_LAYOUT_OKI           = 4,
    TIGRIS_LAYOUT_NK_HWC        = 5,
} tigris_weight_layout_t;

/* `mode` of a resize op. */
typedef enum {
    TIGRIS_RESIZE_NEAREST = 0,
    TIGRIS_RESIZE_LINEAR  = 1,
} tigris_resize_mode_t;

/* ONNX Resize coordinate_transformation_mode. */
typedef enum {
    TIGRIS_COORD_HALF_PIXEL         = 0,
    TIGRIS_COORD_ASYMMETRIC         = 1,
    TIGRIS_COORD_ALIGN_CORNERS      = 2,
    TIGRIS_COORD_PYTORCH_HALF_PIXEL = 3,
} tigris_coord_mode_t;

/* `mode` of a pad op. */
typedef enum {
    TIGRIS_PAD_CONSTANT = 0,
    TIGRIS_PAD_REFLECT  = 1,
    TIGRIS_PAD_EDGE     = 2,
} tigris_pad_mode_t;

/* `mode` of a gelu op: ONNX Gelu's `approximate`. */
typedef enum {
    TIGRIS_GELU_NONE = 0,
    TIGRIS_GELU_TANH = 1,
} tigris_gelu_mode_t;

/* File header at offset 0; the section table follows it. */
typedef struct {
    char     magic[4];          /* @0   "TGRS" */
    uint16_t version_major;     /* @4   TIGRIS_FORMAT_VERSION_MAJOR; a loader rejects any other */
    uint16_t version_minor;     /* @6   TIGRIS_FORMAT_VERSION_MINOR_OLDEST..TIGRIS_FORMAT_VERSION_MINOR of the loader */
    uint32_t header_size;       /* @8   sizeof(tigris_file_header_t) */
    uint32_t file_size;         /* @12  total bytes; == the buffer length */
    uint32_t crc32;             /* @16  CRC-32 (zlib) of bytes [header_size, file_size) */
    uint32_t flags;             /* @20  tigris_file_flag_t bits */
    uint32_t fast_reserved;     /* @24  LZ4: the largest weight block's raw_size, else 0 */
    uint32_t name;              /* @28  string pool offset of the model name */
    uint32_t model_inputs;      /* @32  index pool offset of num_model_inputs tensor indices */
    uint32_t model_outputs;     /* @36  index pool offset of num_model_outputs tensor indices */
    uint16_t num_sections;      /* @40  entries in the section table */
    uint16_t num_tensors;       /* @42  tigris_tensor_t records */
    uint16_t num_ops;           /* @44  tigris_op_t records */
    uint16_t num_stages;        /* @46  tigris_stage_t records */
    uint16_t num_tile_plans;    /* @48  tigris_tile_plan_t records */
    uint16_t num_weights;       /* @50  tigris_weight_entry_t records */
    uint16_t num_weight_blocks; /* @52  tigris_weight_block_t records */
    uint16_t num_quant_params;  /* @54  tigris_quant_param_t records */
    uint16_t num_tables;        /* @56  256-byte lookup tables */
    uint16_t num_model_inputs;  /* @58  model input tensors */
    uint16_t num_model_outputs; /* @60  model output tensors */
    uint16_t reserved;          /* @62  0 */
} tigris_file_header_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_file_header_t, 64);

/* One section table entry. */
typedef struct {
    uint16_t kind;     /* @0   tigris_section_kind_t */
    uint16_t reserved; /* @2   0 */
    uint32_t offset;   /* @4   from the file start; a multiple of TIGRIS_SECTION_ALIGN */
    uint32_t size;     /* @8   bytes (without alignment padding) == count * element size */
    uint32_t count;    /* @12  records or pool elements */
} tigris_section_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_section_t, 16);

/* A tensor: activation, model I/O or constant (weight). */
typedef struct {
    uint32_t name;   /* @0   string pool offset */
    uint32_t shape;  /* @4   shape pool index of ndim dims: model (NCHW) order; constants: as stored */
    uint32_t size;   /* @8   bytes = product(shape) * dtype size */
    uint32_t perm;   /* @12  model inputs/outputs: shape pool index of ndim entries, the user's layout; TIGRIS_NONE32: none */
    uint16_t quant;  /* @16  quant param index; TIGRIS_NONE16: none */
    uint16_t weight; /* @18  weight entry index (constants only); TIGRIS_NONE16: none */
    uint8_t  dtype;  /* @20  tigris_dtype_t */
    uint8_t  ndim;   /* @21  rank, <= TIGRIS_MAX_RANK */
    uint16_t flags;  /* @22  tigris_tensor_flag_t bits */
} tigris_tensor_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_tensor_t, 24);

/* One op; which parameters apply depends on op_type. */
typedef struct {
    uint32_t name;        /* @0   string pool offset */
    uint32_t inputs;      /* @4   index pool offset of num_inputs tensor indices */
    uint32_t outputs;     /* @8   index pool offset of num_outputs tensor indices */
    uint32_t params;      /* @12  shape pool index of num_params int32 (perm, pads, scales, axes...) */
    uint32_t scales;      /* @16  quant data index of num_scales float32 requantization scales (binary32 bits) */
    uint8_t  op_type;     /* @20  tigris_op_type_t */
    uint8_t  activation;  /* @21  tigris_activation_t (fused) */
    uint8_t  num_inputs;  /* @22  operands, constants included, operand order */
    uint8_t  num_outputs; /* @23  results */
    uint16_t weight;      /* @24  tensor index of the weight operand; TIGRIS_NONE16: none */
    uint16_t bias;        /* @26  tensor index of the bias operand; TIGRIS_NONE16: none */
    uint16_t table;       /* @28  int8 lookup table index; TIGRIS_NONE16: none */
    uint16_t num_params;  /* @30  int32 entries at params */
    uint16_t num_scales;  /* @32  int8 dense ops: one per output channel (matmul: per rhs column), else 0 */
    uint16_t flags;       /* @34  tigris_op_flag_t bits */
    uint16_t kernel_h;    /* @36  window height (conv1d: length) */
    uint16_t kernel_w;    /* @38  window width */
    uint16_t stride_h;    /* @40  stride along H */
    uint16_t stride_w;    /* @42  stride along W */
    uint16_t dilation_h;  /* @44  dilation along H */
    uint16_t dilation_w;  /* @46  dilation along W */
    uint16_t pad_top;     /* @48  implicit zero padding */
    uint16_t pad_left;    /* @50 */
    uint16_t pad_bottom;  /* @52 */
    uint16_t pad_right;   /* @54 */
    uint16_t group;       /* @56  conv groups; depthwise: depth multiplier */
    int16_t  axis;        /* @58  concat/softmax/flatten axis, runtime (channels-last) order */
    int16_t  act_min;     /* @60  int8 dense ops: output clamp after requantization (fused activation in) */
    int16_t  act_max;     /* @62 */
    uint8_t  mode;        /* @64  resize: tigris_resize_mode_t; pad: tigris_pad_mode_t; gelu: tigris_gelu_mode_t */
    uint8_t  coord_mode;  /* @65  resize: tigris_coord_mode_t */
    uint8_t  geometry_h;  /* @66  tigris_band_geometry_t: the input rows a band of output rows reads */
    uint8_t  geometry_w;  /* @67  tigris_band_geometry_t: the input columns a window of output columns reads */
    float    clip_min;    /* @68  clip: lower bound (-inf: none) */
    float    clip_max;    /* @72  clip: upper bound (+inf: none) */
    float    alpha;       /* @76  leaky_relu slope; elu/selu alpha, hard_sigmoid alpha, shrink lambd, pow exponent */
    float    beta;        /* @80  selu gamma, hard_sigmoid beta, shrink bias */
    float    epsilon;     /* @84  batch_norm / inst_norm epsilon */
    float    pad_value;   /* @88  pad: constant value (float models) */
    int32_t  input_zp;    /* @92  zero point of input 0 */
    int32_t  input2_zp;   /* @96  zero point of input 1 (binary ops) */
    int32_t  output_zp;   /* @100 zero point of output 0 */
    int32_t  pad_value_q; /* @104 pad: constant value, stored at the output's parameters (int8 models) */
} tigris_op_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_op_t, 108);

/* A temporal partition: the arena is reset around it. */
typedef struct {
    uint32_t ops;          /* @0   index pool offset of num_ops op indices, in execution order */
    uint32_t inputs;       /* @4   index pool offset: tensors reloaded from slow memory */
    uint32_t outputs;      /* @8   index pool offset: tensors spilled to slow memory */
    uint32_t peak;         /* @12  untiled peak bytes of the stage */
    uint16_t num_ops;      /* @16 */
    uint16_t num_inputs;   /* @18 */
    uint16_t num_outputs;  /* @20 */
    uint16_t tile_plan;    /* @22  tile plan index (tiled or chained stage); TIGRIS_NONE16: none */
    uint16_t weight_block; /* @24  LZ4: the block decompressed into fast_reserved first; TIGRIS_NONE16: none */
    uint16_t reserved;     /* @26  0 */
} tigris_stage_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_stage_t, 28);

/* How a stage (or a chain of stages) is cut into bands. */
typedef struct {
    uint32_t tile_h;      /* @0   output rows per tile, >= 1 */
    uint32_t num_tiles;   /* @4   >= 1; (num_tiles - 1) * tile_h < out_h <= num_tiles * tile_h */
    uint32_t halo;        /* @8   extra input rows per band (receptive field - 1) */
    uint32_t out_h;       /* @12  output rows of the stage (chain: of its last stage) */
    int32_t  chain;       /* @16  chain id shared by the chain's stages, or -1 */
    uint32_t peak;        /* @20  band peak bytes (accumulator included); > arena => TIGRIS_EXEC_ERR_TILE */
    uint16_t reduce_op;   /* @24  reduction tiles: the stage's last op, which accumulates over the tiles; tile rows are rows of its input 0; none: tiles are output rows; TIGRIS_NONE16: none */
    uint16_t flags;       /* @26  tigris_tile_flag_t bits (since 2.6; 0 before) */
    uint32_t acc_bytes;   /* @28  reduction tiles: accumulator bytes kept at the arena bottom across the tiles; row caches (TIGRIS_TILE_ROW_CACHE): the bytes of their slots, kept there the same way; else 0 */
    uint32_t tile_w;      /* @32  2-D tiles: output columns per tile; 0: full-width rows (the W fields are 1, 0, 0) */
    uint32_t num_tiles_w; /* @36  2-D tiles: tiles per row band, row-major; (num_tiles_w - 1) * tile_w < out_w <= num_tiles_w * tile_w */
    uint32_t halo_w;      /* @40  2-D tiles: extra input columns per tile (receptive field along W - 1) */
    uint32_t out_w;       /* @44  2-D tiles: output columns (W) of the stage's outputs */
    uint32_t tile_c;      /* @48  reduction tiles in channel blocks: channels of input 0 of reduce_op the accumulator holds per block; without reduce_op, output-feature blocks: output features of the stage's one dense op per block (since 2.5); 0: all (num_tiles_c 1) */
    uint32_t num_tiles_c; /* @52  channel blocks, outermost (each runs every row and column tile); (num_tiles_c - 1) * tile_c < C <= num_tiles_c * tile_c */
} tigris_tile_plan_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_tile_plan_t, 56);

/* Where a constant tensor's bytes are. */
typedef struct {
    uint32_t offset;   /* @0   in the blob, or in the block's raw data; TIGRIS_WEIGHT_ALIGN-aligned */
    uint32_t size;     /* @4   bytes == the tensor's size */
    uint16_t block;    /* @8   weight block index; none: the weight is in the blob; TIGRIS_NONE16: none */
    uint8_t  layout;   /* @10  tigris_weight_layout_t */
    uint8_t  reserved; /* @11  0 */
} tigris_weight_entry_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_weight_entry_t, 12);

/* A group of weights (LZ4: decompressed into fast_reserved). */
typedef struct {
    uint32_t offset;   /* @0   in the WEIGHT_BLOCK_DATA section; a multiple of TIGRIS_WEIGHT_ALIGN */
    uint32_t size;     /* @4   stored bytes (LZ4 block stream, or raw == raw_size) */
    uint32_t raw_size; /* @8   bytes after decompression (LZ4: <= fast_reserved) */
} tigris_weight_block_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_weight_block_t, 12);

/* Affine quantization: real = scale * (q - zero_point). */
typedef struct {
    float    scale;        /* @0   per-tensor scale (per-axis: 0) */
    int32_t  zero_point;   /* @4   per-tensor zero point (per-axis: 0) */
    int16_t  axis;         /* @8   -1 per-tensor, else the axis of the tensor's recorded shape */
    uint16_t num_channels; /* @10  1 per-tensor, else shape[axis] */
    uint32_t data;         /* @12  per-axis: quant data index of scales (binary32 bits) then zero points; TIGRIS_NONE32: none */
} tigris_quant_param_t;
TIGRIS_FORMAT_CHECK_SIZE(tigris_quant_param_t, 16);

/* Op sets (emit/tgrs/enums.py C_OP_SETS): which op types a tiling may hold. */
static inline int tigris_band_op_accumulates(uint8_t op_type) {
    switch (op_type) {
    case TIGRIS_OP_GLOBAL_AVG: case TIGRIS_OP_GLOBAL_MAX:
        return 1;
    default:
        return 0;
    }
}

static inline int tigris_band_op_tileable_2d(uint8_t op_type) {
    switch (op_type) {
    case TIGRIS_OP_CONV: case TIGRIS_OP_DEPTHWISE: case TIGRIS_OP_RELU: case TIGRIS_OP_RELU6:
    case TIGRIS_OP_MAX_POOL: case TIGRIS_OP_AVG_POOL: case TIGRIS_OP_ADD: case TIGRIS_OP_MUL:
    case TIGRIS_OP_CLIP: case TIGRIS_OP_SIGMOID: case TIGRIS_OP_CONCAT: case TIGRIS_OP_PAD: case TIGRIS_OP_SUB:
    case TIGRIS_OP_DIV: case TIGRIS_OP_TANH: case TIGRIS_OP_LEAKY_RELU: case TIGRIS_OP_BATCH_NORM:
    case TIGRIS_OP_RESIZE: case TIGRIS_OP_HARD_SWISH: case TIGRIS_OP_QUANTIZE: case TIGRIS_OP_DEQUANTIZE:
    case TIGRIS_OP_NEG: case TIGRIS_OP_ABS: case TIGRIS_OP_EXP: case TIGRIS_OP_LOG: case TIGRIS_OP_SQRT:
    case TIGRIS_OP_RECIPROCAL: case TIGRIS_OP_ELU: case TIGRIS_OP_SELU: case TIGRIS_OP_SOFTPLUS:
    case TIGRIS_OP_SOFTSIGN: case TIGRIS_OP_ERF: case TIGRIS_OP_GELU: case TIGRIS_OP_HARD_SIGMOID:
    case TIGRIS_OP_SIGN: case TIGRIS_OP_SHRINK: case TIGRIS_OP_POW: case TIGRIS_OP_SILU: case TIGRIS_OP_SLICE:
    case TIGRIS_OP_GATHER: case TIGRIS_OP_PRELU: case TIGRIS_OP_MAX: case TIGRIS_OP_MIN:
    case TIGRIS_OP_POW_TENSOR: case TIGRIS_OP_LRN:
        return 1;
    default:
        return 0;
    }
}

static inline int tigris_band_op_feature_blocks(uint8_t op_type) {
    switch (op_type) {
    case TIGRIS_OP_FULLY_CONN:
        return 1;
    default:
        return 0;
    }
}

#endif /* TIGRIS_FORMAT_H */
