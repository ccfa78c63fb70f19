"""The integer parameters of every int8 kernel, derived once per op from its `!tgr.quant` types.

`int8_params(op)` is the one place these numbers are computed: the interpreter's int8 kernels
(tgr_int8) call it on every run, and the `compute-quant-scales` pass calls it once to attach the
same values to the op for the emitter and the device, so host and device agree bit for bit.
The only float arithmetic on scales happens here, through quant_math's builders (what TFLite's
Prepare does); the kernels that use the results are integer-only.

    op kind                                   fields of `Int8Params`
    conv, depthwise_conv, conv1d,             multipliers, shifts (per output channel, of
      fully_connected                           s_x s_w[c] / s_y), act_range (fused activation)
    conv_transpose, matmul                    multipliers, shifts (per output channel / column),
                                                act_range (the storage range)
    add, sub                                  add_params (left shift, m1, s1, m2, s2, m_out, s_out),
                                                act_range
    mul                                       multipliers, shifts (one: s_1 s_2 / s_y), act_range
    global_avg_pool, reduce_mean              multipliers, shifts (one: s_x / (s_y count)), act_range
    max_pool, avg_pool, global_max, resize,   multipliers, shifts (one: s_x / s_y), act_range, only
      reshape, flatten, squeeze, unsqueeze,     when the result's parameters differ from the input's
      transpose                                 (else no field: the op moves stored values)
    concat                                    multipliers, shifts (one per input), act_range, when
                                                any input differs; an input at the result's
                                                parameters has M(1.0) = (2**30, 1), the identity
    pad                                       pad_value (the stored pad value), and as resize
    relu, relu6, clip, leaky_relu, sigmoid,   table (256 entries, the result's storage type)
      tanh, hard_swish (onnx Swish, Silu)

A multiplier/shift pair is quant_math's (Q0.31 multiplier in [2**30, 2**31), shift in
[-31, 30], > 0 a left shift; see `quant_math.quantize_multiplier`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from tigris.dialects.interpreter import quant_math as qm
from tigris.dialects.interpreter.values import fail, float_prop, ints, str_prop
from tigris.dialects.onnx import ops_elementwise as onnx_ew
from tigris.dialects.tgr import ops_elementwise as ew
from tigris.dialects.tgr import ops_shape as sh
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

    def same_as(self, other: QParams) -> bool:
        return self == other


def qparams(value: SSAValue) -> QParams | None:
    type_ = value.type
    if isinstance(type_, TensorType) and isinstance(type_.element_type, QuantType):
        return QParams.of(type_.element_type)
    return None


def tensor_q(op: Operation, value: SSAValue, role: str) -> QParams:
    """Per-tensor parameters of an activation (or of a weight read like one)."""
    q = qparams(value)
    if q is None:
        raise fail(op, f"{role} is {value.type}, not a !tgr.quant tensor (mixed float/int8 operands)")
    if not q.per_tensor:
        raise fail(op, f"{role} has per-axis parameters (axis {q.axis}); this kernel needs per-tensor ones")
    if q.dtype.itemsize != 1:
        raise fail(op, f"{role} is stored as {q.dtype}; int8 kernels take 8-bit tensors")
    return q


def channel_q(
    op: Operation, value: SSAValue, axis: int, channels: int, role: str
) -> tuple[np.ndarray, np.ndarray]:
    """(scales float64 [channels], zero points int64 [channels]) of a weight quantized per tensor
    or per axis along `axis`."""
    q = qparams(value)
    if q is None:
        raise fail(op, f"{role} is {value.type}, not a !tgr.quant tensor (mixed float/int8 operands)")
    if q.dtype.itemsize != 1:
        raise fail(op, f"{role} is stored as {q.dtype}; int8 kernels take 8-bit weights")
    if q.per_tensor:
        return np.full(channels, q.scales[0]), np.full(channels, q.zero_points[0], np.int64)
    if q.axis != axis or len(q.scales) != channels:
        found = f"{role} is quantized along axis {q.axis} ({len(q.scales)} scales)"
        raise fail(op, f"{found}; expected axis {axis} ({channels})")
    return np.asarray(q.scales, np.float64), np.asarray(q.zero_points, np.int64)


def weight_channels(op: Operation) -> tuple[np.ndarray, np.ndarray]:
    """Per-output-channel (scales, zero points) of a conv-family or fully_connected weight, in
    whichever `weight_layout` it is stored."""
    assert isinstance(op, win.WeightedOp)
    channels = op.onnx_weight_shape()[0]
    return channel_q(op, op.operands[1], op.weight_channel_axis(), channels, "weight")


def conv_transpose_channels(op: Operation) -> tuple[np.ndarray, np.ndarray]:
    """(scales, zero points) of a conv_transpose weight for all O output channels: ONNX's O/g
    per-channel values (axis 1) repeated per group, or the O of the "ohwi" layout (axis 0)."""
    assert isinstance(op, win.ConvTransposeOp)
    group = op.groups()
    if win.layout_of(op) is None:
        scales, zps = channel_q(op, op.weight, 1, op.onnx_weight_shape()[1], "weight")
        scales, zps = np.tile(scales, group), np.tile(zps, group)
    else:
        scales, zps = channel_q(op, op.weight, 0, op.onnx_weight_shape()[1] * group, "weight")
    if group != 1 and (len(set(scales.tolist())) > 1 or len(set(zps.tolist())) > 1):
        raise fail(op, "per-channel weights of a grouped transposed convolution are not supported")
    return scales, zps


def mean_axes(op: Operation) -> tuple[int, ...]:
    """The axes global_avg_pool / reduce_mean average over, normalized and sorted (may be empty)."""
    rank = len(_shape(op.operands[0]))
    if isinstance(op, win.GlobalAvgPoolOp):
        return tuple(range(2, rank))
    return tuple(sorted({a % rank for a in ints(op, "axes") or []}))


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


# -- the parameters ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Int8Params:
    """What an int8 kernel needs besides tensors and zero points (see the module docstring).
    `compute-quant-scales` writes each present field as the attribute `tgr.<field>`."""

    multipliers: np.ndarray | None = None  # int32
    shifts: np.ndarray | None = None  # int32
    add_params: tuple[int, ...] | None = None
    table: np.ndarray | None = None  # int8 or uint8, 256 entries
    act_range: tuple[int, int] | None = None
    pad_value: int | None = None


def requant_pair(src: QParams, dst: QParams) -> tuple[int, int] | None:
    """(multiplier, shift) moving stored values from `src` to `dst` parameters; None when equal."""
    return None if src.same_as(dst) else qm.quantize_multiplier(src.scale / dst.scale)


def _requant(pair: tuple[int, int] | None, y: QParams) -> Int8Params:
    if pair is None:
        return Int8Params()
    return Int8Params(*_arrays([pair[0]], [pair[1]]), act_range=y.range)


def _arrays(multipliers: object, shifts: object) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(multipliers, np.int64).astype(np.int32), np.asarray(shifts, np.int64).astype(np.int32)


def dense_params(op: Operation) -> Int8Params:
    """conv, depthwise_conv, conv1d, fully_connected: M(s_x s_w[c] / s_y) per output channel."""
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    w_scales, _ = weight_channels(op)
    activation = str_prop(op, "fused_activation", "none")
    return Int8Params(
        *qm.quantize_multipliers(xq.scale * w_scales / yq.scale),
        act_range=qm.activation_range(activation, yq.scale, yq.zp, yq.qmin, yq.qmax),
    )


def conv_transpose_params(op: Operation) -> Int8Params:
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    w_scales, _ = conv_transpose_channels(op)
    return Int8Params(*qm.quantize_multipliers(xq.scale * w_scales / yq.scale), act_range=yq.range)


def matmul_params(op: Operation) -> Int8Params:
    """M(s_a s_b[j] / s_y) per column j of the right operand."""
    aq = tensor_q(op, op.operands[0], "lhs")
    yq = tensor_q(op, op.results[0], "result")
    b = _shape(op.operands[1])
    b_scales, _ = channel_q(op, op.operands[1], len(b) - 1, b[-1], "rhs")
    return Int8Params(*qm.quantize_multipliers(aq.scale * b_scales / yq.scale), act_range=yq.range)


def add_sub_params(op: Operation) -> Int8Params:
    q1 = tensor_q(op, op.operands[0], "lhs")
    q2 = tensor_q(op, op.operands[1], "rhs")
    yq = tensor_q(op, op.results[0], "result")
    (m1, s1), (m2, s2), (mo, so) = qm.add_params(q1.scale, q2.scale, yq.scale)
    return Int8Params(add_params=(qm.ADD_LEFT_SHIFT, m1, s1, m2, s2, mo, so), act_range=yq.range)


def mul_params(op: Operation) -> Int8Params:
    q1 = tensor_q(op, op.operands[0], "lhs")
    q2 = tensor_q(op, op.operands[1], "rhs")
    yq = tensor_q(op, op.results[0], "result")
    multiplier, shift = qm.quantize_multiplier(q1.scale * q2.scale / yq.scale)
    return Int8Params(*_arrays([multiplier], [shift]), act_range=yq.range)


def mean_params(op: Operation) -> Int8Params:
    """TFLite MEAN: M(s_x / (s_y count)); no reduced axis reduces nothing (a requantization)."""
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    axes = mean_axes(op)
    if not axes:
        return _requant(requant_pair(xq, yq), yq)
    count = math.prod(_shape(op.operands[0])[a] for a in axes)
    multiplier, shift = qm.quantize_multiplier(xq.scale / (yq.scale * count))
    return Int8Params(*_arrays([multiplier], [shift]), act_range=yq.range)


def requant_params(op: Operation) -> Int8Params:
    """Ops that move stored values (pools pick or average them first): requantized when the
    result's parameters differ from the input's."""
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    return _requant(requant_pair(xq, yq), yq)


def resize_params(op: Operation) -> Int8Params:
    if str_prop(op, "mode", "nearest") != "nearest":
        raise fail(op, "no int8 kernel for linear resize (nearest only)")
    return requant_params(op)


def concat_params(op: Operation) -> Int8Params:
    yq = tensor_q(op, op.results[0], "result")
    pairs = [requant_pair(tensor_q(op, v, f"input {i}"), yq) for i, v in enumerate(op.operands)]
    if all(p is None for p in pairs):
        return Int8Params()
    identity = qm.quantize_multiplier(1.0)
    full = [identity if p is None else p for p in pairs]
    return Int8Params(*_arrays([m for m, _ in full], [s for _, s in full]), act_range=yq.range)


def pad_params(op: Operation) -> Int8Params:
    """A constant pad value quantized at the input's parameters (half away from zero), clamped."""
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    value = float(float_prop(op, "value", 0.0))  # type: ignore[arg-type]
    stored = min(max(qm.round_half_away(value / xq.scale) + xq.zp, xq.qmin), xq.qmax)
    moved = _requant(requant_pair(xq, yq), yq)
    return Int8Params(moved.multipliers, moved.shifts, act_range=moved.act_range, pad_value=stored)


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
}
"""Element-wise activations computed by lookup: the `quant_math.activation_function` name and
which float properties (absent: the activation's default) give its attributes."""


