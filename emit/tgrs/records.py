"""The fixed-size records of the `.tgrs` format: the single source of truth.

The writer, the reader, the C header generator and the C contract test all read these
tables. Field order is the byte order in the file; see docs/tgrs-format.md for what each
field means and what the loader checks.
"""

from __future__ import annotations

from tigris.emit.tgrs.enums import (
    TABLE_SIZE,
    Activation,
    BandGeometry,
    DType,
    FileFlag,
    OpFlag,
    OpType,
    SectionKind,
    TensorFlag,
    TileFlag,
    WeightLayout,
)
from tigris.emit.tgrs.layout import Field as F
from tigris.emit.tgrs.layout import Record

HEADER = Record("tigris_file_header_t", "File header at offset 0; the section table follows it.", (
    F("magic", "char", "\"TGRS\"", count=4),
    F("version_major", "uint16_t", "TIGRIS_FORMAT_VERSION_MAJOR; a loader rejects any other"),
    F("version_minor", "uint16_t", "TIGRIS_FORMAT_VERSION_MINOR_OLDEST..TIGRIS_FORMAT_VERSION_MINOR of the loader"),
    F("header_size", "uint32_t", "sizeof(tigris_file_header_t)"),
    F("file_size", "uint32_t", "total bytes; == the buffer length"),
    F("crc32", "uint32_t", "CRC-32 (zlib) of bytes [header_size, file_size)"),
    F("flags", "uint32_t", "tigris_file_flag_t bits", enum=FileFlag),
    F("fast_reserved", "uint32_t", "LZ4: the largest weight block's raw_size, else 0"),
    F("name", "uint32_t", "string pool offset of the model name"),
    F("model_inputs", "uint32_t", "index pool offset of num_model_inputs tensor indices"),
    F("model_outputs", "uint32_t", "index pool offset of num_model_outputs tensor indices"),
    F("num_sections", "uint16_t", "entries in the section table"),
    F("num_tensors", "uint16_t", "tigris_tensor_t records"),
    F("num_ops", "uint16_t", "tigris_op_t records"),
    F("num_stages", "uint16_t", "tigris_stage_t records"),
    F("num_tile_plans", "uint16_t", "tigris_tile_plan_t records"),
    F("num_weights", "uint16_t", "tigris_weight_entry_t records"),
    F("num_weight_blocks", "uint16_t", "tigris_weight_block_t records"),
    F("num_quant_params", "uint16_t", "tigris_quant_param_t records"),
    F("num_tables", "uint16_t", "256-byte lookup tables"),
    F("num_model_inputs", "uint16_t", "model input tensors"),
    F("num_model_outputs", "uint16_t", "model output tensors"),
    F("reserved", "uint16_t", "0"),
))  # fmt: skip

SECTION = Record("tigris_section_t", "One section table entry.", (
    F("kind", "uint16_t", "tigris_section_kind_t", enum=SectionKind),
    F("reserved", "uint16_t", "0"),
    F("offset", "uint32_t", "from the file start; a multiple of TIGRIS_SECTION_ALIGN"),
    F("size", "uint32_t", "bytes (without alignment padding) == count * element size"),
    F("count", "uint32_t", "records or pool elements"),
))  # fmt: skip

TENSOR = Record("tigris_tensor_t", "A tensor: activation, model I/O or constant (weight).", (
    F("name", "uint32_t", "string pool offset"),
    F("shape", "uint32_t", "shape pool index of ndim dims: model (NCHW) order; constants: as stored"),
    F("size", "uint32_t", "bytes = product(shape) * dtype size"),
    F("perm", "uint32_t", "model inputs/outputs: shape pool index of ndim entries, the user's layout", optional=True),
    F("quant", "uint16_t", "quant param index", optional=True),
    F("weight", "uint16_t", "weight entry index (constants only)", optional=True),
    F("dtype", "uint8_t", "tigris_dtype_t", enum=DType),
    F("ndim", "uint8_t", "rank, <= TIGRIS_MAX_RANK"),
    F("flags", "uint16_t", "tigris_tensor_flag_t bits", enum=TensorFlag),
))  # fmt: skip

