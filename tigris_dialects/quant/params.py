"""Which int8 formula each op runs, and the compile-time numbers it needs, from its `!tgr.quant` types.

`int8_params(op)` is the one place these numbers are computed: the interpreter's int8 kernels call
it on every run, and `compute-quant-scales` calls it once to attach the same values for the
device, so host and device agree bit for bit. `arith`'s module docstring defines the formulas.

    op kind                                    fields of `Int8Params` (else none)
    conv, depthwise_conv, conv1d,              requant_scales: float32(sx sw[c] / sy) per output
      fully_connected                            channel; act_range: the fused activation's clamp
    conv_transpose, matmul                     requant_scales (per output channel / rhs column),
                                                 act_range (the storage range)
    relu, relu6, clip, leaky_relu, sigmoid,    table (256 entries of the result's storage type)
      tanh, hard_swish (onnx Swish, Silu),
      neg ... silu (tgr/ops_unary.py)
    pad                                        pad_value: the constant, quantized at the result's
                                                 parameters (the stored byte of a padded element)
    add, sub, mul, div, max, min, prelu,       nothing: their formulas read only the tensors'
      softmax, avg_pool, global_avg_pool,        scales and zero points (and shapes)
      reduce_mean, concat,
      max_pool, global_max_pool, resize (nearest),
      reshape, flatten, squeeze, unsqueeze,
      transpose, slice, gather, tile

Every function checks what the formula needs (8-bit per-tensor activations, per-channel weights
along the output-channel axis, int32 accumulators that cannot overflow) and raises ValueError
saying what is wrong; callers name the op.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import FloatAttr, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

from tigris.dialects.constants import constant_array
from tigris.dialects.onnx import ops_elementwise as onnx_ew
from tigris.dialects.onnx import ops_tensor as onnx_t
from tigris.dialects.quant import arith
from tigris.dialects.shapes import ints, shape_of
from tigris.dialects.tgr import ops_binary as bi
from tigris.dialects.tgr import ops_elementwise as ew
from tigris.dialects.tgr import ops_move as mv
from tigris.dialects.tgr import ops_shape as sh
from tigris.dialects.tgr import ops_unary as un
from tigris.dialects.tgr import ops_window as win
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.weight import numpy_dtype

# -- quantization parameters from types ----------------------------------------------------------


@dataclass(frozen=True)
class QParams:
    """A `!tgr.quant` element type as numbers: scales, zero points, axis (-1: per tensor) and
    the storage's integer range and numpy dtype."""

    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int
    qmin: int
    qmax: int
    dtype: np.dtype

    @staticmethod
    def of(qtype: QuantType) -> QParams:
        dtype = numpy_dtype(qtype)
        info = np.iinfo(dtype)
        return QParams(
            qtype.scale_values, qtype.zero_point_values, qtype.axis.data, int(info.min), int(info.max), dtype
        )

    @property
    def per_tensor(self) -> bool:
        return self.axis < 0

    @property
    def scale(self) -> float:
        assert self.per_tensor
        return self.scales[0]

    @property
    def zp(self) -> int:
        assert self.per_tensor
        return self.zero_points[0]

    @property
    def pair(self) -> tuple[float, int]:
        return self.scale, self.zp

    @property
    def range(self) -> tuple[int, int]:
        return self.qmin, self.qmax

    def max_offset(self) -> int:
        """Largest |q - zp| of a per-tensor value."""
        return arith.max_offset(self.zp, self.qmin, self.qmax)


def qparams(value: SSAValue) -> QParams | None:
    type_ = value.type
    if isinstance(type_, TensorType) and isinstance(type_.element_type, QuantType):
        return QParams.of(type_.element_type)
    return None


def is_quantized(op: Operation) -> bool:
    """Whether any operand or result of `op` is a `!tgr.quant` tensor."""
    return any(qparams(v) is not None for v in (*op.operands, *op.results))


def tensor_q(value: SSAValue, role: str) -> QParams:
    """Per-tensor parameters of an activation (or of a weight read like one)."""
    q = qparams(value)
    if q is None:
        raise ValueError(f"{role} is {value.type}, not a !tgr.quant tensor (mixed float/int8 operands)")
    if not q.per_tensor:
        raise ValueError(f"{role} has per-axis parameters (axis {q.axis}); this kernel needs per-tensor ones")
    if q.dtype.itemsize != 1:
        raise ValueError(f"{role} is stored as {q.dtype}; int8 kernels take 8-bit tensors")
    return q