@functools.lru_cache(maxsize=512)
def _table(
    name: str,
    in_q: tuple[float, int],
    out_q: tuple[float, int],
    in_range: tuple[int, int],
    out_range: tuple[int, int],
    attrs: tuple[tuple[str, float], ...],
) -> np.ndarray:
    table = qm.activation_table_int8(name, in_q, out_q, in_range, out_range, **dict(attrs))  # type: ignore[arg-type]
    table.setflags(write=False)
    return table


def table_params(op: Operation) -> Int8Params:
    """The 256-entry table of the op's activation between its input and result parameters."""
    name, attr_props = _TABLES[type(op)]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    attrs = []
    for key, prop in attr_props.items():
        value = float_prop(op, prop)
        if value is not None:  # absent: the activation's default (or unbounded, for clip)
            attrs.append((key, float(value)))
    return Int8Params(table=_table(name, xq.pair, yq.pair, xq.range, yq.range, tuple(attrs)))


PARAMS: dict[type[Operation], Callable[[Operation], Int8Params]] = {
    win.ConvOp: dense_params,
    win.DepthwiseConvOp: dense_params,
    win.Conv1dOp: dense_params,
    win.FullyConnectedOp: dense_params,
    win.ConvTransposeOp: conv_transpose_params,
    win.MatMulOp: matmul_params,
    ew.AddOp: add_sub_params,
    ew.SubOp: add_sub_params,
    ew.MulOp: mul_params,
    win.GlobalAvgPoolOp: mean_params,
    sh.ReduceMeanOp: mean_params,
    win.MaxPoolOp: requant_params,
    win.AvgPoolOp: requant_params,
    win.GlobalMaxPoolOp: requant_params,
    sh.ReshapeOp: requant_params,
    sh.FlattenOp: requant_params,
    sh.SqueezeOp: requant_params,
    sh.UnsqueezeOp: requant_params,
    sh.TransposeOp: requant_params,
    sh.ResizeOp: resize_params,
    sh.ConcatOp: concat_params,
    sh.PadOp: pad_params,
    **{op_type: table_params for op_type in _TABLES},
}
"""Every op with an int8 kernel and the function computing its parameters."""


def has_int8_kernel(op: Operation) -> bool:
    return type(op) in PARAMS


def int8_params(op: Operation) -> Int8Params:
    """The integer parameters of `op`'s int8 kernel (InterpretationError naming the op when its
    types do not allow one; ValueError from quant_math for unrepresentable scales)."""
    compute = PARAMS.get(type(op))
    if compute is None:
        raise fail(op, "no int8 kernel: quantized (!tgr.quant) tensors are not supported by this op")
    return compute(op)
