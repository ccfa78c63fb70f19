"""int8 semantics of `tgr` ops: TFLite's reference int8 kernels, integer-only.

An op with `!tgr.quant` operands or results is dispatched here by the `@int8_kernel(...)`
decorator on its float implementation (tgr_window.py, tgr_misc.py, and the few `onnx` ops that
carry int8 tensors between fold-qdq and their own pass: Swish/Silu, Resize, reshapes). Each
function below reads the op's quantization parameters from its types, derives the integer
parameters once (multipliers and shifts, activation ranges, lookup tables: the only float
arithmetic, "compile time", via quant_math), and runs the integer kernel (kernels_int8).

What each op computes (s = scale, zp = zero point, M(r) = quantize_multiplier(r)):
- conv, depthwise_conv, conv1d, conv_transpose, fully_connected, matmul:
  acc = sum (x - zp_x)(w - zp_w[c]) + bias_i32[c]; y = clamp(zp_y + MBQM(acc, M(s_x s_w[c] / s_y)))
  in the storage range narrowed by `fused_activation`. Padding holds zp_x.
- add/sub: TFLite's AddElementwise (inputs scaled up by 2**20); mul: MBQM((x1 - zp1)(x2 - zp2)).
- max_pool/global_max: the max of stored values; avg_pool: TFLite's rounded integer average;
  global_avg_pool/reduce_mean: TFLite MEAN, MBQM(sum(x - zp), M(s_in / (s_out count))).
- relu, relu6, clip, leaky_relu, sigmoid, tanh, hard_swish (and onnx Swish/Silu): a 256-entry
  table from `quant_math.activation_table_int8`.
- concat, pad, resize (nearest), reshape, flatten, squeeze, unsqueeze, transpose: move stored
  values; an input whose parameters differ from the result's is requantized with MBQM.
Other ops (softmax, div, batch_norm, instance_norm, linear resize) raise InterpretationError.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.interpreter import kernels_int8 as k8
from tigris.dialects.interpreter import kernels_resample as kr
from tigris.dialects.interpreter import kernels_window as kw
from tigris.dialects.interpreter import quant_math as qm
from tigris.dialects.interpreter.values import (
    fail,
    float_prop,
    int_prop,
    ints,
    optional,
    quantized_types,
    result_shape,
    storage_passthrough,
    str_prop,
)
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.weight import numpy_dtype

Kernel = Callable[[Operation, tuple[Any, ...]], tuple[Any, ...]]

NHWC_TO_NCHW = (0, 2, 3, 1)

BIAS_SCALE_RTOL = 1e-5
"""A bias scale must be s_x * s_w[c] to this relative tolerance (ORT computes it in float32)."""


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


def channel_q(op: Operation, value: SSAValue, axis: int, channels: int, role: str) -> tuple[np.ndarray, np.ndarray]:
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
        raise fail(
            op, f"{role} is quantized along axis {q.axis} ({len(q.scales)} scales); expected axis {axis} ({channels})"
        )
    return np.asarray(q.scales, np.float64), np.asarray(q.zero_points, np.int64)


def bias_i32(op: Operation, args: Sequence[Any], x_scale: float, w_scales: np.ndarray) -> np.ndarray | None:
    """The int32 bias, checked to be at scale s_x * s_w[c] with zero point 0 (TFLite's contract)."""
    value = optional(op, args, "bias")
    if value is None:
        return None
    operand = op.operands[2]
    q = qparams(operand)
    if q is None or q.dtype != np.dtype(np.int32):
        raise fail(op, f"bias is {operand.type}; an int8 op needs an int32 !tgr.quant bias")
    if any(z != 0 for z in q.zero_points):
        raise fail(op, "bias zero points must be 0")
    want = x_scale * w_scales
    have = np.broadcast_to(np.asarray(q.scales, np.float64), want.shape)
    if not np.allclose(have, want, rtol=BIAS_SCALE_RTOL, atol=0):
        worst = int(np.argmax(np.abs(have / want - 1)))
        raise fail(
            op, f"bias scale {float(have[worst])!r} of channel {worst} is not input scale * weight scale {float(want[worst])!r}"
        )
    return np.asarray(value, np.int64)


# -- dispatch and results ------------------------------------------------------------------------


def out_int8(op: Operation, *values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Integer results as the op's storage dtypes, checked against the declared shapes and ranges."""
    results: list[np.ndarray] = []
    for index, value in enumerate(values):
        array = np.asarray(value)
        want = result_shape(op, index)
        if array.shape != want:
            raise fail(op, f"computed shape {array.shape} but result {index} is typed {want}")
        if array.dtype.kind not in "iu":
            raise fail(op, f"int8 kernel produced {array.dtype} values")
        q = qparams(op.results[index])
        assert q is not None
        if array.size and (int(array.min()) < q.qmin or int(array.max()) > q.qmax):
            raise fail(op, f"int8 kernel result leaves the {q.dtype} range")
        results.append(array.astype(q.dtype, copy=False))
    return tuple(results)


def int8_kernel(kernel: Kernel) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a float `@impl` method: ops with `!tgr.quant` tensors run `kernel(op, args)` instead.

    Put it below `@impl(...)`. Kernel ValueErrors become InterpretationErrors naming the op."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def run(self: Any, interpreter: Any, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
            if not quantized_types(op):
                return method(self, interpreter, op, args)
            try:
                return kernel(op, tuple(np.asarray(a) for a in args))
            except InterpretationError:
                raise
            except ValueError as e:
                raise fail(op, str(e)) from None

        return run

    return wrap


def no_int8(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    raise fail(op, "no int8 kernel: quantized (!tgr.quant) tensors are not supported by this op")


def _requantized(x: np.ndarray, src: QParams, dst: QParams) -> np.ndarray:
    """Stored values moved from `src` to `dst` parameters (unchanged when they agree)."""
    if src.same_as(dst):
        return np.asarray(x)
    multiplier, shift = qm.quantize_multiplier(src.scale / dst.scale)
    return k8.rescale(x, src.zp, multiplier, shift, dst.zp, dst.qmin, dst.qmax)


def _window(op: Operation, rank: int) -> tuple[list[int], list[int], list[int]]:
    strides = ints(op, "strides", [1] * rank)
    dilations = ints(op, "dilations", [1] * rank)
    pads = ints(op, "pads", [0] * (2 * rank))
    assert strides is not None and dilations is not None and pads is not None
    return strides, dilations, pads


def _output_range(op: Operation, y: QParams) -> tuple[int, int]:
    return qm.activation_range(str_prop(op, "fused_activation", "none"), y.scale, y.zp, y.qmin, y.qmax)


# -- convolutions and dense layers ---------------------------------------------------------------


def conv(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.conv, tgr.depthwise_conv, tgr.conv1d (weight [O, C/group, *K], per channel on axis 0)."""
    x, w = args[0], args[1]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    w_scales, w_zps = channel_q(op, op.operands[1], 0, w.shape[0], "weight")
    bias = bias_i32(op, args, xq.scale, w_scales)
    strides, dilations, pads = _window(op, x.ndim - 2)
    group = op.groups()  # type: ignore[attr-defined]
    acc = k8.conv_accumulate(x, xq.zp, w, w_zps, bias, strides, dilations, pads, group)
    multipliers, shifts = qm.quantize_multipliers(xq.scale * w_scales / yq.scale)
    lo, hi = _output_range(op, yq)
    return out_int8(op, k8.requantize(acc, multipliers, shifts, yq.zp, lo, hi, axis=1))


def conv_transpose(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.conv_transpose (weight [C, O/group, *K], per channel on axis 1 when group = 1)."""
    x, w = args[0], args[1]
    group = int_prop(op, "group", 1) or 1
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    w_scales, w_zps = channel_q(op, op.operands[1], 1, w.shape[1], "weight")
    if group != 1 and (len(set(w_scales.tolist())) > 1 or len(set(w_zps.tolist())) > 1):
        raise fail(op, "per-channel weights of a grouped transposed convolution are not supported")
    w_scales, w_zps = np.tile(w_scales, group), np.tile(w_zps, group)
    bias = bias_i32(op, args, xq.scale, w_scales)
    rank = x.ndim - 2
    strides, dilations, pads = _window(op, rank)
    output_padding = ints(op, "output_padding", [0] * rank)
    assert output_padding is not None
    acc = k8.conv_transpose_accumulate(
        x, xq.zp, w, w_zps[: w.shape[1]], bias, strides, dilations, pads, output_padding, group
    )
    multipliers, shifts = qm.quantize_multipliers(xq.scale * w_scales / yq.scale)
    return out_int8(op, k8.requantize(acc, multipliers, shifts, yq.zp, yq.qmin, yq.qmax, axis=1))


def fully_connected(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.fully_connected: x [N, K], weight [M, K] (per channel on axis 0), bias [M]."""
    x, w = args[0], args[1]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    w_scales, w_zps = channel_q(op, op.operands[1], 0, w.shape[0], "weight")
    bias = bias_i32(op, args, xq.scale, w_scales)
    acc = k8.matmul_accumulate(x, xq.zp, w.T, w_zps, bias)
    multipliers, shifts = qm.quantize_multipliers(xq.scale * w_scales / yq.scale)
    lo, hi = _output_range(op, yq)
    return out_int8(op, k8.requantize(acc, multipliers, shifts, yq.zp, lo, hi, axis=acc.ndim - 1))


def matmul(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.matmul: int8 x int8; the right operand may be per channel along its last axis."""
    a, b = args[0], args[1]
    aq = tensor_q(op, op.operands[0], "lhs")
    yq = tensor_q(op, op.results[0], "result")
    b_scales, b_zps = channel_q(op, op.operands[1], b.ndim - 1, b.shape[-1], "rhs")
    acc = k8.matmul_accumulate(a, aq.zp, b, b_zps)
    multipliers, shifts = qm.quantize_multipliers(aq.scale * b_scales / yq.scale)
    return out_int8(op, k8.requantize(acc, multipliers, shifts, yq.zp, yq.qmin, yq.qmax, axis=acc.ndim - 1))


# -- element-wise ----------------------------------------------------------------------------------


def _add_or_sub(op: Operation, args: tuple[Any, ...], subtract: bool) -> tuple[Any, ...]:
    q1 = tensor_q(op, op.operands[0], "lhs")
    q2 = tensor_q(op, op.operands[1], "rhs")
    yq = tensor_q(op, op.results[0], "result")
    params = qm.add_params(q1.scale, q2.scale, yq.scale)
    y = k8.add(args[0], q1.zp, args[1], q2.zp, params, yq.zp, yq.qmin, yq.qmax, subtract=subtract)
    return out_int8(op, y)


def add(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return _add_or_sub(op, args, subtract=False)


def sub(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return _add_or_sub(op, args, subtract=True)


def mul(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    q1 = tensor_q(op, op.operands[0], "lhs")
    q2 = tensor_q(op, op.operands[1], "rhs")
    yq = tensor_q(op, op.results[0], "result")
    multiplier, shift = qm.quantize_multiplier(q1.scale * q2.scale / yq.scale)
    return out_int8(op, k8.mul(args[0], q1.zp, args[1], q2.zp, multiplier, shift, yq.zp, yq.qmin, yq.qmax))


@functools.lru_cache(maxsize=512)
def _table(
    name: str, in_q: tuple[float, int], out_q: tuple[float, int], in_range: tuple[int, int],
    out_range: tuple[int, int], attrs: tuple[tuple[str, float], ...],
) -> np.ndarray:
    table = qm.activation_table_int8(name, in_q, out_q, in_range, out_range, **dict(attrs))  # type: ignore[arg-type]
    table.setflags(write=False)
    return table


def lut(name: str, **attr_props: str) -> Kernel:
    """The kernel of an element-wise activation: a lookup table built from the op's in/out params.
    `attr_props` maps table attributes (alpha, min, max) to the op's float property names."""

    def kernel(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        xq = tensor_q(op, op.operands[0], "input")
        yq = tensor_q(op, op.results[0], "result")
        attrs = []
        for key, prop in attr_props.items():
            value = float_prop(op, prop)
            if value is not None:  # absent: the activation's default (or unbounded, for clip)
                attrs.append((key, float(value)))
        table = _table(name, xq.pair, yq.pair, xq.range, yq.range, tuple(attrs))
        return out_int8(op, k8.lookup(args[0], table, xq.qmin))

    return kernel


# -- pools and reductions --------------------------------------------------------------------------


def max_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    x = args[0]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    kernel = ints(op, "kernel_shape")
    assert kernel is not None
    strides, dilations, pads = _window(op, x.ndim - 2)
    ceil = int_prop(op, "ceil_mode", 0) == 1
    pooled = kw.pool(x, "max", kernel, strides, dilations, pads, ceil)  # integer max; pads never win
    return out_int8(op, _requantized(pooled, xq, yq))


def avg_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    x = args[0]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    kernel = ints(op, "kernel_shape")
    assert kernel is not None
    strides, dilations, pads = _window(op, x.ndim - 2)
    ceil = int_prop(op, "ceil_mode", 0) == 1
    include = int_prop(op, "count_include_pad", 0) == 1
    average = k8.avg_pool(x, xq.zp, kernel, strides, dilations, pads, ceil, include)
    return out_int8(op, _requantized(average, xq, yq))


def _mean(op: Operation, x: np.ndarray, axes: Sequence[int], keepdims: bool) -> tuple[Any, ...]:
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    count = int(np.prod([x.shape[a] for a in axes]))
    multiplier, shift = qm.quantize_multiplier(xq.scale / (yq.scale * count))
    return out_int8(op, k8.mean(x, xq.zp, axes, keepdims, multiplier, shift, yq.zp, yq.qmin, yq.qmax))


def global_avg_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    x = args[0]
    return _mean(op, x, tuple(range(2, x.ndim)), True)


def reduce_mean(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    x = args[0]
    axes = ints(op, "axes") or []
    if not axes:  # reduces nothing (the float kernel's noop_with_empty_axes reading)
        xq, yq = tensor_q(op, op.operands[0], "input"), tensor_q(op, op.results[0], "result")
        return out_int8(op, _requantized(x, xq, yq))
    norm = tuple(sorted({a % x.ndim for a in axes}))
    return _mean(op, x, norm, int_prop(op, "keepdims", 1) == 1)


def global_max(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    x = args[0]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    return out_int8(op, _requantized(np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True), xq, yq))


# -- data movement ---------------------------------------------------------------------------------


def concat(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.concat (axis in NHWC order when layout = "nhwc" on rank 4), each input requantized to
    the result's parameters when they differ."""
    yq = tensor_q(op, op.results[0], "result")
    parts = [
        _requantized(a, tensor_q(op, v, f"input {i}"), yq) for i, (a, v) in enumerate(zip(args, op.operands))
    ]
    rank = parts[0].ndim
    axis = op.properties["axis"].value.data  # type: ignore[attr-defined]
    if str_prop(op, "layout", "nchw") == "nhwc" and rank == 4:
        axis = NHWC_TO_NCHW[axis % rank]
    return out_int8(op, np.concatenate(parts, axis=axis))


def pad(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.pad; a constant pad value is quantized at the input's parameters (half away from zero)."""
    x = args[0]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    pads = ints(op, "pads")
    assert pads is not None
    value = float(float_prop(op, "value", 0.0))  # type: ignore[arg-type]
    stored = min(max(qm.round_half_away(value / xq.scale) + xq.zp, xq.qmin), xq.qmax)
    padded = kr.pad(x, pads, str_prop(op, "mode", "constant"), stored)
    return out_int8(op, _requantized(padded, xq, yq))


_NEAREST_MODE = {"asymmetric": "floor", "tf_half_pixel_for_nn": "floor"}
"""As tgr_misc: tgr.resize nearest with integer scales is pixel replication."""


def resize(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.resize, nearest only: the source index of each output pixel depends on shapes alone
    (computed as in the float kernel), the values are copied."""
    x = args[0]
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    if str_prop(op, "mode", "nearest") != "nearest":
        raise fail(op, "no int8 kernel for linear resize (nearest only)")
    scales = ints(op, "scales")
    assert scales is not None
    ctm = str_prop(op, "coordinate_transformation_mode", "half_pixel")
    sizes = [d * s for d, s in zip(x.shape, scales)]
    y = kr.resize(x, sizes, [float(s) for s in scales], "nearest", ctm, _NEAREST_MODE.get(ctm, "round_prefer_floor"))
    return out_int8(op, _requantized(y, xq, yq))


def reshape(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """reshape, flatten, squeeze, unsqueeze: same elements, the result's static shape."""
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    return out_int8(op, _requantized(np.reshape(args[0], result_shape(op)), xq, yq))


def transpose(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    return out_int8(op, _requantized(np.transpose(args[0], ints(op, "perm")), xq, yq))


# -- onnx ops that carry int8 tensors until their own pass runs ------------------------------------


def moved_by_float_kernel(method: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate an `onnx` data-movement `@impl` (Resize, Reshape, ...): with `!tgr.quant` tensors its
    float kernel runs on the stored integers (`storage_passthrough`; a kernel that would compute,
    e.g. linear Resize, is refused), then the result is requantized if its parameters differ
    from the input's."""

    @functools.wraps(method)
    def run(self: Any, interpreter: Any, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        if not quantized_types(op):
            return method(self, interpreter, op, args)
        xq = tensor_q(op, op.operands[0], "input")
        yq = tensor_q(op, op.results[0], "result")
        if any(qparams(v) is not None for v in op.operands[1:]):
            raise fail(op, "only the data input may be quantized")
        with storage_passthrough():
            (moved,) = method(self, interpreter, op, args)
        if xq.same_as(yq):
            return (moved,)
        try:
            return out_int8(op, _requantized(moved, xq, yq))
        except ValueError as e:
            raise fail(op, str(e)) from None

    return run
