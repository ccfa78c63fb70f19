"""`onnx` ReduceSum, ReduceMin, LogSoftmax and LayerNormalization (float, as onnxruntime's CPU
provider computes them); ReduceMean/ReduceMax live with the other tensor ops."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter.tgr_reduce import layer_norm, log_softmax
from tigris.dialects.interpreter.values import axes_from, float_prop, optional, out
from tigris.dialects.onnx import ops_nn as nn
from tigris.dialects.onnx import ops_tensor as t


class OnnxReduceFunctions(InterpreterFunctions):
    def _reduce(self, op: Any, args: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
        axes = axes_from(op, args, "axes", "axes_in")
        keep = op.keepdims.value.data == 1
        return out(op, km.reduce(np.asarray(args[0]), kind, axes, keep, op.noop_with_empty_axes.value.data == 1))

    @impl(t.ReduceSumOp)
    def run_reduce_sum(self, interpreter: Interpreter, op: t.ReduceSumOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "sum")

    @impl(t.ReduceMinOp)
    def run_reduce_min(self, interpreter: Interpreter, op: t.ReduceMinOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "min")

    @impl(nn.LogSoftmaxOp)
    def run_log_softmax(
        self, interpreter: Interpreter, op: nn.LogSoftmaxOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        return out(op, log_softmax(args[0], op.axis.value.data))

    @impl(nn.LayerNormalizationOp)
    def run_layer_norm(
        self, interpreter: Interpreter, op: nn.LayerNormalizationOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        epsilon = float(float_prop(op, "epsilon", 1e-5) or 0.0)
        return out(op, layer_norm(args[0], args[1], optional(op, args, "B"), op.axis.value.data, epsilon))
