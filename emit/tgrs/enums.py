"""Every enum and constant of the `.tgrs` format, defined once.

The C header (`runtime/include/tigris_format.h`) is generated from these classes by
`cheader.py`, so a value can only change here. `C_ENUMS` gives each class its C typedef
and name prefix: member `CONV` of `OpType` is `TIGRIS_OP_CONV` in C. The values of an op
record (`OpType`, `OpFlag`, `Activation`, the modes) and the extension op range are the `tgr`
dialect's, which declares them per op: they are defined in `tigris.dialects.tgr.runtime_enums`
and re-exported here, so the format still names every value it writes in one place.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

from tigris.dialects.tgr.runtime_enums import (
    ACCUMULATING_OPS,
    FEATURE_BLOCK_OPS,
    CUSTOM_OP_FIRST,
    CUSTOM_OP_LAST,
    Activation,
    CoordMode,
    GeluMode,
    OpFlag,
    OpType,
    PadMode,
    ResizeMode,
    TILEABLE_2D_OPS,
)

__all__ = [
    "CUSTOM_OP_FIRST", "CUSTOM_OP_LAST", "C_CONSTANTS", "C_ENUMS", "MAGIC", "MAX_RANK", "NONE16", "NONE32",
    "QUANTIZABLE", "REQUIRED_SECTIONS", "SECTION_ALIGN", "TABLE_SIZE", "VERSION_MAJOR", "VERSION_MINOR",
    "VERSION_MINOR_OLDEST", "WEIGHT_ALIGN", "WINDOW_OPS", "ACCUMULATING_OPS", "TILEABLE_2D_OPS", "C_OP_SETS",
    "FEATURE_BLOCK_OPS",
    "Activation", "BandGeometry", "Compression", "CoordMode", "DType", "FileFlag", "GeluMode", "OpFlag",
    "OpType", "PadMode", "ResizeMode", "SectionKind", "TensorFlag", "TileFlag", "WeightLayout",
]  # fmt: skip

MAGIC = b"TGRS"
VERSION_MAJOR = 2  # 2.0: int8 ops with onnxruntime's QDQ arithmetic (float32 requantization scales)
VERSION_MINOR = 6  # 2.1: op record field beta (108-byte tigris_op_t), op types 36..52;
#                   2.2: reduction tiles (tile plan reduce_op, acc_bytes), 2-D tiles (tile_w, num_tiles_w,
#                   halo_w, out_w): a 48-byte tigris_tile_plan_t;
#                   2.3: reduction tiles in channel blocks (tile_c, num_tiles_c): a 56-byte tigris_tile_plan_t;
#                   2.4: each op's band geometry (op record geometry_h, geometry_w: the old reserved field);
#                   2.5: output-feature blocks (tile_c, num_tiles_c without reduce_op: a lone fully_conn);
#                   2.6: row caches (tile plan flags, the old reserved field; acc_bytes their slots)
VERSION_MINOR_OLDEST = 4  # the oldest minor a loader reads: a 2.3 op record's reserved zeros would read
#                           as geometry NONE (every op untileable), and older minors' records differ in size
SECTION_ALIGN = 16  # every section starts at a multiple of this (and so does the section table's end)
WEIGHT_ALIGN = 16  # every weight starts at a multiple of this in the blob and in a block's raw data
TABLE_SIZE = 256  # bytes in one int8 lookup table
MAX_RANK = 8
NONE16 = 0xFFFF  # "no index" in a uint16_t index field
NONE32 = 0xFFFFFFFF  # "no offset" in a uint32_t pool-offset field


WINDOW_OPS = frozenset(
    {OpType.CONV, OpType.DEPTHWISE, OpType.CONV1D, OpType.CONV_TRANSPOSE, OpType.MAX_POOL, OpType.AVG_POOL}
)
"""Ops whose kernel/stride/dilation fields must be >= 1."""

C_OP_SETS = (
    ("tigris_band_op_accumulates", ACCUMULATING_OPS),
    ("tigris_band_op_tileable_2d", TILEABLE_2D_OPS),
    ("tigris_band_op_feature_blocks", FEATURE_BLOCK_OPS),
)
"""The op sets the runtime asks about, generated into tigris_format.h as predicates on an op type
(the loader, the executor and the Python reader all read these lists)."""


class BandGeometry(IntEnum):
    """Which input indices a band of an op's output reads along one axis (op geometry_h / geometry_w).

    The emitter writes it from the op's traits (`TileCategory`, `SpatialWindow`, `RowMap`), so the
    runtime computes every tile's bands from the record (tigris_bands.c) without knowing op types:
    a plugin op declaring a window is banded like a built-in one."""

    NONE = 0  # not cut along this axis (structural, dense, a concat or pick along it): reads it whole
    SAME = 1  # pointwise or channel-wise: output index i reads input index i
    WINDOW = 2  # kernel, stride, dilation and begin pad of the record along the axis (conv, pools)
    GLOBAL = 3  # reads the whole input extent (global pooling)
    PAD = 4  # the pad rule on params (runtime-order pads) and mode (tigris_pad_mode_t)
    RESIZE = 5  # the resize rule on params (integer scales), mode and coord_mode


class DType(IntEnum):
    """Element type of a tensor (`uint8_t dtype` in `tigris_tensor_t`)."""

    F32 = 1
    F16 = 2
    I8 = 3
    U8 = 4
    I16 = 5
    I32 = 6
    I64 = 7
    BOOL = 8

    @property
    def size(self) -> int:
        return _DTYPE_SIZES[self]


_DTYPE_SIZES = {
    DType.F32: 4, DType.F16: 2, DType.I8: 1, DType.U8: 1,
    DType.I16: 2, DType.I32: 4, DType.I64: 8, DType.BOOL: 1,
}  # fmt: skip
QUANTIZABLE = frozenset({DType.I8, DType.U8, DType.I16, DType.I32})
"""Dtypes a quant param may describe (int32: biases at input_scale * weight_scale)."""


class SectionKind(IntEnum):
    """What a section holds; its element size fixes `size == count * element size`."""

    TENSORS = 1
    OPS = 2
    STAGES = 3
    TILE_PLANS = 4
    WEIGHT_ENTRIES = 5
    WEIGHT_BLOCKS = 6
    QUANT_PARAMS = 7
    INDEX_POOL = 8
    SHAPE_POOL = 9
    STRINGS = 10
    QUANT_DATA = 11
    TABLES = 12
    WEIGHT_BLOB = 13
    WEIGHT_BLOCK_DATA = 14


REQUIRED_SECTIONS = (
    SectionKind.TENSORS,
    SectionKind.OPS,
    SectionKind.STAGES,
    SectionKind.INDEX_POOL,
    SectionKind.SHAPE_POOL,
    SectionKind.STRINGS,
)


class FileFlag(IntFlag):
    """`flags` of the file header."""

    XIP = 1  # weights are read in place from (flash) memory: never copied, so no LZ4
    LZ4 = 2  # weight blocks are LZ4 block-format streams, staged into fast_reserved (else raw, read in place)
    QUANTIZED = 4  # the plan has int8 ops (informational; kernels look at dtypes)


class Compression(IntEnum):
    """`tigris_plan_t.weight_compression`: the loader derives it from TIGRIS_FLAG_LZ4."""

    NONE = 0
    LZ4 = 1


class TensorFlag(IntFlag):
    """`flags` of a tensor; the loader checks they agree with the model I/O lists and `weight`."""

    MODEL_INPUT = 1
    MODEL_OUTPUT = 2
    CONSTANT = 4  # a weight: has a weight entry, never allocated in an arena


class TileFlag(IntFlag):
    """`flags` of a tile plan."""

    ROW_CACHE = 1  # full-width row tiles whose overlapping rows are kept in slots, never recomputed nor reloaded
    #                (docs/tgrs-format.md "Row caches"; transforms/plan/row_cache.py is the rule)


class WeightLayout(IntEnum):
    """What the axes of a stored constant mean (the `weight_layout` names of `tgr` ops).

    The lowering permutes; the writer stores bytes whose recorded shape is the stored one."""

    PLAIN = 0  # ONNX order (biases, norm vectors, matmul/add constants, untouched weights)
    CHANNELS_LAST = 1  # an activation-shaped constant stored like activations (N, spatial..., C)
    OHWI = 2  # conv, conv_transpose [O, KH, KW, I/group]
    HWC = 3  # depthwise [KH, KW, C * multiplier]
    OKI = 4  # conv1d [O, K, I/group]
    NK_HWC = 5  # fully_conn [N, K], columns in (h, w, c) order of a flattened NHWC map

    @property
    def rank(self) -> int | None:
        """The rank a weight in this layout has (None: any)."""
        return {WeightLayout.OHWI: 4, WeightLayout.HWC: 3, WeightLayout.OKI: 3, WeightLayout.NK_HWC: 2}.get(
            self
        )


C_ENUMS: tuple[tuple[type[IntEnum | IntFlag], str, str], ...] = (
    (OpType, "tigris_op_type_t", "TIGRIS_OP_"),
    (BandGeometry, "tigris_band_geometry_t", "TIGRIS_GEOM_"),
    (DType, "tigris_dtype_t", "TIGRIS_DTYPE_"),
    (SectionKind, "tigris_section_kind_t", "TIGRIS_SECTION_"),
    (FileFlag, "tigris_file_flag_t", "TIGRIS_FLAG_"),
    (Compression, "tigris_compression_t", "TIGRIS_COMPRESSION_"),
    (TensorFlag, "tigris_tensor_flag_t", "TIGRIS_TENSOR_"),
    (TileFlag, "tigris_tile_flag_t", "TIGRIS_TILE_"),
    (OpFlag, "tigris_op_flag_t", "TIGRIS_OPF_"),
    (Activation, "tigris_activation_t", "TIGRIS_ACT_"),
    (WeightLayout, "tigris_weight_layout_t", "TIGRIS_LAYOUT_"),
    (ResizeMode, "tigris_resize_mode_t", "TIGRIS_RESIZE_"),
    (CoordMode, "tigris_coord_mode_t", "TIGRIS_COORD_"),
    (PadMode, "tigris_pad_mode_t", "TIGRIS_PAD_"),
    (GeluMode, "tigris_gelu_mode_t", "TIGRIS_GELU_"),
)

C_CONSTANTS: tuple[tuple[str, int], ...] = (
    ("TIGRIS_FORMAT_VERSION_MAJOR", VERSION_MAJOR),
    ("TIGRIS_FORMAT_VERSION_MINOR", VERSION_MINOR),
    ("TIGRIS_FORMAT_VERSION_MINOR_OLDEST", VERSION_MINOR_OLDEST),
    ("TIGRIS_SECTION_ALIGN", SECTION_ALIGN),
    ("TIGRIS_WEIGHT_ALIGN", WEIGHT_ALIGN),
    ("TIGRIS_TABLE_SIZE", TABLE_SIZE),
    ("TIGRIS_MAX_RANK", MAX_RANK),
    ("TIGRIS_NONE16", NONE16),
    ("TIGRIS_NONE32", NONE32),
    ("TIGRIS_OP_CUSTOM_FIRST", CUSTOM_OP_FIRST),
    ("TIGRIS_OP_CUSTOM_LAST", CUSTOM_OP_LAST),
)
