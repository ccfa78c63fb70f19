"""Integer-only requantization primitives, bit-exact with TFLite's reference kernels (gemmlowp).

The int8 path of the compiler, the interpreter's future int8 kernels and the C
runtime must agree bit for bit, so these are the one definition of the integer
arithmetic. Everything is vectorized over numpy arrays (values in int64 so no
intermediate can overflow; results are int32) and broadcasts, so per-channel
multipliers and shifts are arrays shaped to broadcast against the accumulator.

Conventions (TFLite's):
- A positive real multiplier is represented as `multiplier * 2**shift / 2**31` with
  `multiplier` a Q0.31 value in [2**30, 2**31) and `shift` an int; `shift > 0` is a
  left shift (reals >= 1, up to rounding) and `shift <= 0` a right shift (reals in [0.5, 1) have
  shift 0). For reals in [1e-6, 1e3) the shift lies in [-19, 10]. In general shifts are
  in [-31, 30]: reals below 2**-32 flush to (0, 0) as in TFLite, and reals that would need a
  left shift above 30 (about 2**30 and more) raise ValueError.
- Representation error: `multiplier` is `2**31 * q` rounded half away from zero with
  q in [0.5, 1), so |multiplier * 2**shift / 2**31 - real| <= 2**-31 * real.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite QuantizeMultiplier: (Q0.31 multiplier, shift) with real ~= multiplier * 2**shift / 2**31."""
    if not math.isfinite(real) or real < 0:
        raise ValueError(f"quantize_multiplier needs a finite real >= 0, got {real}")
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)  # real = q * 2**shift, q in [0.5, 1)
    scaled = q * 2.0**31  # exact: a power-of-two scaling of a double
    fixed = math.floor(scaled + 0.5)  # TfLiteRound: half away from zero (scaled > 0; the sum is exact)
    if fixed == 2**31:
        fixed //= 2
        shift += 1
    if shift < -31:  # every bit would be shifted out: TFLite flushes to zero
        return 0, 0
    if shift > 30:
        raise ValueError(f"multiplier {real} needs a left shift of {shift}; at most 30 is supported")
    return int(fixed), int(shift)


def _i64(x: ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _trunc_div_pow2(value: np.ndarray, bits: int) -> np.ndarray:
    """C++ `/` by 2**bits on int64: rounds toward zero (numpy's >> and // round down)."""
    return np.where(value >= 0, value >> bits, -((-value) >> bits))


def saturating_rounding_doubling_high_mul(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul: a * b / 2**31 rounded to nearest for int32 a, b.

    Ties go toward +infinity (the nudge is +2**30, or 1 - 2**30 for a negative product, before a
    truncating division). The one overflowing case, INT32_MIN * INT32_MIN, saturates to INT32_MAX."""
    a64, b64 = _i64(a), _i64(b)
    product = a64 * b64  # |product| <= 2**62: fits int64
    nudge = np.where(product >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    high = _trunc_div_pow2(product + nudge, 31)
    overflow = (a64 == INT32_MIN) & (b64 == INT32_MIN)
    return np.where(overflow, np.int64(INT32_MAX), high).astype(np.int32)


def rounding_divide_by_pot(x: ArrayLike, exponent: ArrayLike) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT: x / 2**exponent rounded half away from zero, exponent in [0, 31]."""
    x64 = _i64(x)
    exp64 = _i64(exponent)
    if np.any((exp64 < 0) | (exp64 > 31)):
        raise ValueError("rounding_divide_by_pot: exponent must be in [0, 31]")
    mask = (np.int64(1) << exp64) - 1
    remainder = x64 & mask
    threshold = (mask >> 1) + (x64 < 0).astype(np.int64)
    return ((x64 >> exp64) + (remainder > threshold).astype(np.int64)).astype(np.int32)


def multiply_by_quantized_multiplier(x: ArrayLike, multiplier: ArrayLike, shift: ArrayLike) -> np.ndarray:
    """TFLite MultiplyByQuantizedMultiplier: x * multiplier * 2**shift / 2**31 with gemmlowp rounding.

    left shift = max(shift, 0) is applied to x first, as an int32 multiply: like the C code on
    two's-complement hardware, a product that leaves the int32 range wraps (callers keep
    x * 2**left_shift within int32); right shift = max(-shift, 0) rounds after the high mul."""
    shift64 = _i64(shift)
    left = np.maximum(shift64, 0)
    right = np.maximum(-shift64, 0)
    shifted = (_i64(x) << left).astype(np.int32)  # wraps like int32 arithmetic
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier), right)


