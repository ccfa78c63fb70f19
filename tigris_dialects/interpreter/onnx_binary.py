"""`onnx` PRelu and the variadic Max, Min, Mean (see ops_binary.py), as onnxruntime computes them."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter.tgr_binary import prelu
from tigris.dialects.interpreter.values import out
from tigris.dialects.onnx import ops_binary as bi


class OnnxBinaryFunctions(InterpreterFunctions):
    @impl(bi.PReluOp)
    def run_prelu(self, interpreter: Interpreter, op: bi.PReluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, prelu(args[0], args[1]))

    @impl(bi.MaxOp)
    def run_max(self, interpreter: Interpreter, op: bi.MaxOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, functools.reduce(np.maximum, (np.asarray(a) for a in args)))

    @impl(bi.MinOp)
    def run_min(self, interpreter: Interpreter, op: bi.MinOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, functools.reduce(np.minimum, (np.asarray(a) for a in args)))

    @impl(bi.MeanOp)
    def run_mean(self, interpreter: Interpreter, op: bi.MeanOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The sum in input order, then times float32(1/n) (what convert-onnx-to-tgr emits)."""
        total = functools.reduce(np.add, (np.asarray(a) for a in args))
        return out(op, total * (total.dtype.type(1) / total.dtype.type(len(args))))
