"""`tgr` element-wise, normalization and data-movement ops, and `tgr.weight` (float, NCHW).

An op with `!tgr.quant` tensors runs the int8 kernel named in its `@int8_kernel(...)` instead
(tgr_int8.py); `q8.no_int8` marks the ops that have none.

`tgr.concat` with `layout = "nhwc"` on rank-4 tensors names its axis in NHWC order;
the IR still holds NCHW arrays, so the axis is mapped back through (0, 2, 3, 1).
`tgr.resize` has no nearest_mode: nearest is pixel replication for every
coordinate mode that integer scales make equivalent to it (see `_NEAREST_MODE`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import kernels_resample as kr
from tigris.dialects.interpreter import tgr_int8 as q8
from tigris.dialects.interpreter.tgr_int8 import int8_kernel
from tigris.dialects.interpreter.values import (
    fail,
    float_prop,
    int_prop,
    ints,
    out,
    reject_quantized,
    result_shape,
)
from tigris.dialects.tgr import ops_elementwise as ew
from tigris.dialects.tgr import ops_shape as sh
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.weight import WeightOp, numpy_dtype, weight_array

F32 = np.float32

NHWC_TO_NCHW = (0, 2, 3, 1)
"""NHWC axis a is NCHW axis NHWC_TO_NCHW[a]."""

_NEAREST_MODE = {"asymmetric": "floor", "tf_half_pixel_for_nn": "floor"}
"""Rounding of tgr.resize nearest per coordinate mode; others round_prefer_floor. With integer
scales, floor(x / s) for asymmetric and round_prefer_floor((x + .5) / s - .5) for half_pixel
both give floor(x / s): the source pixel is replicated s times."""


def quant_type(value: SSAValue) -> QuantType:
    type_ = value.type
    if not isinstance(type_, TensorType) or not isinstance(type_.element_type, QuantType):
        raise InterpretationError(f"expected a !tgr.quant tensor, got {type_}")
    return type_.element_type


def _quant_params(qtype: QuantType) -> tuple[np.ndarray, np.ndarray, int]:
    """Scale (float32, as ONNX stores it), zero point and axis of a `!tgr.quant` type, shaped
    for ONNX QuantizeLinear/DequantizeLinear semantics (a scalar when per-tensor)."""
    scale = np.asarray(qtype.scale_values, F32)
    zero_point = np.asarray(qtype.zero_point_values, np.int64)
    axis = qtype.axis.data
    if axis < 0:
        return scale.reshape(()), zero_point.reshape(()), 0
    return scale, zero_point, axis


def _unary(op: Any, y: np.ndarray) -> tuple[Any, ...]:
    reject_quantized(op)
    return out(op, y)


class TgrMiscFunctions(InterpreterFunctions):
    """Activations, arithmetic, softmax, norms, concat/pad/resize, reshapes, reduce_mean, weight."""

    @impl(ew.ReluOp)
    @int8_kernel(q8.lookup_table)
    def run_relu(self, interpreter: Interpreter, op: ew.ReluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.activation(np.asarray(args[0], F32), "relu"))

    @impl(ew.Relu6Op)
    @int8_kernel(q8.lookup_table)
    def run_relu6(self, interpreter: Interpreter, op: ew.Relu6Op, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.activation(np.asarray(args[0], F32), "relu6"))

    @impl(ew.SigmoidOp)
    @int8_kernel(q8.lookup_table)
    def run_sigmoid(self, interpreter: Interpreter, op: ew.SigmoidOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.sigmoid(args[0]))

    @impl(ew.TanhOp)
    @int8_kernel(q8.lookup_table)
    def run_tanh(self, interpreter: Interpreter, op: ew.TanhOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.tanh(np.asarray(args[0], F32)))

    @impl(ew.HardSwishOp)
    @int8_kernel(q8.lookup_table)
    def run_hard_swish(self, interpreter: Interpreter, op: ew.HardSwishOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.hard_swish(args[0]))  # onnxruntime's form, so lowering HardSwish keeps the numbers

    @impl(ew.QuantizeOp)
    def run_quantize(self, interpreter: Interpreter, op: ew.QuantizeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        qtype = quant_type(op.output)
        x = np.asarray(args[0], F32)
        scale, zero_point, axis = _quant_params(qtype)
        return out(op, km.quantize_linear(x, scale, zero_point, numpy_dtype(qtype), axis))

    @impl(ew.DequantizeOp)
    def run_dequantize(self, interpreter: Interpreter, op: ew.DequantizeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        scale, zero_point, axis = _quant_params(quant_type(op.input))
        return out(op, km.dequantize_linear(np.asarray(args[0]), scale, zero_point, axis))

    @impl(ew.LeakyReluOp)
    @int8_kernel(q8.lookup_table)
    def run_leaky_relu(self, interpreter: Interpreter, op: ew.LeakyReluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.leaky_relu(args[0], float_prop(op, "alpha", 0.01)))  # type: ignore[arg-type]

    @impl(ew.ClipOp)
    @int8_kernel(q8.lookup_table)
    def run_clip(self, interpreter: Interpreter, op: ew.ClipOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.clip(np.asarray(args[0], F32), float_prop(op, "min"), float_prop(op, "max")))

    @impl(ew.AddOp)
    @int8_kernel(q8.add)
    def run_add(self, interpreter: Interpreter, op: ew.AddOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.add(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    @impl(ew.SubOp)
    @int8_kernel(q8.sub)
    def run_sub(self, interpreter: Interpreter, op: ew.SubOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.subtract(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    @impl(ew.MulOp)
    @int8_kernel(q8.mul)
    def run_mul(self, interpreter: Interpreter, op: ew.MulOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.multiply(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    @impl(ew.DivOp)
    @int8_kernel(q8.div)
    def run_div(self, interpreter: Interpreter, op: ew.DivOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.divide(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    @impl(ew.SoftmaxOp)
    @int8_kernel(q8.softmax)
    def run_softmax(self, interpreter: Interpreter, op: ew.SoftmaxOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, km.softmax(args[0], op.axis.value.data))

    @impl(ew.BatchNormOp)
    @int8_kernel(q8.no_int8)
    def run_batch_norm(self, interpreter: Interpreter, op: ew.BatchNormOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x, scale, bias, mean, var = args
        return _unary(op, km.batch_norm(x, scale, bias, mean, var, float_prop(op, "epsilon", 1e-5)))

    @impl(ew.InstanceNormOp)
    @int8_kernel(q8.no_int8)
    def run_instance_norm(
        self, interpreter: Interpreter, op: ew.InstanceNormOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x, scale, bias = args
        return _unary(op, km.instance_norm(x, scale, bias, float_prop(op, "epsilon", 1e-5)))

    @impl(sh.ConcatOp)
    @int8_kernel(q8.concat)
    def run_concat(self, interpreter: Interpreter, op: sh.ConcatOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        arrays = [np.asarray(a) for a in args]
        rank = arrays[0].ndim
        axis = op.axis.value.data
        if op.layout.data == "nhwc" and rank == 4:
            axis = NHWC_TO_NCHW[axis % rank]
        return _unary(op, np.concatenate(arrays, axis=axis))

    @impl(sh.PadOp)
    @int8_kernel(q8.pad)
    def run_pad(self, interpreter: Interpreter, op: sh.PadOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        pads = ints(op, "pads")
        assert pads is not None
        try:
            return _unary(op, kr.pad(np.asarray(args[0]), pads, op.mode.data, float_prop(op, "value", 0.0)))
        except ValueError as e:
            raise fail(op, str(e)) from None

    @impl(sh.ResizeOp)
    @int8_kernel(q8.resize)
    def run_resize(self, interpreter: Interpreter, op: sh.ResizeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        scales = ints(op, "scales")
        assert scales is not None
        ctm = op.coordinate_transformation_mode.data
        sizes = [d * s for d, s in zip(x.shape, scales)]
        nearest = _NEAREST_MODE.get(ctm, "round_prefer_floor")
        try:
            y = kr.resize(x, sizes, [float(s) for s in scales], op.mode.data, ctm, nearest)
        except ValueError as e:
            raise fail(op, str(e)) from None
        return _unary(op, y)

    @impl(sh.FlattenOp)
    @int8_kernel(q8.reshape)
    def run_flatten(self, interpreter: Interpreter, op: sh.FlattenOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axis = op.axis.value.data
        axis = axis + x.ndim if axis < 0 else axis
        return _unary(op, x.reshape(int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))))

    @impl(sh.ReshapeOp)
    @int8_kernel(q8.reshape)
    def run_reshape(self, interpreter: Interpreter, op: sh.ReshapeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.reshape(args[0], result_shape(op)))

    @impl(sh.SqueezeOp)
    @int8_kernel(q8.reshape)
    def run_squeeze(self, interpreter: Interpreter, op: sh.SqueezeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axes = ints(op, "axes")
        if axes is None:
            return _unary(op, np.squeeze(x))
        return _unary(op, np.squeeze(x, axis=tuple(a % x.ndim for a in axes)))

    @impl(sh.UnsqueezeOp)
    @int8_kernel(q8.reshape)
    def run_unsqueeze(self, interpreter: Interpreter, op: sh.UnsqueezeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axes = ints(op, "axes") or []
        rank = x.ndim + len(axes)
        return _unary(op, np.expand_dims(x, tuple(sorted(a % rank for a in axes))))

    @impl(sh.TransposeOp)
    @int8_kernel(q8.transpose)
    def run_transpose(self, interpreter: Interpreter, op: sh.TransposeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return _unary(op, np.transpose(args[0], ints(op, "perm")))

    @impl(sh.ReduceMeanOp)
    @int8_kernel(q8.mean)
    def run_reduce_mean(
        self, interpreter: Interpreter, op: sh.ReduceMeanOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        keep = int_prop(op, "keepdims", 1) == 1
        # empty axes reduce nothing: that is the shape the tgr.reduce_mean verifier expects
        return _unary(op, km.reduce(np.asarray(args[0], F32), "mean", ints(op, "axes"), keep, True))

    @impl(WeightOp)
    def run_weight(self, interpreter: Interpreter, op: WeightOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (weight_array(op.value),)