def requantize(
    acc_int32: ArrayLike,
    multiplier: ArrayLike,
    shift: ArrayLike,
    out_zero_point: ArrayLike,
    qmin: int,
    qmax: int,
) -> np.ndarray:
    """An int32 accumulator to the output type: clamp(MBQM(acc) + zero_point, qmin, qmax).

    The result is int8 when [qmin, qmax] fits int8, uint8 when it fits uint8, else int32.
    Fused ReLU/ReLU6 are expressed by narrowing [qmin, qmax], as TFLite does."""
    scaled = _i64(multiply_by_quantized_multiplier(acc_int32, multiplier, shift)) + _i64(out_zero_point)
    clamped = np.clip(scaled, qmin, qmax)
    if -128 <= qmin and qmax <= 127:
        return clamped.astype(np.int8)
    if 0 <= qmin and qmax <= 255:
        return clamped.astype(np.uint8)
    return clamped.astype(np.int32)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def round_half_away(value: float) -> int:
    """TfLiteRound: to the nearest integer, ties away from zero (compile-time parameters)."""
    magnitude = math.floor(abs(value) + 0.5)
    return int(magnitude if value >= 0 else -magnitude)


QuantParams = tuple[float, int]
"""(scale, zero point) of a per-tensor quantized tensor."""

INT8_RANGE = (-128, 127)


def unary_table_int8(
    f: Callable[[np.ndarray], np.ndarray],
    in_q: QuantParams,
    out_q: QuantParams,
    in_range: tuple[int, int] = INT8_RANGE,
    out_range: tuple[int, int] = INT8_RANGE,
) -> np.ndarray:
    """The lookup table of an element-wise function between two quantized tensors.

    Entry `v - in_range[0]` is the output for the stored input value v (256 entries for 8-bit
    storage): in float64, x = (v - in_zp) * in_scale, then
    clamp(round_half_away_from_zero(f(x) / out_scale) + out_zp, out_range). `f` takes and returns
    float64 arrays. This is the one place the float function is evaluated; the int8 kernel (the
    interpreter's, the device's) is then a pure table lookup, so host and device agree by
    construction. The result has the output storage's dtype (int8, uint8)."""
    in_scale, in_zp = float(in_q[0]), int(in_q[1])
    out_scale, out_zp = float(out_q[0]), int(out_q[1])
    if not (in_scale > 0 and out_scale > 0):
        raise ValueError(f"unary_table_int8 needs positive scales, got {in_scale} and {out_scale}")
    lo, hi = out_range
    q = np.arange(in_range[0], in_range[1] + 1, dtype=np.float64)
    x = (q - float(in_zp)) * in_scale
    y = np.asarray(f(x), dtype=np.float64)
    out = np.clip(_round_half_away(y / out_scale) + float(out_zp), lo, hi)
    return out.astype(_storage_dtype(lo, hi))


def _storage_dtype(lo: int, hi: int) -> np.dtype:
    if -128 <= lo and hi <= 127:
        return np.dtype(np.int8)
    if 0 <= lo and hi <= 255:
        return np.dtype(np.uint8)
    raise ValueError(f"lookup tables are for 8-bit storage, got the range [{lo}, {hi}]")