@dataclass(frozen=True)
class Channels:
    """Per-output-channel scales (float64 of float32 values) and zero points of a weight, and the
    largest |w - zp| its storage allows."""

    scales: np.ndarray
    zero_points: np.ndarray
    max_offset: int


def channel_q(value: SSAValue, axis: int, channels: int, role: str) -> Channels:
    """The parameters of a weight quantized per tensor or per axis along `axis`."""
    q = qparams(value)
    if q is None:
        raise ValueError(f"{role} is {value.type}, not a !tgr.quant tensor (mixed float/int8 operands)")
    if q.dtype.itemsize != 1:
        raise ValueError(f"{role} is stored as {q.dtype}; int8 kernels take 8-bit weights")
    if q.per_tensor:
        scales, zps = np.full(channels, q.scales[0]), np.full(channels, q.zero_points[0], np.int64)
    elif q.axis != axis or len(q.scales) != channels:
        found = f"{role} is quantized along axis {q.axis} ({len(q.scales)} scales)"
        raise ValueError(f"{found}; expected axis {axis} ({channels})")
    else:
        scales, zps = np.asarray(q.scales, np.float64), np.asarray(q.zero_points, np.int64)
    widest = max(arith.max_offset(int(z), q.qmin, q.qmax) for z in zps) if zps.size else 0
    return Channels(scales, zps, widest)


def weight_channels(op: Operation) -> Channels:
    """The output channels of a conv-family or fully_connected weight, in whichever
    `weight_layout` it is stored."""
    assert isinstance(op, win.WeightedOp)
    channels = op.onnx_weight_shape()[0]
    return channel_q(op.operands[1], op.weight_channel_axis(), channels, "weight")


def conv_transpose_channels(op: Operation) -> Channels:
    """A conv_transpose weight's parameters for all O output channels: ONNX's O/g per-channel
    values (axis 1) repeated per group, or the O of the "ohwi" layout (axis 0)."""
    assert isinstance(op, win.ConvTransposeOp)
    group = op.groups()
    if win.layout_of(op) is None:
        ch = channel_q(op.weight, 1, op.onnx_weight_shape()[1], "weight")
        ch = Channels(np.tile(ch.scales, group), np.tile(ch.zero_points, group), ch.max_offset)
    else:
        ch = channel_q(op.weight, 0, op.onnx_weight_shape()[1] * group, "weight")
    if group != 1 and (len(set(ch.scales.tolist())) > 1 or len(set(ch.zero_points.tolist())) > 1):
        raise ValueError("per-channel weights of a grouped transposed convolution are not supported")
    return ch


def mean_axes(op: Operation) -> tuple[int, ...]:
    """The axes global_avg_pool / reduce_mean average over, normalized and sorted (may be empty)."""
    rank = len(shape_of(op.operands[0]))
    if isinstance(op, win.GlobalAvgPoolOp):
        return tuple(range(2, rank))
    return tuple(sorted({a % rank for a in ints(op, "axes") or []}))


def _str_prop(op: Operation, name: str, default: str) -> str:
    attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else default


def _float_prop(op: Operation, name: str) -> float | None:
    attr = op.properties.get(name)
    return float(np.float32(attr.value.data)) if isinstance(attr, FloatAttr) else None


# -- the parameters ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Int8Params:
    """What an int8 kernel needs besides tensors and their parameters (see the module docstring).
    `compute-quant-scales` writes each present field as the attribute `tgr.<field>`."""

    requant_scales: np.ndarray | None = None  # float32
    table: np.ndarray | None = None  # int8 or uint8, 256 entries
    act_range: tuple[int, int] | None = None
    pad_value: int | None = None


def _bias_max(op: Operation) -> int:
    """Largest |bias| of a dense op (0 without a constant bias)."""
    bias = constant_array(op.operands[2]) if len(op.operands) > 2 else None
    return int(np.max(np.abs(np.asarray(bias, np.int64)), initial=0)) if bias is not None else 0


def _dense(
    op: Operation, x_role: str, taps: int, weights: Channels, activation: str = "none"
) -> Int8Params:
    """requant_scales and act_range of a dense op, after checking its accumulators fit int32."""
    xq = tensor_q(op.operands[0], x_role)
    yq = tensor_q(op.results[0], "result")
    max_bias = _bias_max(op)
    if not arith.dense_accumulator_fits(taps, xq.max_offset(), weights.max_offset, max_bias):
        raise ValueError(
            f"the int32 accumulator may overflow: {taps} taps x |x - zp| <= {xq.max_offset()} x "
            f"|w - zp| <= {weights.max_offset} + |bias| <= {max_bias} exceeds {arith.INT32_MAX}"
        )
    return Int8Params(
        requant_scales=arith.accumulator_scales(xq.scale, weights.scales, yq.scale),
        act_range=arith.activation_range(activation, yq.scale, yq.zp, yq.qmin, yq.qmax),
    )


