"""int8 semantics of `tgr` ops: onnxruntime's QDQ meaning (`tigris.dialects.quant.arith`).

An op with `!tgr.quant` operands or results is dispatched here by the `@int8_kernel(...)`
decorator on its float implementation (tgr_window.py, tgr_misc.py, and the few `onnx` ops that
carry int8 tensors between fold-qdq and their own pass: Swish/Silu, Resize, reshapes). Each
function below takes the compile-time numbers from `int8_params(op)` (accumulator scales,
activation ranges, lookup tables, the pad value: what `compute-quant-scales` attaches for the
device), reads scales and zero points from the types, and runs the formula of `quant.arith`:

- conv, depthwise_conv, conv1d, conv_transpose, fully_connected, matmul: exact int32
  accumulators (kernels_int8), then `arith.requantize_accumulator` per output channel.
- add, sub, mul, div, max, min, prelu: `arith.binary` (float32, onnxruntime's steps); softmax: `arith.softmax`.
- avg_pool, global_avg_pool, reduce_mean: exact int32 sums, then `arith.mean_of_total`.
- relu, relu6, clip, leaky_relu, sigmoid, tanh, hard_swish, neg ... silu (tgr_unary.py; and onnx
  Swish/Silu): the table.
- concat, pad, resize (nearest), max_pool, global_max_pool, reshape, flatten, squeeze, unsqueeze,
  transpose: move stored values; a value whose parameters change is `arith.requantize_values`.
Weights are read in ONNX order whatever their `weight_layout` (`onnx_weight`). Other ops
(batch_norm, instance_norm, linear resize) raise InterpretationError: fold-qdq leaves them in float.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.interpreter import kernels_int8 as k8
from tigris.dialects.interpreter import kernels_resample as kr
from tigris.dialects.interpreter import kernels_window as kw
from tigris.dialects.interpreter.values import (
    fail,
    int_prop,
    ints,
    optional,
    quantized_types,
    result_shape,
    shaped_result,
    storage_passthrough,
    str_prop,
    window_params,
)
from tigris.dialects.quant import arith
from tigris.dialects.quant.params import (
    Int8Params,
    QParams,
    channel_q,
    conv_transpose_channels,
    int8_params,
    mean_axes,
    qparams,
    tensor_q,
    weight_channels,
)

Kernel = Callable[[Operation, tuple[Any, ...]], tuple[Any, ...]]

NHWC_TO_NCHW = (0, 2, 3, 1)

BIAS_SCALE_RTOL = 1e-5
"""A bias scale must be s_x * s_w[c] to this relative tolerance (ORT computes it in float32)."""


# -- operands ------------------------------------------------------------------------------------


def bias_i32(op: Operation, args: Sequence[Any], x_scale: float, w_scales: np.ndarray) -> np.ndarray | None:
    """The int32 bias, checked to be at scale s_x * s_w[c] with zero point 0, so it adds to the
    accumulator as onnxruntime's dequantized bias adds to the float sum."""
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


def _q(op: Operation, index: int, role: str, result: bool = False) -> QParams:
    value = op.results[index] if result else op.operands[index]
    try:
        return tensor_q(value, role)
    except ValueError as e:
        raise fail(op, str(e)) from None


def _params(op: Operation) -> Int8Params:
    try:
        return int8_params(op)
    except ValueError as e:
        raise fail(op, str(e)) from None


# -- dispatch and results ------------------------------------------------------------------------


