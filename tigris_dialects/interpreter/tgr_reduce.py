"""`tgr` reductions and normalizations (float, NCHW): reduce_sum/max/min, log_softmax, lrn,
layer_norm. None has an int8 kernel: in an int8 model they run as float islands, so a
`!tgr.quant` operand here is an error (`q8.no_int8`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import tgr_int8 as q8
from tigris.dialects.interpreter.tgr_int8 import int8_kernel
from tigris.dialects.interpreter.values import float_prop, int_prop, ints, out
from tigris.dialects.tgr import ops_reduce as rd

F32 = np.float32


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """x - max - log(sum(exp(x - max))): never overflows, and exact at the maximum."""
    x = np.asarray(x, F32)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def layer_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray | None, axis: int, epsilon: float) -> np.ndarray:
    """ONNX LayerNormalization: statistics over axes [axis, rank), biased variance."""
    x = np.asarray(x, F32)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = np.mean(x, axis=axes, keepdims=True, dtype=F32)
    centered = x - mean
    var = np.mean(centered * centered, axis=axes, keepdims=True, dtype=F32)
    y = centered / np.sqrt(var + F32(epsilon)) * np.asarray(scale, F32)
    return y if bias is None else y + np.asarray(bias, F32)


class TgrReduceFunctions(InterpreterFunctions):
    def _reduce(self, op: rd.Reduction, args: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
        keep = int_prop(op, "keepdims", 1) == 1  # empty axes reduce nothing, as the verifier reads it
        return out(op, km.reduce(np.asarray(args[0], F32), kind, ints(op, "axes"), keep, True))

    @impl(rd.ReduceSumOp)
    @int8_kernel(q8.no_int8)
    def run_reduce_sum(self, interpreter: Interpreter, op: rd.ReduceSumOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "sum")

    @impl(rd.ReduceMaxOp)
    @int8_kernel(q8.no_int8)
    def run_reduce_max(self, interpreter: Interpreter, op: rd.ReduceMaxOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "max")

    @impl(rd.ReduceMinOp)
    @int8_kernel(q8.no_int8)
    def run_reduce_min(self, interpreter: Interpreter, op: rd.ReduceMinOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._reduce(op, args, "min")

    @impl(rd.LogSoftmaxOp)
    @int8_kernel(q8.no_int8)
    def run_log_softmax(
        self, interpreter: Interpreter, op: rd.LogSoftmaxOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        return out(op, log_softmax(args[0], op.axis.value.data))

    @impl(rd.LrnOp)
    @int8_kernel(q8.no_int8)
    def run_lrn(self, interpreter: Interpreter, op: rd.LrnOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        alpha, beta, bias = (float(float_prop(op, n) or 0.0) for n in ("alpha", "beta", "bias"))
        return out(op, km.lrn(args[0], op.size.value.data, alpha, beta, bias))

    @impl(rd.LayerNormOp)
    @int8_kernel(q8.no_int8)
    def run_layer_norm(self, interpreter: Interpreter, op: rd.LayerNormOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        bias = args[2] if len(args) > 2 else None
        epsilon = float(float_prop(op, "epsilon", 1e-5) or 0.0)
        return out(op, layer_norm(args[0], args[1], bias, op.axis.value.data, epsilon))