def _sigmoid64(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # the stable form: no overflow for large |x|
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _f64(value: float) -> float:
    """A float32 attribute (ONNX stores them so) as the float64 it exactly is."""
    return float(np.float32(value))


def activation_function(name: str, **attrs: float) -> Callable[[np.ndarray], np.ndarray]:
    """The float64 definition of an element-wise activation, for `unary_table_int8`.

    names: sigmoid, tanh, hard_swish (x * relu6(x + 3) / 6), relu, relu6, clip (attrs min, max,
    either may be absent), leaky_relu (alpha, default 0.01), swish (alpha, default 1),
    hard_sigmoid (alpha, beta). Float attributes are taken as the float32 values ONNX stores."""
    if name == "sigmoid":
        return _sigmoid64
    if name == "tanh":
        return np.tanh
    if name == "hard_swish":
        return lambda x: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0
    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    if name == "relu6":
        return lambda x: np.clip(x, 0.0, 6.0)
    if name == "clip":
        low = _f64(attrs["min"]) if attrs.get("min") is not None else -np.inf
        high = _f64(attrs["max"]) if attrs.get("max") is not None else np.inf
        return lambda x: np.minimum(np.maximum(x, low), high)
    if name == "leaky_relu":
        alpha = _f64(attrs.get("alpha", 0.01))
        return lambda x: np.where(x >= 0, x, alpha * x)
    if name == "swish":
        alpha = _f64(attrs.get("alpha", 1.0))
        return lambda x: x * _sigmoid64(alpha * x)
    if name == "hard_sigmoid":
        alpha, beta = _f64(attrs.get("alpha", 0.2)), _f64(attrs.get("beta", 0.5))
        return lambda x: np.clip(alpha * x + beta, 0.0, 1.0)
    raise ValueError(f"no int8 table for activation '{name}'")


def activation_table_int8(
    name: str,
    in_q: QuantParams,
    out_q: QuantParams,
    in_range: tuple[int, int] = INT8_RANGE,
    out_range: tuple[int, int] = INT8_RANGE,
    **attrs: float,
) -> np.ndarray:
    """`unary_table_int8` of the named activation (see `activation_function`): what an emitter
    writes for `tgr.sigmoid`, `tgr.hard_swish`, ... given the op's input and output parameters."""
    return unary_table_int8(activation_function(name, **attrs), in_q, out_q, in_range, out_range)


def sigmoid_table_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """256-entry int8 lookup table: entry i is the quantized sigmoid of the int8 input value i - 128.

    Computed in float64: x = (q - in_zp) * in_scale, y = sigmoid(x), then
    clamp(round_half_away(y / out_scale) + out_zp, -128, 127). Host and device share
    this table, so the float rounding happens once, here."""
    return unary_table_int8(_sigmoid64, (in_scale, in_zp), (out_scale, out_zp))


def tanh_table_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """As `sigmoid_table_int8`, for tanh."""
    return unary_table_int8(np.tanh, (in_scale, in_zp), (out_scale, out_zp))


# -- compile-time parameters -------------------------------------------------------------------
# Float appears below only to derive integer parameters from scales, once per op, as a compiler
# (and TFLite's Prepare) does; the kernels that use them are integer-only.


def quantize_multipliers(reals: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """`quantize_multiplier` of every element: (multipliers int32, shifts int32), same shape."""
    flat = np.asarray(reals, dtype=np.float64)
    pairs = [quantize_multiplier(float(r)) for r in flat.reshape(-1)]
    multipliers = np.asarray([m for m, _ in pairs], dtype=np.int64).reshape(flat.shape).astype(np.int32)
    shifts = np.asarray([s for _, s in pairs], dtype=np.int64).reshape(flat.shape).astype(np.int32)
    return multipliers, shifts


def quantize_multiplier_smaller_than_one(real: float) -> tuple[int, int]:
    """TFLite QuantizeMultiplierSmallerThanOneExp: as `quantize_multiplier`, for reals in (0, 1),
    so the shift is <= 0 (a pure right shift)."""
    if not 0.0 < real < 1.0:
        raise ValueError(f"expected a real multiplier in (0, 1), got {real}")
    multiplier, shift = quantize_multiplier(real)
    if shift > 0:  # rounding reached 1.0
        raise ValueError(f"multiplier {real} rounds to 1.0")
    return multiplier, shift


ADD_LEFT_SHIFT = 20
"""TFLite's int8/uint8 ADD and SUB scale both inputs up by 2**20 before rescaling them."""


def add_params(
    in1_scale: float, in2_scale: float, out_scale: float
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """TFLite int8 ADD/SUB Prepare: ((m1, shift1), (m2, shift2), (m_out, shift_out)).

    twice_max = 2 * max(s1, s2); input i uses s_i / twice_max, the output
    twice_max / (2**20 * s_out); all three are below one (right shifts only)."""
    twice_max = 2.0 * max(float(in1_scale), float(in2_scale))
    return (
        quantize_multiplier_smaller_than_one(float(in1_scale) / twice_max),
        quantize_multiplier_smaller_than_one(float(in2_scale) / twice_max),
        quantize_multiplier_smaller_than_one(twice_max / ((1 << ADD_LEFT_SHIFT) * float(out_scale))),
    )


def activation_range(activation: str, scale: float, zero_point: int, qmin: int, qmax: int) -> tuple[int, int]:
    """TFLite CalculateActivationRangeQuantized: the storage range narrowed by a fused activation.

    relu: [max(qmin, zp), qmax]; relu6: also min(qmax, zp + round_half_away(6 / scale))."""
    if activation == "none":
        return qmin, qmax
    if activation == "relu":
        return max(qmin, zero_point), qmax
    if activation == "relu6":
        six = zero_point + int(math.floor(6.0 / float(scale) + 0.5))
        return max(qmin, zero_point), min(qmax, six)
    raise ValueError(f"unknown fused_activation '{activation}'")