def out_int8(op: Operation, *values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Integer results as the op's storage dtypes, checked against the declared shapes and ranges."""
    results: list[np.ndarray] = []
    for index, value in enumerate(values):
        array = shaped_result(op, index, value)
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
    if src == dst:
        return np.asarray(x)
    return arith.requantize_values(x, src.pair, dst.pair, dst.qmin, dst.qmax)


def _moved(op: Operation, x: np.ndarray) -> tuple[Any, ...]:
    """The result of an op that moved stored values `x` of its input: requantized to the
    result's parameters."""
    return out_int8(op, _requantized(x, _q(op, 0, "input"), _q(op, 0, "result", result=True)))




# -- convolutions and dense layers ---------------------------------------------------------------


def _requantize(op: Operation, acc: np.ndarray, p: Int8Params, axis: int) -> tuple[Any, ...]:
    yq = _q(op, 0, "result", result=True)
    assert p.requant_scales is not None and p.act_range is not None
    lo, hi = p.act_range
    scales = k8.along(p.requant_scales, axis, acc.ndim)
    return out_int8(op, arith.requantize_accumulator(acc, scales, yq.zp, lo, hi))


def conv(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.conv, tgr.depthwise_conv, tgr.conv1d (weight [O, C/group, *K] in ONNX order, per
    channel on the output-channel axis of its `weight_layout`)."""
    p = _params(op)
    x, w = args[0], op.onnx_weight(args[1])  # type: ignore[attr-defined]
    xq = _q(op, 0, "input")
    ch = weight_channels(op)
    bias = bias_i32(op, args, xq.scale, ch.scales)
    strides, dilations, pads = window_params(op, x.ndim - 2)
    group = op.groups()  # type: ignore[attr-defined]
    acc = k8.conv_accumulate(x, xq.zp, w, ch.zero_points, bias, strides, dilations, pads, group)
    return _requantize(op, acc, p, axis=1)


def conv_transpose(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.conv_transpose (weight [C, O/group, *K] in ONNX order; per channel when group = 1)."""
    p = _params(op)
    x, w = args[0], op.onnx_weight(args[1])  # type: ignore[attr-defined]
    group = int_prop(op, "group", 1) or 1
    xq = _q(op, 0, "input")
    ch = conv_transpose_channels(op)
    bias = bias_i32(op, args, xq.scale, ch.scales)
    rank = x.ndim - 2
    strides, dilations, pads = window_params(op, rank)
    output_padding = ints(op, "output_padding", [0] * rank)
    assert output_padding is not None
    acc = k8.conv_transpose_accumulate(
        x, xq.zp, w, ch.zero_points[: w.shape[1]], bias, strides, dilations, pads, output_padding, group
    )
    return _requantize(op, acc, p, axis=1)


def fully_connected(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.fully_connected: x [N, K], weight [M, K] (per channel on axis 0), bias [M]."""
    p = _params(op)
    x, w = args[0], op.onnx_weight(args[1])  # type: ignore[attr-defined]
    xq = _q(op, 0, "input")
    ch = weight_channels(op)
    bias = bias_i32(op, args, xq.scale, ch.scales)
    acc = k8.matmul_accumulate(x, xq.zp, w.T, ch.zero_points, bias)
    return _requantize(op, acc, p, axis=acc.ndim - 1)


def matmul(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.matmul: int8 x int8; the right operand may be per channel along its last axis."""
    p = _params(op)
    a, b = args[0], args[1]
    aq = _q(op, 0, "lhs")
    ch = channel_q(op.operands[1], b.ndim - 1, b.shape[-1], "rhs")
    acc = k8.matmul_accumulate(a, aq.zp, b, ch.zero_points)
    return _requantize(op, acc, p, axis=acc.ndim - 1)


# -- element-wise ----------------------------------------------------------------------------------


def _binary(kind: str) -> Kernel:
    """add, sub, mul, div: quantize(dequantize(a) op dequantize(b)) in float32."""

    def run(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        _params(op)
        q1, q2 = _q(op, 0, "lhs"), _q(op, 1, "rhs")
        yq = _q(op, 0, "result", result=True)
        return out_int8(op, arith.binary(kind, args[0], q1.pair, args[1], q2.pair, yq.pair, yq.qmin, yq.qmax))

    return run


add, sub, mul, div = (_binary(kind) for kind in ("add", "sub", "mul", "div"))
maximum, minimum, prelu = (_binary(kind) for kind in ("max", "min", "prelu"))


def softmax(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.softmax: quantize(softmax_f32(dequantize(x))) along its axis."""
    _params(op)
    xq, yq = _q(op, 0, "input"), _q(op, 0, "result", result=True)
    axis = int_prop(op, "axis", -1) or 0
    return out_int8(op, arith.softmax(args[0], xq.pair, yq.pair, axis, yq.qmin, yq.qmax))


def lookup_table(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """An element-wise activation (relu, sigmoid, hard_swish, ...): a lookup in the table built
    from the op's input and result parameters."""
    p = _params(op)
    assert p.table is not None
    return out_int8(op, k8.lookup(args[0], p.table, _q(op, 0, "input").qmin))


# -- pools and reductions --------------------------------------------------------------------------


def _mean_out(op: Operation, total: np.ndarray, count: np.ndarray | int) -> tuple[Any, ...]:
    xq, yq = _q(op, 0, "input"), _q(op, 0, "result", result=True)
    return out_int8(op, arith.mean_of_total(total, count, xq.scale, yq.scale, yq.zp, yq.qmin, yq.qmax))


def max_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    _params(op)
    x = args[0]
    kernel = ints(op, "kernel_shape")
    assert kernel is not None
    strides, dilations, pads = window_params(op, x.ndim - 2)
    ceil = int_prop(op, "ceil_mode", 0) == 1
    pooled = kw.pool(x, "max", kernel, strides, dilations, pads, ceil)  # integer max; pads never win
    return _moved(op, pooled)


def avg_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    _params(op)
    x = args[0]
    xq = _q(op, 0, "input")
    kernel = ints(op, "kernel_shape")
    assert kernel is not None
    strides, dilations, pads = window_params(op, x.ndim - 2)
    ceil = int_prop(op, "ceil_mode", 0) == 1
    include = int_prop(op, "count_include_pad", 0) == 1
    total, count = k8.avg_pool_sums(x, xq.zp, kernel, strides, dilations, pads, ceil, include)
    return _mean_out(op, total, count)


def mean(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.global_avg_pool and tgr.reduce_mean (no axes: a requantizing copy)."""
    _params(op)
    x = args[0]
    axes = mean_axes(op)
    if not axes:  # reduces nothing (the float kernel's noop_with_empty_axes reading)
        return _moved(op, x)
    keepdims = int_prop(op, "keepdims", 1) == 1
    total, count = k8.mean_sums(x, _q(op, 0, "input").zp, axes, keepdims)
    return _mean_out(op, total, count)


def global_max(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    _params(op)
    x = args[0]
    return _moved(op, np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True))


# -- data movement ---------------------------------------------------------------------------------


def concat(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.concat (axis in NHWC order when layout = "nhwc" on rank 4), each input requantized to
    the result's parameters when they differ."""
    _params(op)
    yq = _q(op, 0, "result", result=True)
    parts = [_requantized(a, _q(op, i, f"input {i}"), yq) for i, a in enumerate(args)]
    rank = parts[0].ndim
    axis = op.properties["axis"].value.data  # type: ignore[attr-defined]
    if str_prop(op, "layout", "nchw") == "nhwc" and rank == 4:
        axis = NHWC_TO_NCHW[axis % rank]
    return out_int8(op, np.concatenate(parts, axis=axis))


def pad(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.pad: the input's values moved to the result's parameters, padded (constant mode) with
    the constant quantized at the result's parameters."""
    p = _params(op)
    pads = ints(op, "pads")
    assert pads is not None and p.pad_value is not None
    moved = _requantized(args[0], _q(op, 0, "input"), _q(op, 0, "result", result=True))
    return out_int8(op, kr.pad(moved, pads, str_prop(op, "mode", "constant"), p.pad_value))


_NEAREST_MODE = {"asymmetric": "floor", "tf_half_pixel_for_nn": "floor"}
"""As tgr_misc: tgr.resize nearest with integer scales is pixel replication."""


def resize(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.resize, nearest only: the source index of each output pixel depends on shapes alone
    (computed as in the float kernel), the values are copied."""
    _params(op)
    x = args[0]
    scales = ints(op, "scales")
    assert scales is not None
    ctm = str_prop(op, "coordinate_transformation_mode", "half_pixel")
    sizes = [d * s for d, s in zip(x.shape, scales)]
    y = kr.resize(x, sizes, [float(s) for s in scales], "nearest", ctm, _NEAREST_MODE.get(ctm, "round_prefer_floor"))
    return _moved(op, y)


def reshape(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """reshape, flatten, squeeze, unsqueeze: same elements, the result's static shape."""
    _params(op)
    return _moved(op, np.reshape(args[0], result_shape(op)))


def transpose(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    _params(op)
    return _moved(op, np.transpose(args[0], ints(op, "perm")))


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
        xq = _q(op, 0, "input")
        yq = _q(op, 0, "result", result=True)
        if any(qparams(v) is not None for v in op.operands[1:]):
            raise fail(op, "only the data input may be quantized")
        with storage_passthrough():
            (moved,) = method(self, interpreter, op, args)
        return out_int8(op, _requantized(moved, xq, yq))

    return run
