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


def _table(transform: str, in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    q = np.arange(-128, 128, dtype=np.float64)
    x = (q - float(in_zp)) * float(in_scale)
    if transform == "sigmoid":
        e = np.exp(-np.abs(x))  # the stable form: no overflow for large |x|
        y = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    else:
        y = np.tanh(x)
    out = _round_half_away(y / float(out_scale)) + float(out_zp)
    return np.clip(out, -128, 127).astype(np.int8)


def sigmoid_table_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """256-entry int8 lookup table: entry i is the quantized sigmoid of the int8 input value i - 128.

    Computed in float64: x = (q - in_zp) * in_scale, y = sigmoid(x), then
    clamp(round_half_away(y / out_scale) + out_zp, -128, 127). Host and device share
    this table, so the float rounding happens once, here."""
    return _table("sigmoid", in_scale, in_zp, out_scale, out_zp)


def tanh_table_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """As `sigmoid_table_int8`, for tanh."""
    return _table("tanh", in_scale, in_zp, out_scale, out_zp)