OP = Record("tigris_op_t", "One op; which parameters apply depends on op_type.", (
    F("name", "uint32_t", "string pool offset"),
    F("inputs", "uint32_t", "index pool offset of num_inputs tensor indices"),
    F("outputs", "uint32_t", "index pool offset of num_outputs tensor indices"),
    F("params", "uint32_t", "shape pool index of num_params int32 (perm, pads, scales, axes...)"),
    F("scales", "uint32_t", "quant data index of num_scales float32 requantization scales (binary32 bits)"),
    F("op_type", "uint8_t", "tigris_op_type_t", enum=OpType),
    F("activation", "uint8_t", "tigris_activation_t (fused)", enum=Activation),
    F("num_inputs", "uint8_t", "operands, constants included, operand order"),
    F("num_outputs", "uint8_t", "results"),
    F("weight", "uint16_t", "tensor index of the weight operand", optional=True),
    F("bias", "uint16_t", "tensor index of the bias operand", optional=True),
    F("table", "uint16_t", "int8 lookup table index", optional=True),
    F("num_params", "uint16_t", "int32 entries at params"),
    F("num_scales", "uint16_t", "int8 dense ops: one per output channel (matmul: per rhs column), else 0"),
    F("flags", "uint16_t", "tigris_op_flag_t bits", enum=OpFlag),
    F("kernel_h", "uint16_t", "window height (conv1d: length)"),
    F("kernel_w", "uint16_t", "window width"),
    F("stride_h", "uint16_t", "stride along H"),
    F("stride_w", "uint16_t", "stride along W"),
    F("dilation_h", "uint16_t", "dilation along H"),
    F("dilation_w", "uint16_t", "dilation along W"),
    F("pad_top", "uint16_t", "implicit zero padding"),
    F("pad_left", "uint16_t", ""),
    F("pad_bottom", "uint16_t", ""),
    F("pad_right", "uint16_t", ""),
    F("group", "uint16_t", "conv groups; depthwise: depth multiplier"),
    F("axis", "int16_t", "concat/softmax/flatten axis, runtime (channels-last) order"),
    F("act_min", "int16_t", "int8 dense ops: output clamp after requantization (fused activation in)"),
    F("act_max", "int16_t", ""),
    F("mode", "uint8_t", "resize: tigris_resize_mode_t; pad: tigris_pad_mode_t; gelu: tigris_gelu_mode_t"),
    F("coord_mode", "uint8_t", "resize: tigris_coord_mode_t"),
    F("geometry_h", "uint8_t", "tigris_band_geometry_t: the input rows a band of output rows reads",
      enum=BandGeometry),
    F("geometry_w", "uint8_t", "tigris_band_geometry_t: the input columns a window of output columns reads",
      enum=BandGeometry),
    F("clip_min", "float", "clip: lower bound (-inf: none)"),
    F("clip_max", "float", "clip: upper bound (+inf: none)"),
    F("alpha", "float", "leaky_relu slope; elu/selu alpha, hard_sigmoid alpha, shrink lambd, pow exponent"),
    F("beta", "float", "selu gamma, hard_sigmoid beta, shrink bias"),
    F("epsilon", "float", "batch_norm / inst_norm epsilon"),
    F("pad_value", "float", "pad: constant value (float models)"),
    F("input_zp", "int32_t", "zero point of input 0"),
    F("input2_zp", "int32_t", "zero point of input 1 (binary ops)"),
    F("output_zp", "int32_t", "zero point of output 0"),
    F("pad_value_q", "int32_t", "pad: constant value, stored at the output's parameters (int8 models)"),
))  # fmt: skip

STAGE = Record("tigris_stage_t", "A temporal partition: the arena is reset around it.", (
    F("ops", "uint32_t", "index pool offset of num_ops op indices, in execution order"),
    F("inputs", "uint32_t", "index pool offset: tensors reloaded from slow memory"),
    F("outputs", "uint32_t", "index pool offset: tensors spilled to slow memory"),
    F("peak", "uint32_t", "untiled peak bytes of the stage"),
    F("num_ops", "uint16_t", ""),
    F("num_inputs", "uint16_t", ""),
    F("num_outputs", "uint16_t", ""),
    F("tile_plan", "uint16_t", "tile plan index (tiled or chained stage)", optional=True),
    F("weight_block", "uint16_t", "LZ4: the block decompressed into fast_reserved first", optional=True),
    F("reserved", "uint16_t", "0"),
))  # fmt: skip

