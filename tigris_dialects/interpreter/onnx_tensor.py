"""`onnx` ops that move or reshape data (see ops_tensor.py): inputs that older opsets gave as
attributes (`axes`, `pads`, `starts`...) are read from whichever form the op carries."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import kernels_resample as kr
from tigris.dialects.interpreter.tgr_int8 import moved_by_float_kernel
from tigris.dialects.interpreter.values import axes_from, fail, float_prop, int_prop, ints, optional, out
from tigris.dialects.onnx import ops_tensor as t


class OnnxTensorFunctions(InterpreterFunctions):
    """Concat, Reshape, Flatten, Squeeze/Unsqueeze, Transpose, Pad, Shape, Size, Expand, Tile,
    Range, Where, Gather, Slice, Cast, Identity, ReduceMean/ReduceMax."""

    @impl(t.ConcatOp)
    def run_concat(self, interpreter: Interpreter, op: t.ConcatOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.concatenate([np.asarray(a) for a in args], axis=int_prop(op, "axis", 0)))

    @impl(t.ReshapeOp)
    @moved_by_float_kernel
    def run_reshape(self, interpreter: Interpreter, op: t.ReshapeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x, shape = np.asarray(args[0]), [int(v) for v in np.asarray(args[1]).reshape(-1)]
        if not op.allowzero.value.data:  # 0 copies the input dimension
            shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
        return out(op, np.reshape(x, shape))

    @impl(t.FlattenOp)
    @moved_by_float_kernel
    def run_flatten(self, interpreter: Interpreter, op: t.FlattenOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axis = op.axis.value.data + x.ndim if op.axis.value.data < 0 else op.axis.value.data
        return out(op, x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:])))

    @impl(t.SqueezeOp)
    @moved_by_float_kernel
    def run_squeeze(self, interpreter: Interpreter, op: t.SqueezeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axes = axes_from(op, args, "axes", "axes_in")
        if axes is None:
            return out(op, np.squeeze(x))
        return out(op, np.squeeze(x, axis=tuple(a % x.ndim for a in axes)))

    @impl(t.UnsqueezeOp)
    @moved_by_float_kernel
    def run_unsqueeze(self, interpreter: Interpreter, op: t.UnsqueezeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axes = axes_from(op, args, "axes", "axes_in")
        if axes is None:
            raise fail(op, "axes are required")
        rank = x.ndim + len(axes)
        return out(op, np.expand_dims(x, tuple(sorted(a % rank for a in axes))))

    @impl(t.TransposeOp)
    @moved_by_float_kernel
    def run_transpose(self, interpreter: Interpreter, op: t.TransposeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        return out(op, np.transpose(x, ints(op, "perm", list(range(x.ndim))[::-1])))

    @impl(t.PadOp)
    def run_pad(self, interpreter: Interpreter, op: t.PadOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        given = optional(op, args, "pads_in")
        pads = [int(v) for v in given.reshape(-1)] if given is not None else ints(op, "pads")
        if pads is None:
            raise fail(op, "pads are required")
        axes = axes_from(op, args, "axes", "axes_in")
        if axes is not None:  # pads name only these axes: spread them over all axes
            full = [0] * (2 * x.ndim)
            for i, axis in enumerate(axes):
                full[axis % x.ndim] = pads[i]
                full[x.ndim + axis % x.ndim] = pads[len(axes) + i]
            pads = full
        value = optional(op, args, "constant_value")
        fill: Any = value.reshape(-1)[0] if value is not None and value.size else float_prop(op, "value", 0.0)
        try:
            return out(op, kr.pad(x, pads, op.mode.data, fill))
        except ValueError as e:
            raise fail(op, str(e)) from None

    @impl(t.ShapeOp)
    def run_shape(self, interpreter: Interpreter, op: t.ShapeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        shape = np.asarray(args[0]).shape
        rank = len(shape)
        start = op.start.value.data
        end = int_prop(op, "end", rank)
        assert end is not None
        start = min(max(start + rank if start < 0 else start, 0), rank)
        end = min(max(end + rank if end < 0 else end, 0), rank)
        return out(op, np.asarray(shape[start:end], np.int64))

    @impl(t.SizeOp)
    def run_size(self, interpreter: Interpreter, op: t.SizeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.asarray(np.asarray(args[0]).size, np.int64))

    @impl(t.ExpandOp)
    def run_expand(self, interpreter: Interpreter, op: t.ExpandOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x, shape = np.asarray(args[0]), tuple(int(v) for v in np.asarray(args[1]).reshape(-1))
        return out(op, np.broadcast_to(x, np.broadcast_shapes(x.shape, shape)))

    @impl(t.TileOp)
    def run_tile(self, interpreter: Interpreter, op: t.TileOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.tile(np.asarray(args[0]), [int(v) for v in np.asarray(args[1]).reshape(-1)]))

    @impl(t.RangeOp)
    def run_range(self, interpreter: Interpreter, op: t.RangeOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        start, limit, delta = (np.asarray(a).reshape(()) for a in args)
        count = max(int(np.ceil((limit - start) / delta)), 0)  # ONNX: the count first, then start + i * delta
        return out(op, (start + np.arange(count) * delta).astype(start.dtype))

    @impl(t.WhereOp)
    def run_where(self, interpreter: Interpreter, op: t.WhereOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.where(np.asarray(args[0]), args[1], args[2]))

    @impl(t.GatherOp)
    @moved_by_float_kernel
    def run_gather(self, interpreter: Interpreter, op: t.GatherOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        data, indices = np.asarray(args[0]), np.asarray(args[1]).astype(np.int64)
        return out(op, np.take(data, indices, axis=op.axis.value.data))

    @impl(t.SliceOp)
    @moved_by_float_kernel
    def run_slice(self, interpreter: Interpreter, op: t.SliceOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        def read(operand: str, attr: str) -> list[int] | None:
            value = optional(op, args, operand)
            return [int(v) for v in value.reshape(-1)] if value is not None else ints(op, attr)

        starts, ends = read("starts_in", "starts"), read("ends_in", "ends")
        if starts is None or ends is None:
            raise fail(op, "starts and ends are required")
        axes, steps = read("axes_in", "axes"), read("steps_in", "")
        return out(op, kr.onnx_slice(np.asarray(args[0]), starts, ends, axes, steps))

    @impl(t.CastOp)
    def run_cast(self, interpreter: Interpreter, op: t.CastOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        to = int_prop(op, "to")
        dtype = km.ONNX_DTYPES.get(to or 0)
        if dtype is None:
            raise fail(op, f"Cast to ONNX data type {to} has no numpy equivalent")
        x = np.asarray(args[0])
        y = (x != 0) if dtype == np.bool_ else x.astype(dtype)
        return out(op, y)

    @impl(t.IdentityOp)
    @moved_by_float_kernel
    def run_identity(self, interpreter: Interpreter, op: t.IdentityOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, args[0])

    def _reduce(self, op: Any, args: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        axes = axes_from(op, args, "axes", "axes_in")
        keep = op.keepdims.value.data == 1
        return out(op, km.reduce(x, kind, axes, keep, op.noop_with_empty_axes.value.data == 1))

    @impl(t.ReduceMeanOp)
    def run_reduce_mean(self, interpreter: Interpreter, op: t.ReduceMeanOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "mean")

    @impl(t.ReduceMaxOp)
    def run_reduce_max(self, interpreter: Interpreter, op: t.ReduceMaxOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "max")
