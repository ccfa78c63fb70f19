"""`tgr` convolutions, dense layers and pools (see ops_window.py), float and NCHW.

Weights are read in ONNX order whatever their `weight_layout` (`op.onnx_weight`), so
`layout-nhwc` leaves every result bit-identical.

Absent strides/dilations/pads mean 1/1/0; pads are ONNX-ordered [begins..., ends...];
`fused_activation` is applied to the result. The numbers come from the same kernels
as the `onnx` ops, so a lowering that maps one onto the other must not change them.
Ops with `!tgr.quant` tensors run the int8 kernels of tgr_int8.py (`@int8_kernel`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl
from xdsl.ir import Operation

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import kernels_window as kw
from tigris.dialects.interpreter import tgr_int8 as q8
from tigris.dialects.interpreter.tgr_int8 import int8_kernel
from tigris.dialects.interpreter.values import (
    fail, int_prop, ints, optional, out, reject_quantized, str_prop, window_params,
)  # fmt: skip
from tigris.dialects.tgr import ops_window as win

F32 = np.float32


def _activate(op: Operation, y: np.ndarray) -> np.ndarray:
    try:
        return km.activation(y, str_prop(op, "fused_activation", "none"))
    except ValueError as e:
        raise fail(op, str(e)) from None


class TgrWindowFunctions(InterpreterFunctions):
    """conv, depthwise_conv, conv1d, conv_transpose, fully_connected, matmul, pools."""

    def _conv(self, interpreter: Interpreter, op: Any, args: tuple[Any, ...], group: int) -> tuple[Any, ...]:
        reject_quantized(op)
        x, w = np.asarray(args[0]), op.onnx_weight(np.asarray(args[1]))
        strides, dilations, pads = window_params(op, x.ndim - 2)
        y = kw.conv(x, w, optional(op, args, "bias"), strides, dilations, pads, group)
        return out(op, _activate(op, y))

    @impl(win.ConvOp)
    @int8_kernel(q8.conv)
    def run_conv(self, interpreter: Interpreter, op: win.ConvOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._conv(interpreter, op, args, op.group.value.data)

    @impl(win.DepthwiseConvOp)
    @int8_kernel(q8.conv)
    def run_depthwise_conv(
        self, interpreter: Interpreter, op: win.DepthwiseConvOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        return self._conv(interpreter, op, args, np.asarray(args[0]).shape[1])

    @impl(win.Conv1dOp)
    @int8_kernel(q8.conv)
    def run_conv1d(self, interpreter: Interpreter, op: win.Conv1dOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._conv(interpreter, op, args, op.group.value.data)

    @impl(win.ConvTransposeOp)
    @int8_kernel(q8.conv_transpose)
    def run_conv_transpose(
        self, interpreter: Interpreter, op: win.ConvTransposeOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        reject_quantized(op)
        x, w = np.asarray(args[0]), op.onnx_weight(np.asarray(args[1]))
        rank = x.ndim - 2
        strides, dilations, pads = window_params(op, rank)
        output_padding = ints(op, "output_padding", [0] * rank)
        assert output_padding is not None
        b = optional(op, args, "bias")
        return out(op, kw.conv_transpose(x, w, b, strides, dilations, pads, output_padding, op.group.value.data))

    @impl(win.FullyConnectedOp)
    @int8_kernel(q8.fully_connected)
    def run_fully_connected(
        self, interpreter: Interpreter, op: win.FullyConnectedOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        reject_quantized(op)
        x, w = np.asarray(args[0], F32), op.onnx_weight(np.asarray(args[1], F32))
        y = np.matmul(x, w.T)
        b = optional(op, args, "bias")
        if b is not None:
            y = y + b.astype(F32)
        return out(op, _activate(op, y))

    @impl(win.MatMulOp)
    @int8_kernel(q8.matmul)
    def run_matmul(self, interpreter: Interpreter, op: win.MatMulOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        reject_quantized(op)
        return out(op, np.matmul(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    def _pool(self, op: Any, x: np.ndarray, kind: str) -> tuple[Any, ...]:
        reject_quantized(op)
        kernel = ints(op, "kernel_shape")
        assert kernel is not None
        strides, dilations, pads = window_params(op, x.ndim - 2)
        ceil = int_prop(op, "ceil_mode", 0) == 1
        include = int_prop(op, "count_include_pad", 0) == 1
        return out(op, kw.pool(x, kind, kernel, strides, dilations, pads, ceil, include))

    @impl(win.MaxPoolOp)
    @int8_kernel(q8.max_pool)
    def run_max_pool(self, interpreter: Interpreter, op: win.MaxPoolOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._pool(op, np.asarray(args[0], F32), "max")

    @impl(win.AvgPoolOp)
    @int8_kernel(q8.avg_pool)
    def run_avg_pool(self, interpreter: Interpreter, op: win.AvgPoolOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._pool(op, np.asarray(args[0], F32), "avg")

    @impl(win.GlobalAvgPoolOp)
    @int8_kernel(q8.mean)
    def run_global_avg_pool(
        self, interpreter: Interpreter, op: win.GlobalAvgPoolOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        reject_quantized(op)
        x = np.asarray(args[0], F32)
        return out(op, np.mean(x, axis=tuple(range(2, x.ndim)), keepdims=True, dtype=F32))

    @impl(win.GlobalMaxPoolOp)
    @int8_kernel(q8.global_max)
    def run_global_max(self, interpreter: Interpreter, op: win.GlobalMaxPoolOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        reject_quantized(op)
        x = np.asarray(args[0], F32)
        return out(op, np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True))
