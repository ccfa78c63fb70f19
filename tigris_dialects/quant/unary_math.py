"""Float64 definitions of the element-wise math ops (tgr/ops_unary.py) for their int8 tables.

`arith.unary_table` evaluates one of these on the 256 dequantized inputs, rounds to float32 and
quantizes: onnxruntime's DequantizeLinear -> op in float -> QuantizeLinear. Out-of-domain inputs
(log of a negative, 0 ** -1) give NaN or inf as in float; `arith.quantize` stores NaN as the
lowest value, as onnxruntime's QuantizeLinear does, and clamps inf.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

F32 = np.float32
Function = Callable[[np.ndarray], np.ndarray]

_erf = np.vectorize(math.erf, otypes=[np.float64])
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _f64(value: float) -> float:
    """A float32 attribute (ONNX stores them so) as the float64 it exactly is."""
    return float(F32(value))


def _quiet(f: Function) -> Function:
    """`f` without numpy's divide/invalid/overflow warnings (log 0, sqrt -1, exp 1000)."""

    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return f(x)

    return run


def _elu(alpha: float) -> Function:
    return lambda x: np.where(x >= 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def _shrink(lambd: float, bias: float) -> Function:
    return lambda x: np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0.0))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x**3)))


def math_function(name: str, attrs: Mapping[str, float]) -> Function | None:
    """The float64 function `name` (attributes as the float32 values ONNX stores), None if this
    module does not define it. Names: neg, abs, exp, log, sqrt, reciprocal, elu (alpha), selu
    (alpha, gamma), softplus, softsign, erf, gelu, gelu_tanh, sign, shrink (lambd, bias), pow
    (exponent)."""
    alpha = _f64(attrs["alpha"]) if "alpha" in attrs else None
    simple: dict[str, Function] = {
        "neg": np.negative,
        "abs": np.abs,
        "exp": np.exp,
        "log": np.log,
        "sqrt": np.sqrt,
        "reciprocal": lambda x: 1.0 / x,
        "softplus": lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0),
        "softsign": lambda x: x / (1.0 + np.abs(x)),
        "erf": _erf,
        "gelu": _gelu,
        "gelu_tanh": _gelu_tanh,
        "sign": np.sign,
    }
    if name in simple:
        return _quiet(simple[name])
    if name == "elu":
        return _quiet(_elu(1.0 if alpha is None else alpha))
    if name == "selu":
        gamma = _f64(attrs.get("gamma", 1.05070102214813232421875))
        inner = _elu(_f64(1.67326319217681884765625) if alpha is None else alpha)
        return _quiet(lambda x: gamma * inner(x))
    if name == "shrink":
        return _quiet(_shrink(_f64(attrs.get("lambd", 0.5)), _f64(attrs.get("bias", 0.0))))
    if name == "pow":
        exponent = _f64(attrs["exponent"])
        return _quiet(lambda x: np.power(x, exponent))
    return None
