"""`onnx` activations and broadcasting arithmetic (see ops_elementwise.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter.tgr_int8 import int8_kernel, lookup_table
from tigris.dialects.interpreter.values import float_prop, optional, out
from tigris.dialects.onnx import ops_elementwise as ew


class OnnxElementwiseFunctions(InterpreterFunctions):
    """Relu ... Silu, Floor/Ceil/Round, Clip (attribute or input bounds), Add/Sub/Mul/Div/Sum, Equal."""

    @impl(ew.ReluOp)
    def run_relu(self, interpreter: Interpreter, op: ew.ReluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.maximum(args[0], 0))

    @impl(ew.SigmoidOp)
    def run_sigmoid(self, interpreter: Interpreter, op: ew.SigmoidOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.sigmoid(args[0]))

    @impl(ew.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op: ew.TanhOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.tanh(np.asarray(args[0], np.float32)))

    @impl(ew.HardSwishOp)
    def run_hard_swish(self, interpreter: Interpreter, op: ew.HardSwishOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.hard_swish(args[0]))

    @impl(ew.LeakyReluOp)
    def run_leaky_relu(self, interpreter: Interpreter, op: ew.LeakyReluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.leaky_relu(args[0], float_prop(op, "alpha", 0.01)))  # type: ignore[arg-type]

    @impl(ew.HardSigmoidOp)
    def run_hard_sigmoid(
        self, interpreter: Interpreter, op: ew.HardSigmoidOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        alpha, beta = float_prop(op, "alpha", 0.2), float_prop(op, "beta", 0.5)
        return out(op, km.hard_sigmoid(args[0], alpha, beta))  # type: ignore[arg-type]

    @impl(ew.SwishOp)
    @int8_kernel(lookup_table)
    def run_swish(self, interpreter: Interpreter, op: ew.SwishOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.swish(args[0], float_prop(op, "alpha", 1.0)))  # type: ignore[arg-type]

    @impl(ew.SiluOp)
    @int8_kernel(lookup_table)
    def run_silu(self, interpreter: Interpreter, op: ew.SiluOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.swish(args[0]))

    @impl(ew.FloorOp)
    def run_floor(self, interpreter: Interpreter, op: ew.FloorOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.floor(args[0]))

    @impl(ew.CeilOp)
    def run_ceil(self, interpreter: Interpreter, op: ew.CeilOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.ceil(args[0]))

    @impl(ew.RoundOp)
    def run_round(self, interpreter: Interpreter, op: ew.RoundOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.round(args[0]))  # halves to even, as ONNX specifies

    @impl(ew.EqualOp)
    def run_equal(self, interpreter: Interpreter, op: ew.EqualOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.equal(args[0], args[1]))

    @impl(ew.ClipOp)
    def run_clip(self, interpreter: Interpreter, op: ew.ClipOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        low = optional(op, args, "min_in")
        high = optional(op, args, "max_in")
        if low is None:
            low = float_prop(op, "min")
        if high is None:
            high = float_prop(op, "max")
        return out(op, km.clip(args[0], low, high))

    @impl(ew.AddOp)
    def run_add(self, interpreter: Interpreter, op: ew.AddOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.add(args[0], args[1]))

    @impl(ew.SubOp)
    def run_sub(self, interpreter: Interpreter, op: ew.SubOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.subtract(args[0], args[1]))

    @impl(ew.MulOp)
    def run_mul(self, interpreter: Interpreter, op: ew.MulOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, np.multiply(args[0], args[1]))

    @impl(ew.DivOp)
    def run_div(self, interpreter: Interpreter, op: ew.DivOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, km.divide(np.asarray(args[0]), np.asarray(args[1])))

    @impl(ew.SumOp)
    def run_sum(self, interpreter: Interpreter, op: ew.SumOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        total = np.asarray(args[0])
        for term in args[1:]:
            total = total + term
        return out(op, total)
