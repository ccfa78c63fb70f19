"""Element-wise math, float32 as onnxruntime computes it: `tgr.neg` ... `tgr.silu` (int8: the
lookup table, tgr_int8.py) and the `onnx` ops they come from (Neg ... Gelu, Shrink, Pow, HardSigmoid).

The C runtime (kernels_f32_math.c) uses the same formulas: softplus in the stable form
log1p(exp(-|x|)) + max(x, 0), elu/selu with expm1. erf (and gelu's erf form) is evaluated in
float64 and rounded once, which is within an ulp of the C library's erff.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl
from xdsl.ir import Operation

from tigris.dialects.interpreter import kernels_math as km
from tigris.dialects.interpreter import tgr_int8 as q8
from tigris.dialects.interpreter.tgr_int8 import int8_kernel
from tigris.dialects.interpreter.values import float_prop, out
from tigris.dialects.onnx import ops_unary as ou
from tigris.dialects.tgr import ops_unary as tu

F32 = np.float32
_erf64 = np.vectorize(math.erf, otypes=[np.float64])
SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875


def erf(x: np.ndarray) -> np.ndarray:
    return _erf64(np.asarray(x, np.float64)).astype(F32)


def elu(x: np.ndarray, alpha: float) -> np.ndarray:
    x = np.asarray(x, F32)
    return np.where(x >= 0, x, F32(alpha) * np.expm1(np.minimum(x, F32(0)))).astype(F32)


def selu(x: np.ndarray, alpha: float, gamma: float) -> np.ndarray:
    x = np.asarray(x, F32)
    return (F32(gamma) * np.where(x > 0, x, F32(alpha) * np.expm1(np.minimum(x, F32(0))))).astype(F32)


def softplus(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F32)
    return (np.log1p(np.exp(-np.abs(x))) + np.maximum(x, F32(0))).astype(F32)


def softsign(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F32)
    return x / (F32(1) + np.abs(x))


def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    x = np.asarray(x, F32)
    if approximate == "tanh":
        k = F32(math.sqrt(2.0 / math.pi))
        return (F32(0.5) * x * (F32(1) + np.tanh(k * (x + F32(0.044715) * x * x * x)))).astype(F32)
    return (F32(0.5) * x * (F32(1) + erf(x * F32(1.0 / math.sqrt(2.0))))).astype(F32)


def shrink(x: np.ndarray, lambd: float, bias: float) -> np.ndarray:
    x = np.asarray(x, F32)
    lam, b = F32(lambd), F32(bias)
    return np.where(x < -lam, x + b, np.where(x > lam, x - b, F32(0))).astype(F32)


def power(x: np.ndarray, exponent: float) -> np.ndarray:
    return np.power(np.asarray(x, F32), F32(exponent))


def _f32(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: f(np.asarray(x, F32)).astype(F32)


SIMPLE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": _f32(np.negative),
    "abs": _f32(np.abs),
    "exp": _f32(np.exp),
    "log": _f32(np.log),
    "sqrt": _f32(np.sqrt),
    "reciprocal": _f32(lambda x: F32(1) / x),
    "softplus": softplus,
    "softsign": softsign,
    "erf": erf,
    "sign": _f32(np.sign),
    "silu": km.swish,
}
"""Functions without attributes, by name."""


def evaluate(op: Operation, x: np.ndarray) -> np.ndarray:
    """The float32 result of an onnx or tgr element-wise math op on `x`."""
    kind = op.name.split(".", 1)[1].lower()
    if kind in SIMPLE:
        return SIMPLE[kind](x)

    def prop(name: str, default: float) -> float:
        return float(float_prop(op, name, default))  # type: ignore[arg-type]

    if kind == "elu":
        return elu(x, prop("alpha", 1.0))
    if kind == "selu":
        return selu(x, prop("alpha", SELU_ALPHA), prop("gamma", SELU_GAMMA))
    if kind == "hard_sigmoid":
        return km.hard_sigmoid(x, prop("alpha", 0.2), prop("beta", 0.5))
    if kind == "shrink":
        return shrink(x, prop("lambd", 0.5), prop("bias", 0.0))
    if kind == "gelu":
        return gelu(x, op.properties["approximate"].data)  # type: ignore[attr-defined]
    if kind == "pow":
        return power(x, prop("exponent", 1.0))
    raise NotImplementedError(kind)


def _implementation(op_type: type[Operation], int8: bool) -> Callable[..., Any]:
    """An `@impl(op_type)` method computing `evaluate` (and the int8 table if `int8`)."""

    def run(self: Any, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return out(op, evaluate(op, args[0]))

    return impl(op_type)(int8_kernel(q8.lookup_table)(run) if int8 else run)


class TgrUnaryFunctions(InterpreterFunctions):
    """tgr.neg ... tgr.silu: float32, or the int8 table on `!tgr.quant` tensors (one method per
    op type, `run_<name>`, added below)."""


class OnnxUnaryFunctions(InterpreterFunctions):
    """onnx Neg ... Gelu, Shrink (one method per op type, added below); Pow with any exponent
    (constant folding evaluates it)."""

    @impl(ou.PowOp)
    def run_pow(self, interpreter: Interpreter, op: ou.PowOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        x, y = np.asarray(args[0]), np.asarray(args[1])
        return out(op, np.power(x, y.astype(x.dtype)))


for _op in tu.UNARY_OPS:
    setattr(TgrUnaryFunctions, f"run_{_op.name.removeprefix('tgr.')}", _implementation(_op, int8=True))
for _op in ou.UNARY_OPS:
    if _op is not ou.PowOp:
        setattr(OnnxUnaryFunctions, f"run_{_op.name.removeprefix('onnx.').lower()}", _implementation(_op, int8=False))
