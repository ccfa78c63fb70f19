"""int8 semantics of `tgr` ops: TFLite's reference int8 kernels, integer-only.

An op with `!tgr.quant` operands or results is dispatched here by the `@int8_kernel(...)`
decorator on its float implementation (tgr_window.py, tgr_misc.py, and the few `onnx` ops that
carry int8 tensors between fold-qdq and their own pass: Swish/Silu, Resize, reshapes). Each
function below takes the integer parameters from `int8_params(op)` (multipliers and shifts,
activation ranges, lookup tables: derived from the op's types by quant_math, the only float
arithmetic, "compile time"; `compute-quant-scales` attaches the same values for the device),
reads zero points from the types, and runs the integer kernel (kernels_int8). Weights are
read in ONNX order whatever their `weight_layout` (`onnx_weight`).

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
from typing import Any

import numpy as np
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.interpreter import kernels_int8 as k8
from tigris.dialects.interpreter import kernels_resample as kr
from tigris.dialects.interpreter import kernels_window as kw
from tigris.dialects.interpreter.int8_params import (
    Int8Params,
    QParams,
    channel_q,
    conv_transpose_channels,
    int8_params,
    mean_axes,
    qparams,
    requant_pair,
    tensor_q,
    weight_channels,
)
from tigris.dialects.interpreter.values import (
    fail,
    int_prop,
    ints,
    optional,
    quantized_types,
    result_shape,
    storage_passthrough,
    str_prop,
)

Kernel = Callable[[Operation, tuple[Any, ...]], tuple[Any, ...]]

NHWC_TO_NCHW = (0, 2, 3, 1)

BIAS_SCALE_RTOL = 1e-5
"""A bias scale must be s_x * s_w[c] to this relative tolerance (ORT computes it in float32)."""


# -- operands ------------------------------------------------------------------------------------


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
    pair = requant_pair(src, dst)
    if pair is None:
        return np.asarray(x)
    return k8.rescale(x, src.zp, pair[0], pair[1], dst.zp, dst.qmin, dst.qmax)


def _moved(op: Operation, x: np.ndarray, p: Int8Params) -> tuple[Any, ...]:
    """The result of an op that moved stored values `x`, requantized with `p` when it has a
    multiplier (the result's parameters differ from the input's)."""
    if p.multipliers is None:
        return out_int8(op, x)
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    assert p.shifts is not None and p.act_range is not None
    lo, hi = p.act_range
    return out_int8(op, k8.rescale(x, xq.zp, int(p.multipliers[0]), int(p.shifts[0]), yq.zp, lo, hi))


def _requantize(op: Operation, acc: np.ndarray, p: Int8Params, axis: int) -> tuple[Any, ...]:
    yq = tensor_q(op, op.results[0], "result")
    assert p.multipliers is not None and p.shifts is not None and p.act_range is not None
    lo, hi = p.act_range
    return out_int8(op, k8.requantize(acc, p.multipliers, p.shifts, yq.zp, lo, hi, axis=axis))


def _window(op: Operation, rank: int) -> tuple[list[int], list[int], list[int]]:
    strides = ints(op, "strides", [1] * rank)
    dilations = ints(op, "dilations", [1] * rank)
    pads = ints(op, "pads", [0] * (2 * rank))
    assert strides is not None and dilations is not None and pads is not None
    return strides, dilations, pads


# -- convolutions and dense layers ---------------------------------------------------------------


def conv(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.conv, tgr.depthwise_conv, tgr.conv1d (weight [O, C/group, *K] in ONNX order, per
    channel on the output-channel axis of its `weight_layout`)."""
    p = int8_params(op)
    x, w = args[0], op.onnx_weight(args[1])  # type: ignore[attr-defined]
    xq = tensor_q(op, op.operands[0], "input")
    w_scales, w_zps = weight_channels(op)
    bias = bias_i32(op, args, xq.scale, w_scales)
    strides, dilations, pads = _window(op, x.ndim - 2)
    group = op.groups()  # type: ignore[attr-defined]
    acc = k8.conv_accumulate(x, xq.zp, w, w_zps, bias, strides, dilations, pads, group)
    return _requantize(op, acc, p, axis=1)


