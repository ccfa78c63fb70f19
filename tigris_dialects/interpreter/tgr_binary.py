"""`tgr.prelu`, `tgr.max`, `tgr.min`, `tgr.pow_tensor` (float, broadcasting); on `!tgr.quant`
tensors the first three run their int8 kernel (tgr_int8.py): quantize(f(dequantize(a),
dequantize(b))), onnxruntime's QDQ meaning. `tgr.pow_tensor` is float only."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import tgr_int8 as q8
from tigris.dialects.interpreter.tgr_int8 import int8_kernel
from tigris.dialects.interpreter.values import out
from tigris.dialects.tgr import ops_binary as bi

F32 = np.float32


def prelu(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """x >= 0 ? x : slope * x in float32, the slope broadcast to x (NaN stays NaN)."""
    x, slope = np.asarray(x, F32), np.asarray(slope, F32)
    return np.where(x >= 0, x, x * slope).astype(F32)


class TgrBinaryFunctions(InterpreterFunctions):
    @impl(bi.PReluOp)
    @int8_kernel(q8.prelu)
    def run_prelu(self, interpreter: Interpreter, op: bi.PReluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, prelu(args[0], args[1]))

    @impl(bi.MaxOp)
    @int8_kernel(q8.maximum)
    def run_max(self, interpreter: Interpreter, op: bi.MaxOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.maximum(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    @impl(bi.MinOp)
    @int8_kernel(q8.minimum)
    def run_min(self, interpreter: Interpreter, op: bi.MinOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.minimum(np.asarray(args[0], F32), np.asarray(args[1], F32)))

    @impl(bi.PowTensorOp)
    def run_pow_tensor(self, interpreter: Interpreter, op: bi.PowTensorOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return out(op, np.power(np.asarray(args[0], F32), np.asarray(args[1], F32)).astype(F32))