TILE_PLAN = Record("tigris_tile_plan_t", "How a stage (or a chain of stages) is cut into bands.", (
    F("tile_h", "uint32_t", "output rows per tile, >= 1"),
    F("num_tiles", "uint32_t", ">= 1; (num_tiles - 1) * tile_h < out_h <= num_tiles * tile_h"),
    F("halo", "uint32_t", "extra input rows per band (receptive field - 1)"),
    F("out_h", "uint32_t", "output rows of the stage (chain: of its last stage)"),
    F("chain", "int32_t", "chain id shared by the chain's stages, or -1"),
    F("peak", "uint32_t", "band peak bytes (accumulator included); > arena => TIGRIS_EXEC_ERR_TILE"),
    F("reduce_op", "uint16_t", "reduction tiles: the stage's last op, which accumulates over the tiles; "
      "tile rows are rows of its input 0; none: tiles are output rows", optional=True),
    F("flags", "uint16_t", "tigris_tile_flag_t bits (since 2.6; 0 before)", enum=TileFlag),
    F("acc_bytes", "uint32_t", "reduction tiles: accumulator bytes kept at the arena bottom across the tiles; "
      "row caches (TIGRIS_TILE_ROW_CACHE): the bytes of their slots, kept there the same way; else 0"),
    F("tile_w", "uint32_t", "2-D tiles: output columns per tile; 0: full-width rows (the W fields are 1, 0, 0)"),
    F("num_tiles_w", "uint32_t", "2-D tiles: tiles per row band, row-major; (num_tiles_w - 1) * tile_w < out_w "
      "<= num_tiles_w * tile_w"),
    F("halo_w", "uint32_t", "2-D tiles: extra input columns per tile (receptive field along W - 1)"),
    F("out_w", "uint32_t", "2-D tiles: output columns (W) of the stage's outputs"),
    F("tile_c", "uint32_t", "reduction tiles in channel blocks: channels of input 0 of reduce_op the "
      "accumulator holds per block; without reduce_op, output-feature blocks: output features of the "
      "stage's one dense op per block (since 2.5); 0: all (num_tiles_c 1)"),
    F("num_tiles_c", "uint32_t", "channel blocks, outermost (each runs every row and column tile); "
      "(num_tiles_c - 1) * tile_c < C <= num_tiles_c * tile_c"),
))  # fmt: skip

WEIGHT_ENTRY = Record("tigris_weight_entry_t", "Where a constant tensor's bytes are.", (
    F("offset", "uint32_t", "in the blob, or in the block's raw data; TIGRIS_WEIGHT_ALIGN-aligned"),
    F("size", "uint32_t", "bytes == the tensor's size"),
    F("block", "uint16_t", "weight block index; none: the weight is in the blob", optional=True),
    F("layout", "uint8_t", "tigris_weight_layout_t", enum=WeightLayout),
    F("reserved", "uint8_t", "0"),
))  # fmt: skip

WEIGHT_BLOCK = Record("tigris_weight_block_t", "A group of weights (LZ4: decompressed into fast_reserved).", (
    F("offset", "uint32_t", "in the WEIGHT_BLOCK_DATA section; a multiple of TIGRIS_WEIGHT_ALIGN"),
    F("size", "uint32_t", "stored bytes (LZ4 block stream, or raw == raw_size)"),
    F("raw_size", "uint32_t", "bytes after decompression (LZ4: <= fast_reserved)"),
))  # fmt: skip

QUANT_PARAM = Record("tigris_quant_param_t", "Affine quantization: real = scale * (q - zero_point).", (
    F("scale", "float", "per-tensor scale (per-axis: 0)"),
    F("zero_point", "int32_t", "per-tensor zero point (per-axis: 0)"),
    F("axis", "int16_t", "-1 per-tensor, else the axis of the tensor's recorded shape"),
    F("num_channels", "uint16_t", "1 per-tensor, else shape[axis]"),
    F("data", "uint32_t", "per-axis: quant data index of scales (binary32 bits) then zero points",
      optional=True),
))  # fmt: skip

RECORDS = (HEADER, SECTION, TENSOR, OP, STAGE, TILE_PLAN, WEIGHT_ENTRY, WEIGHT_BLOCK, QUANT_PARAM)

SECTION_ELEMENT = {
    SectionKind.TENSORS: TENSOR.size,
    SectionKind.OPS: OP.size,
    SectionKind.STAGES: STAGE.size,
    SectionKind.TILE_PLANS: TILE_PLAN.size,
    SectionKind.WEIGHT_ENTRIES: WEIGHT_ENTRY.size,
    SectionKind.WEIGHT_BLOCKS: WEIGHT_BLOCK.size,
    SectionKind.QUANT_PARAMS: QUANT_PARAM.size,
    SectionKind.INDEX_POOL: 2,  # uint16_t
    SectionKind.SHAPE_POOL: 4,  # int32_t
    SectionKind.STRINGS: 1,  # char, NUL-terminated strings
    SectionKind.QUANT_DATA: 4,  # int32_t
    SectionKind.TABLES: TABLE_SIZE,  # int8_t[TIGRIS_TABLE_SIZE]
    SectionKind.WEIGHT_BLOB: 1,
    SectionKind.WEIGHT_BLOCK_DATA: 1,
}
"""Bytes per counted element of each section: the loader checks size == count * this."""
