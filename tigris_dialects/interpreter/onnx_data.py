"""`onnx` ops that produce or resample data: Resize/Upsample, constants, QuantizeLinear /
DequantizeLinear (the float QDQ path onnxruntime runs with graph optimizations off), and
`onnx.generic`, which has no semantics to run."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import kernels_resample as kr
from tigris.dialects.interpreter.tgr_int8 import moved_by_float_kernel
from tigris.dialects.interpreter.values import (
    fail,
    float_prop,
    floats,
    int_prop,
    ints,
    optional,
    out,
    result_dtype,
    str_prop,
)
from tigris.dialects.onnx import ops_quant as q
from tigris.dialects.onnx import ops_tensor as t
from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.weight import weight_array

F32 = np.float32


def _given(value: np.ndarray | None) -> np.ndarray | None:
    """Resize's optional inputs may also be present but empty (opset 11-12 '' convention)."""
    return value if value is not None and value.size else None


class OnnxDataFunctions(InterpreterFunctions):
    """Resize, Upsample, Constant, ConstantOfShape, QuantizeLinear, DequantizeLinear, generic."""

    @impl(t.ResizeOp)
    @moved_by_float_kernel
    def run_resize(self, interpreter: Interpreter, op: t.ResizeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        rank = x.ndim
        mode = op.mode.data
        if mode not in ("nearest", "linear"):
            raise fail(op, f"mode '{mode}' is not supported (nearest and linear are)")
        if op.antialias.value.data and mode != "nearest":
            raise fail(op, "antialias = 1 is not supported")
        axes = [a % rank for a in ints(op, "axes", list(range(rank))) or []]
        scales_in = _given(optional(op, args, "scales"))
        sizes_in = _given(optional(op, args, "sizes"))
        scales = [F32(1)] * rank
        sizes = list(x.shape)
        if sizes_in is not None:
            if op.keep_aspect_ratio_policy.data != "stretch":
                raise fail(op, "keep_aspect_ratio_policy other than 'stretch' is not supported")
            for axis, size in zip(axes, sizes_in.reshape(-1)):
                sizes[axis] = int(size)
                scales[axis] = F32(size) / F32(x.shape[axis])
        elif scales_in is not None:
            for axis, scale in zip(axes, scales_in.astype(F32).reshape(-1)):
                scales[axis] = F32(scale)
                sizes[axis] = int(np.floor(F32(scale) * F32(x.shape[axis])))
        else:
            raise fail(op, "one of scales and sizes is required")
        roi = _given(optional(op, args, "roi"))
        if roi is not None and len(roi) != 2 * rank:  # roi given for `axes` only
            full = [0.0] * rank + [1.0] * rank
            for i, axis in enumerate(axes):
                full[axis], full[rank + axis] = float(roi[i]), float(roi[len(axes) + i])
            roi = np.asarray(full, F32)
        try:
            y = kr.resize(
                x,
                sizes,
                scales,
                mode,
                op.coordinate_transformation_mode.data,
                op.nearest_mode.data,
                None if roi is None else [float(v) for v in roi.reshape(-1)],
                float(float_prop(op, "extrapolation_value", 0.0)),  # type: ignore[arg-type]
            )
        except ValueError as e:
            raise fail(op, str(e)) from None
        return out(op, y)

    @impl(t.UpsampleOp)
    @moved_by_float_kernel
    def run_upsample(self, interpreter: Interpreter, op: t.UpsampleOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        given = optional(op, args, "scales_in")
        scales = [F32(s) for s in given.reshape(-1)] if given is not None else floats(op, "scales")
        if scales is None or len(scales) != x.ndim:
            raise fail(op, f"needs {x.ndim} scales")
        mode = {"nearest": "nearest", "linear": "linear", "bilinear": "linear"}.get(str_prop(op, "mode", "nearest"))
        if mode is None:
            raise fail(op, f"unsupported mode '{str_prop(op, 'mode', '')}'")
        sizes = [int(np.floor(F32(s) * F32(d))) for s, d in zip(scales, x.shape)]
        return out(op, kr.resize(x, sizes, [float(s) for s in scales], mode, "asymmetric", "simple"))

    @impl(t.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: t.ConstantOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        if op.value is not None:
            return out(op, weight_array(op.value))
        if op.value_float is not None:
            return out(op, np.asarray(float_prop(op, "value_float"), F32))
        if op.value_floats is not None:
            return out(op, np.asarray(floats(op, "value_floats"), F32))
        if op.value_int is not None:
            return out(op, np.asarray(int_prop(op, "value_int"), np.int64))
        if op.value_ints is not None:
            return out(op, np.asarray(ints(op, "value_ints"), np.int64))
        raise fail(op, "no value attribute")

    @impl(t.ConstantOfShapeOp)
    def run_constant_of_shape(
        self, interpreter: Interpreter, op: t.ConstantOfShapeOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        shape = [int(v) for v in np.asarray(args[0]).reshape(-1)]
        if isinstance(op.value, DenseIntOrFPElementsAttr):
            fill = weight_array(op.value).reshape(-1)[0]
        else:
            fill = F32(0)
        return out(op, np.full(shape, fill, dtype=result_dtype(op)))

    @impl(q.QuantizeLinearOp)
    def run_quantize(self, interpreter: Interpreter, op: q.QuantizeLinearOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x, scale = np.asarray(args[0]), np.asarray(args[1])
        dtype = result_dtype(op)
        if dtype.kind not in "iu":
            raise fail(op, f"quantizing to {dtype} is not supported (integer types are)")
        zero_point = optional(op, args, "zero_point")
        return out(op, km.quantize_linear(x, scale, zero_point, dtype, op.axis.value.data, op.block_size.value.data))

    @impl(q.DequantizeLinearOp)
    def run_dequantize(
        self, interpreter: Interpreter, op: q.DequantizeLinearOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x, scale = np.asarray(args[0]), np.asarray(args[1])
        zero_point = optional(op, args, "zero_point")
        return out(op, km.dequantize_linear(x, scale, zero_point, op.axis.value.data, op.block_size.value.data))

    @impl(t.SplitOp)
    def run_split(self, interpreter: Interpreter, op: t.SplitOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The import typed each output, so their shapes say where the parts start (as
        convert-onnx-to-tgr's slices do)."""
        x = np.asarray(args[0])
        axis = op.axis.value.data % x.ndim
        bounds = np.cumsum([shape_of(r)[axis] for r in op.outputs])[:-1]
        return tuple(np.split(x, bounds, axis=axis))

    @impl(q.GenericOp)
    def run_generic(self, interpreter: Interpreter, op: q.GenericOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        domain = op.domain.data
        kind = f"{domain}.{op.op_type.data}" if domain else op.op_type.data
        raise fail(op, f"ONNX op type '{kind}' has no typed op and cannot be interpreted")