def dense_params(op: Operation) -> Int8Params:
    """conv, depthwise_conv, conv1d, fully_connected (taps: the weight's elements per channel)."""
    assert isinstance(op, win.WeightedOp)
    taps = math.prod(op.onnx_weight_shape()[1:])
    return _dense(op, "input", taps, weight_channels(op), _str_prop(op, "fused_activation", "none"))


def conv_transpose_params(op: Operation) -> Int8Params:
    """An output sums over C/group input channels and the kernel's taps."""
    assert isinstance(op, win.ConvTransposeOp)
    shape = op.onnx_weight_shape()
    return _dense(op, "input", shape[0] // op.groups() * math.prod(shape[2:]), conv_transpose_channels(op))


def matmul_params(op: Operation) -> Int8Params:
    """Per column j of the right operand (taps: the shared dimension)."""
    b = shape_of(op.operands[1])
    return _dense(op, "lhs", b[-2], channel_q(op.operands[1], len(b) - 1, b[-1], "rhs"))


def float_path_params(op: Operation) -> Int8Params:
    """Ops whose formula reads only their tensors' parameters (float path, moves): checked to be
    8-bit per tensor."""
    for i, value in enumerate(op.operands):
        tensor_q(value, f"operand {i}")
    tensor_q(op.results[0], "result")
    return Int8Params()


def mean_params(op: Operation) -> Int8Params:
    """avg_pool, global_avg_pool, reduce_mean: the summed count must keep the int32 sum exact."""
    if isinstance(op, win.AvgPoolOp):
        count = math.prod(ints(op, "kernel_shape") or [1])
    else:
        x = shape_of(op.operands[0])
        count = math.prod(x[a] for a in mean_axes(op))
    if count > arith.MEAN_MAX_COUNT:
        limit = arith.MEAN_MAX_COUNT
        raise ValueError(f"a mean of {count} elements may overflow the int32 sum (at most {limit})")
    return float_path_params(op)


def resize_params(op: Operation) -> Int8Params:
    if _str_prop(op, "mode", "nearest") != "nearest":
        raise ValueError("no int8 kernel for linear resize (nearest only)")
    return float_path_params(op)


def pad_params(op: Operation) -> Int8Params:
    """The constant pad value quantized at the result's parameters: a padded element is
    quantize(value), whatever the input's parameters."""
    float_path_params(op)
    yq = tensor_q(op.results[0], "result")
    value = _float_prop(op, "value") or 0.0
    return Int8Params(pad_value=arith.quantize_scalar(value, yq.pair, yq.qmin, yq.qmax))


_TABLES: dict[type[Operation], tuple[str, Mapping[str, str]]] = {
    ew.ReluOp: ("relu", {}),
    ew.Relu6Op: ("relu6", {}),
    ew.SigmoidOp: ("sigmoid", {}),
    ew.TanhOp: ("tanh", {}),
    ew.HardSwishOp: ("hard_swish", {}),
    ew.LeakyReluOp: ("leaky_relu", {"alpha": "alpha"}),
    ew.ClipOp: ("clip", {"min": "min", "max": "max"}),
    onnx_ew.SwishOp: ("swish", {"alpha": "alpha"}),
    onnx_ew.SiluOp: ("swish", {}),
    un.NegOp: ("neg", {}),
    un.AbsOp: ("abs", {}),
    un.ExpOp: ("exp", {}),
    un.LogOp: ("log", {}),
    un.SqrtOp: ("sqrt", {}),
    un.ReciprocalOp: ("reciprocal", {}),
    un.EluOp: ("elu", {"alpha": "alpha"}),
    un.SeluOp: ("selu", {"alpha": "alpha", "gamma": "gamma"}),
    un.SoftplusOp: ("softplus", {}),
    un.SoftsignOp: ("softsign", {}),
    un.ErfOp: ("erf", {}),
    un.HardSigmoidOp: ("hard_sigmoid", {"alpha": "alpha", "beta": "beta"}),
    un.SignOp: ("sign", {}),
    un.ShrinkOp: ("shrink", {"lambd": "lambd", "bias": "bias"}),
    un.PowOp: ("pow", {"exponent": "exponent"}),
    un.SiluOp: ("swish", {}),
}
"""Element-wise activations computed by lookup: the `arith.activation_function` name and which
float properties (absent: the activation's default) give its attributes."""


@functools.lru_cache(maxsize=512)
def _table(
    name: str,
    in_q: tuple[float, int],
    out_q: tuple[float, int],
    in_range: tuple[int, int],
    out_range: tuple[int, int],
    attrs: tuple[tuple[str, float], ...],
) -> np.ndarray:
    table = arith.activation_table(name, in_q, out_q, in_range, out_range, **dict(attrs))
    table.setflags(write=False)
    return table


def table_params(op: Operation) -> Int8Params:
    """The 256-entry table of the op's activation between its input and result parameters."""
    name, attr_props = _TABLES[type(op)] if not isinstance(op, un.GeluOp) else (_gelu_name(op), {})
    xq = tensor_q(op.operands[0], "input")
    yq = tensor_q(op.results[0], "result")
    attrs = []
    for key, prop in attr_props.items():
        value = _float_prop(op, prop)
        if value is not None:  # absent: the activation's default (or unbounded, for clip)
            attrs.append((key, value))
    return Int8Params(table=_table(name, xq.pair, yq.pair, xq.range, yq.range, tuple(attrs)))


def _gelu_name(op: un.GeluOp) -> str:
    """tgr.gelu's table: the erf form, or the tanh form for approximate = "tanh"."""
    return "gelu_tanh" if op.approximate.data == "tanh" else "gelu"


PARAMS: dict[type[Operation], Callable[[Operation], Int8Params]] = {
    win.ConvOp: dense_params,
    win.DepthwiseConvOp: dense_params,
    win.Conv1dOp: dense_params,
    win.FullyConnectedOp: dense_params,
    win.ConvTransposeOp: conv_transpose_params,
    win.MatMulOp: matmul_params,
    ew.AddOp: float_path_params,
    ew.SubOp: float_path_params,
    ew.MulOp: float_path_params,
    ew.DivOp: float_path_params,
    bi.PReluOp: float_path_params,
    bi.MaxOp: float_path_params,
    bi.MinOp: float_path_params,
    ew.SoftmaxOp: float_path_params,
    win.GlobalAvgPoolOp: mean_params,
    sh.ReduceMeanOp: mean_params,
    win.AvgPoolOp: mean_params,
    win.MaxPoolOp: float_path_params,
    win.GlobalMaxPoolOp: float_path_params,
    sh.ReshapeOp: float_path_params,
    sh.FlattenOp: float_path_params,
    sh.SqueezeOp: float_path_params,
    sh.UnsqueezeOp: float_path_params,
    sh.TransposeOp: float_path_params,
    mv.SliceOp: float_path_params,
    mv.GatherOp: float_path_params,
    mv.TileOp: float_path_params,
    sh.ConcatOp: float_path_params,
    sh.ResizeOp: resize_params,
    sh.PadOp: pad_params,
    **{op_type: table_params for op_type in (*_TABLES, un.GeluOp)},
}
"""Every op with an int8 kernel and the function computing its parameters."""


def has_int8_kernel(op: Operation) -> bool:
    return type(op) in PARAMS


def int8_params(op: Operation) -> Int8Params:
    """The numbers `op`'s int8 kernel needs (ValueError saying why when its types allow none)."""
    compute = PARAMS.get(type(op))
    if compute is None:
        raise ValueError("no int8 kernel: quantized (!tgr.quant) tensors are not supported by this op")
    return compute(op)


_COMPUTING_ONNX_OPS = (onnx_t.ResizeOp, onnx_t.UpsampleOp)
"""`onnx` ops that may still be present when fold-qdq runs and compute (linear resize) rather than
move values; every other `onnx` op left then moves values or becomes a `tgr` op with an int8 kernel."""


def folds_to_int8(op: Operation) -> bool:
    """Whether `op` in its int8 form (quantized types in place) has int8 semantics, so fold-qdq
    may fold the conversions around it; otherwise it stays in float between tgr.dequantize and
    tgr.quantize, as a QDQ model means it anyway (mixed precision)."""
    if op.dialect_name() == "onnx":
        return not isinstance(op, _COMPUTING_ONNX_OPS) or _str_prop(op, "mode", "nearest") == "nearest"
    try:
        int8_params(op)
    except ValueError:
        return False
    return True
