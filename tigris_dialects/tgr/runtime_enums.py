"""The runtime's op vocabulary: the values a `tigris_op_t` record holds, defined once.

`OpType` numbers the runtime's ops (`TIGRIS_OP_*`); `OpFlag`, `Activation`, `PadMode`,
`ResizeMode` and `CoordMode` are the values of its parameter fields. Two layers need them:
the `tgr` dialect, whose ops declare their own code (`RuntimeOp(OpType.CONV)`) and their own
record fields (`runtime_fields()`), and the `.tgrs` format (`emit/tgrs/enums.py` re-exports
these classes beside the file-level enums, and `cheader.py` generates the C header from them).
Imports go one way, dialects <- transforms <- emit, so the definition lives here, at the
bottom, in the dialect that models the runtime's op set: the format cannot be imported by the
dialect, and a second copy in either layer is what this module exists to prevent.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

CUSTOM_OP_FIRST, CUSTOM_OP_LAST = 128, 254
"""Extension op types (TIGRIS_OP_CUSTOM_FIRST..LAST in the generated header): plugins' ops, run
by a user kernel."""
EXTENSION_OP_TYPES = range(CUSTOM_OP_FIRST, CUSTOM_OP_LAST + 1)
"""The same range, for `in` tests: the `RuntimeOp` values a plugin's op may declare."""


class OpType(IntEnum):
    """`tigris_op_type_t` of spec/c-api.md (1..32, 255) plus our 33..35.

    `OpType(v)` also accepts an extension op type v in CUSTOM_OP_FIRST..CUSTOM_OP_LAST: a
    pseudo-member named `CUSTOM_<v>` (not listed when iterating, so not in the C header)."""

    CONV = 1
    DEPTHWISE = 2
    RELU = 3
    RELU6 = 4
    MAX_POOL = 5
    AVG_POOL = 6
    ADD = 7
    MUL = 8
    FULLY_CONN = 9
    SOFTMAX = 10
    CLIP = 11
    SIGMOID = 12
    CONCAT = 13
    PAD = 14
    GLOBAL_AVG = 15
    FLATTEN = 16
    RESHAPE = 17
    SUB = 18
    DIV = 19
    TANH = 20
    LEAKY_RELU = 21
    BATCH_NORM = 22
    INST_NORM = 23
    CONV_TRANSPOSE = 24
    MATMUL = 25
    REDUCE_MEAN = 26
    SQUEEZE = 27
    UNSQUEEZE = 28
    TRANSPOSE = 29
    RESIZE = 30
    GLOBAL_MAX = 31
    CONV1D = 32
    HARD_SWISH = 33
    QUANTIZE = 34
    DEQUANTIZE = 35
    NEG = 36  # 36..52: element-wise unary math (tgr/ops_unary.py)
    ABS = 37
    EXP = 38
    LOG = 39
    SQRT = 40
    RECIPROCAL = 41
    ELU = 42
    SELU = 43
    SOFTPLUS = 44
    SOFTSIGN = 45
    ERF = 46
    GELU = 47
    HARD_SIGMOID = 48
    SIGN = 49
    SHRINK = 50
    POW = 51
    SILU = 52
    SLICE = 60  # 60..62: data movement on activations (tgr/ops_move.py)
    GATHER = 61
    TILE = 62
    PRELU = 70
    MAX = 71
    MIN = 72
    POW_TENSOR = 73  # Pow with a tensor exponent (tgr.pow_tensor); POW has a constant one
    REDUCE_SUM = 80
    REDUCE_MAX = 81
    REDUCE_MIN = 82
    LOG_SOFTMAX = 83
    LRN = 84
    LAYER_NORM = 85
    UNKNOWN = 255

    @classmethod
    def _missing_(cls, value: object) -> OpType | None:
        if isinstance(value, int) and CUSTOM_OP_FIRST <= value <= CUSTOM_OP_LAST:
            member = int.__new__(cls, value)
            member._name_ = f"CUSTOM_{value}"
            member._value_ = value
            return member
        return None


class OpFlag(IntFlag):
    """`flags` of an op: the boolean ONNX attributes."""

    CEIL_MODE = 1  # pools: output size rounds up
    COUNT_INCLUDE_PAD = 2  # avg_pool: padding counts in the divisor
    KEEPDIMS = 4  # reduce_mean: reduced axes stay as size 1
    STORED_ORDER = 8  # reshape family (1.1): copy the stored bytes, not the elements in model order


class Activation(IntEnum):
    """Fused activation of conv, depthwise, conv1d, fully_conn."""

    NONE = 0
    RELU = 1
    RELU6 = 2


class ResizeMode(IntEnum):
    """`mode` of a resize op."""

    NEAREST = 0
    LINEAR = 1


class CoordMode(IntEnum):
    """ONNX Resize coordinate_transformation_mode."""

    HALF_PIXEL = 0
    ASYMMETRIC = 1
    ALIGN_CORNERS = 2
    PYTORCH_HALF_PIXEL = 3


class GeluMode(IntEnum):
    """`mode` of a gelu op: ONNX Gelu's `approximate`."""

    NONE = 0
    TANH = 1


class PadMode(IntEnum):
    """`mode` of a pad op."""

    CONSTANT = 0
    REFLECT = 1
    EDGE = 2


ACCUMULATING_OPS = frozenset({OpType.GLOBAL_AVG, OpType.GLOBAL_MAX})
"""Ops that can accumulate over reduction tiles (a tile plan's reduce_op): they reduce their whole
input to one value per (batch, channel) and take it band by band."""

FEATURE_BLOCK_OPS = frozenset({OpType.FULLY_CONN})
"""Dense ops that run in blocks of their output features (a tile plan with channel blocks): a lone
op computing any block of its output features [c0, c1) alone, each exactly as the untiled op does
(its own weight row, bias and requantization), into a block-sized buffer the runtime writes into
the full output in slow memory; with the op as reduce_op (reduction blocks) also taking its [N, K]
input a block of K features at a time, carrying each feature's sum in the accumulator."""

TILEABLE_2D_OPS = frozenset({
    OpType.CONV, OpType.DEPTHWISE, OpType.MAX_POOL, OpType.AVG_POOL,
    OpType.RELU, OpType.RELU6, OpType.SIGMOID, OpType.TANH, OpType.HARD_SWISH, OpType.QUANTIZE,
    OpType.DEQUANTIZE, OpType.LEAKY_RELU, OpType.CLIP, OpType.ADD, OpType.SUB, OpType.MUL, OpType.DIV,
    OpType.PRELU, OpType.MAX, OpType.MIN, OpType.NEG, OpType.ABS, OpType.EXP, OpType.LOG, OpType.SQRT,
    OpType.RECIPROCAL, OpType.ELU, OpType.SELU, OpType.SOFTPLUS, OpType.SOFTSIGN, OpType.ERF, OpType.GELU,
    OpType.HARD_SIGMOID, OpType.SIGN, OpType.SHRINK, OpType.POW, OpType.SILU, OpType.POW_TENSOR,
    OpType.CONCAT, OpType.BATCH_NORM, OpType.LRN,
    OpType.SLICE, OpType.GATHER,  # channel picks only: other slices and gathers are structural
    OpType.RESIZE, OpType.PAD,  # columns follow the rule rows do (RowMap, one rule per axis)
})  # fmt: skip
"""Ops whose kernels compute a 2-D tile (a window of rows x columns) from windows of their inputs.
The planner cuts a stage in 2-D only when all its ops are in this set (and cut along W: an op
joining or picking along W is not); the runtime refuses a 2-D tile plan holding any other op."""
