"""`onnx` ops with weights, windows or normalizations (see ops_nn.py), run as ONNX defines them."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import kernels_window as kw
from tigris.dialects.interpreter.values import fail, float_prop, int_prop, ints, optional, out, str_prop
from tigris.dialects.onnx import ops_nn as nn

F32 = np.float32


def _geometry(op: Any, x: np.ndarray, kernel: list[int]) -> tuple[list[int], list[int], list[int]]:
    """strides, dilations and explicit pads of a Conv/pool (auto_pad resolved)."""
    rank = x.ndim - 2
    strides = ints(op, "strides", [1] * rank)
    dilations = ints(op, "dilations", [1] * rank)
    assert strides is not None and dilations is not None
    try:
        pads = kw.resolve_pads(
            str_prop(op, "auto_pad", "NOTSET"), ints(op, "pads"), x.shape[2:], kernel, strides, dilations
        )
    except ValueError as e:
        raise fail(op, str(e)) from None
    return strides, dilations, pads


class OnnxNNFunctions(InterpreterFunctions):
    """Conv, ConvTranspose, pools, normalizations, Gemm/MatMul, Softmax, Dropout."""

    @impl(nn.ConvOp)
    def run_conv(self, interpreter: Interpreter, op: nn.ConvOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x, w = np.asarray(args[0]), np.asarray(args[1])
        strides, dilations, pads = _geometry(op, x, list(w.shape[2:]))
        b = optional(op, args, "B")
        return out(op, kw.conv(x, w, b, strides, dilations, pads, op.group.value.data))

    @impl(nn.ConvTransposeOp)
    def run_conv_transpose(
        self, interpreter: Interpreter, op: nn.ConvTransposeOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x, w = np.asarray(args[0]), np.asarray(args[1])
        rank = x.ndim - 2
        kernel = list(w.shape[2:])
        strides = ints(op, "strides", [1] * rank)
        dilations = ints(op, "dilations", [1] * rank)
        output_padding = ints(op, "output_padding", [0] * rank)
        assert strides is not None and dilations is not None and output_padding is not None
        pads = kw.conv_transpose_pads(
            str_prop(op, "auto_pad", "NOTSET"),
            ints(op, "pads"),
            ints(op, "output_shape"),
            x.shape[2:],
            kernel,
            strides,
            dilations,
            output_padding,
        )
        b = optional(op, args, "B")
        y = kw.conv_transpose(x, w, b, strides, dilations, pads, output_padding, op.group.value.data)
        return out(op, y)

    @impl(nn.BatchNormalizationOp)
    def run_batch_norm(
        self, interpreter: Interpreter, op: nn.BatchNormalizationOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        if op.training_mode.value.data:
            raise fail(op, "training_mode = 1 is not supported (inference only)")
        x, scale, bias, mean, var = args
        return out(op, km.batch_norm(x, scale, bias, mean, var, float_prop(op, "epsilon", 1e-5)))

    @impl(nn.InstanceNormalizationOp)
    def run_instance_norm(
        self, interpreter: Interpreter, op: nn.InstanceNormalizationOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x, scale, bias = args
        return out(op, km.instance_norm(x, scale, bias, float_prop(op, "epsilon", 1e-5)))

    def _pool(self, op: Any, x: np.ndarray, kind: str) -> tuple[Any, ...]:
        kernel = ints(op, "kernel_shape")
        if kernel is None:
            raise fail(op, "kernel_shape is required")
        strides, dilations, pads = _geometry(op, x, kernel)
        ceil = int_prop(op, "ceil_mode", 0) == 1
        include = int_prop(op, "count_include_pad", 0) == 1
        return out(op, kw.pool(x, kind, kernel, strides, dilations, pads, ceil, include))

    @impl(nn.MaxPoolOp)
    def run_max_pool(self, interpreter: Interpreter, op: nn.MaxPoolOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._pool(op, np.asarray(args[0]), "max")

    @impl(nn.AveragePoolOp)
    def run_avg_pool(self, interpreter: Interpreter, op: nn.AveragePoolOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._pool(op, np.asarray(args[0]), "avg")

    @impl(nn.GlobalAveragePoolOp)
    def run_global_avg(
        self, interpreter: Interpreter, op: nn.GlobalAveragePoolOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x = np.asarray(args[0], F32)
        return out(op, np.mean(x, axis=tuple(range(2, x.ndim)), keepdims=True, dtype=F32))

    @impl(nn.GlobalMaxPoolOp)
    def run_global_max(
        self, interpreter: Interpreter, op: nn.GlobalMaxPoolOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x = np.asarray(args[0])
        return out(op, np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True))

    @impl(nn.LRNOp)
    def run_lrn(self, interpreter: Interpreter, op: nn.LRNOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        size = int_prop(op, "size")
        if size is None:
            raise fail(op, "size is required")
        alpha, beta, bias = (float_prop(op, n) for n in ("alpha", "beta", "bias"))
        return out(op, km.lrn(args[0], size, alpha, beta, bias))  # type: ignore[arg-type]

    @impl(nn.GemmOp)
    def run_gemm(self, interpreter: Interpreter, op: nn.GemmOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = np.asarray(args[0]), np.asarray(args[1])
        if op.transA.value.data:
            a = a.T
        if op.transB.value.data:
            b = b.T
        float_ = a.dtype.kind == "f"
        y = np.matmul(a.astype(F32), b.astype(F32)) if float_ else np.matmul(a, b)
        alpha = float_prop(op, "alpha", 1.0)
        beta = float_prop(op, "beta", 1.0)
        if alpha != 1:
            y = y * alpha
        c = optional(op, args, "C")
        if c is not None and beta != 0:
            y = y + (c * beta if beta != 1 else c)
        return out(op, y)

    @impl(nn.MatMulOp)
    def run_matmul(self, interpreter: Interpreter, op: nn.MatMulOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.matmul(args[0], args[1]))

    @impl(nn.SoftmaxOp)
    def run_softmax(self, interpreter: Interpreter, op: nn.SoftmaxOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.softmax(args[0], op.axis.value.data))

    @impl(nn.DropoutOp)
    def run_dropout(self, interpreter: Interpreter, op: nn.DropoutOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        training = optional(op, args, "training_mode")
        if training is not None and bool(training.reshape(-1)[0]):
            raise fail(op, "training_mode = true is not supported (inference: Dropout is the identity)")
        if op.mask is None:
            return out(op, args[0])
        return out(op, args[0], np.ones(np.shape(args[0]), np.bool_))  # inference keeps every element