def conv_transpose(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.conv_transpose (weight [C, O/group, *K] in ONNX order; per channel when group = 1)."""
    p = int8_params(op)
    x, w = args[0], op.onnx_weight(args[1])  # type: ignore[attr-defined]
    group = int_prop(op, "group", 1) or 1
    xq = tensor_q(op, op.operands[0], "input")
    w_scales, w_zps = conv_transpose_channels(op)
    bias = bias_i32(op, args, xq.scale, w_scales)
    rank = x.ndim - 2
    strides, dilations, pads = _window(op, rank)
    output_padding = ints(op, "output_padding", [0] * rank)
    assert output_padding is not None
    acc = k8.conv_transpose_accumulate(
        x, xq.zp, w, w_zps[: w.shape[1]], bias, strides, dilations, pads, output_padding, group
    )
    return _requantize(op, acc, p, axis=1)


def fully_connected(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.fully_connected: x [N, K], weight [M, K] (per channel on axis 0), bias [M]."""
    p = int8_params(op)
    x, w = args[0], op.onnx_weight(args[1])  # type: ignore[attr-defined]
    xq = tensor_q(op, op.operands[0], "input")
    w_scales, w_zps = weight_channels(op)
    bias = bias_i32(op, args, xq.scale, w_scales)
    acc = k8.matmul_accumulate(x, xq.zp, w.T, w_zps, bias)
    return _requantize(op, acc, p, axis=acc.ndim - 1)


def matmul(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.matmul: int8 x int8; the right operand may be per channel along its last axis."""
    p = int8_params(op)
    a, b = args[0], args[1]
    aq = tensor_q(op, op.operands[0], "lhs")
    _, b_zps = channel_q(op, op.operands[1], b.ndim - 1, b.shape[-1], "rhs")
    acc = k8.matmul_accumulate(a, aq.zp, b, b_zps)
    return _requantize(op, acc, p, axis=acc.ndim - 1)


# -- element-wise ----------------------------------------------------------------------------------


def _add_or_sub(op: Operation, args: tuple[Any, ...], subtract: bool) -> tuple[Any, ...]:
    p = int8_params(op)
    q1 = tensor_q(op, op.operands[0], "lhs")
    q2 = tensor_q(op, op.operands[1], "rhs")
    yq = tensor_q(op, op.results[0], "result")
    assert p.add_params is not None and p.act_range is not None
    _, m1, s1, m2, s2, mo, so = p.add_params
    lo, hi = p.act_range
    params = ((m1, s1), (m2, s2), (mo, so))
    return out_int8(op, k8.add(args[0], q1.zp, args[1], q2.zp, params, yq.zp, lo, hi, subtract=subtract))


def add(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return _add_or_sub(op, args, subtract=False)


def sub(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return _add_or_sub(op, args, subtract=True)


def mul(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    p = int8_params(op)
    q1 = tensor_q(op, op.operands[0], "lhs")
    q2 = tensor_q(op, op.operands[1], "rhs")
    yq = tensor_q(op, op.results[0], "result")
    assert p.multipliers is not None and p.shifts is not None and p.act_range is not None
    lo, hi = p.act_range
    m, s = int(p.multipliers[0]), int(p.shifts[0])
    return out_int8(op, k8.mul(args[0], q1.zp, args[1], q2.zp, m, s, yq.zp, lo, hi))


def lookup_table(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """An element-wise activation (relu, sigmoid, hard_swish, ...): a lookup in the table built
    from the op's input and result parameters."""
    p = int8_params(op)
    assert p.table is not None
    return out_int8(op, k8.lookup(args[0], p.table, tensor_q(op, op.operands[0], "input").qmin))


# -- pools and reductions --------------------------------------------------------------------------


def max_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    p = int8_params(op)
    x = args[0]
    kernel = ints(op, "kernel_shape")
    assert kernel is not None
    strides, dilations, pads = _window(op, x.ndim - 2)
    ceil = int_prop(op, "ceil_mode", 0) == 1
    pooled = kw.pool(x, "max", kernel, strides, dilations, pads, ceil)  # integer max; pads never win
    return _moved(op, pooled, p)


def avg_pool(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    p = int8_params(op)
    x = args[0]
    xq = tensor_q(op, op.operands[0], "input")
    kernel = ints(op, "kernel_shape")
    assert kernel is not None
    strides, dilations, pads = _window(op, x.ndim - 2)
    ceil = int_prop(op, "ceil_mode", 0) == 1
    include = int_prop(op, "count_include_pad", 0) == 1
    return _moved(op, k8.avg_pool(x, xq.zp, kernel, strides, dilations, pads, ceil, include), p)


def mean(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.global_avg_pool and tgr.reduce_mean (TFLite MEAN; no axes: a requantization)."""
    p = int8_params(op)
    x = args[0]
    axes = mean_axes(op)
    if not axes:  # reduces nothing (the float kernel's noop_with_empty_axes reading)
        return _moved(op, x, p)
    xq = tensor_q(op, op.operands[0], "input")
    yq = tensor_q(op, op.results[0], "result")
    keepdims = int_prop(op, "keepdims", 1) == 1
    assert p.multipliers is not None and p.shifts is not None and p.act_range is not None
    lo, hi = p.act_range
    m, s = int(p.multipliers[0]), int(p.shifts[0])
    return out_int8(op, k8.mean(x, xq.zp, axes, keepdims, m, s, yq.zp, lo, hi))


def global_max(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    x = args[0]
    return _moved(op, np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True), int8_params(op))


# -- data movement ---------------------------------------------------------------------------------


def concat(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.concat (axis in NHWC order when layout = "nhwc" on rank 4), each input requantized to
    the result's parameters when they differ."""
    p = int8_params(op)
    yq = tensor_q(op, op.results[0], "result")
    parts = []
    for i, (a, v) in enumerate(zip(args, op.operands, strict=True)):
        xq = tensor_q(op, v, f"input {i}")
        if xq.same_as(yq):
            parts.append(np.asarray(a))
            continue
        assert p.multipliers is not None and p.shifts is not None and p.act_range is not None
        lo, hi = p.act_range
        parts.append(k8.rescale(a, xq.zp, int(p.multipliers[i]), int(p.shifts[i]), yq.zp, lo, hi))
    rank = parts[0].ndim
    axis = op.properties["axis"].value.data  # type: ignore[attr-defined]
    if str_prop(op, "layout", "nchw") == "nhwc" and rank == 4:
        axis = NHWC_TO_NCHW[axis % rank]
    return out_int8(op, np.concatenate(parts, axis=axis))


def pad(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.pad; a constant pad value is quantized at the input's parameters (half away from zero)."""
    p = int8_params(op)
    pads = ints(op, "pads")
    assert pads is not None and p.pad_value is not None
    return _moved(op, kr.pad(args[0], pads, str_prop(op, "mode", "constant"), p.pad_value), p)


_NEAREST_MODE = {"asymmetric": "floor", "tf_half_pixel_for_nn": "floor"}
"""As tgr_misc: tgr.resize nearest with integer scales is pixel replication."""


def resize(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """tgr.resize, nearest only: the source index of each output pixel depends on shapes alone
    (computed as in the float kernel), the values are copied."""
    p = int8_params(op)
    x = args[0]
    scales = ints(op, "scales")
    assert scales is not None
    ctm = str_prop(op, "coordinate_transformation_mode", "half_pixel")
    sizes = [d * s for d, s in zip(x.shape, scales)]
    y = kr.resize(x, sizes, [float(s) for s in scales], "nearest", ctm, _NEAREST_MODE.get(ctm, "round_prefer_floor"))
    return _moved(op, y, p)


def reshape(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """reshape, flatten, squeeze, unsqueeze: same elements, the result's static shape."""
    return _moved(op, np.reshape(args[0], result_shape(op)), int8_params(op))


def transpose(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return _moved(op, np.transpose(args[0], ints(op, "perm")), int8_params(op))


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
