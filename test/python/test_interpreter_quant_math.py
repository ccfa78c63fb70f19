"""quant_math against exact references: `fractions.Fraction` and Python big integers that
transcribe TFLite/gemmlowp's C definitions (C `/` truncates; int32 arithmetic wraps)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tigris.dialects.interpreter.quant_math import (
    INT32_MAX,
    INT32_MIN,
    multiply_by_quantized_multiplier,
    quantize_multiplier,
    requantize,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
    sigmoid_table_int8,
    tanh_table_int8,
)

RNG = np.random.default_rng(31)
EDGES = [INT32_MIN, INT32_MIN + 1, -(2**30), -1, 0, 1, 2**30, INT32_MAX - 1, INT32_MAX]


def random_int32(n: int) -> np.ndarray:
    return np.concatenate([np.asarray(EDGES), RNG.integers(INT32_MIN, INT32_MAX, n, endpoint=True)]).astype(np.int32)


def c_div(a: int, b: int) -> int:
    """C integer division: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def ref_srdhm(a: int, b: int) -> int:
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return c_div(ab + nudge, 1 << 31)


def ref_rdbp(x: int, exponent: int) -> int:
    """Exact rational x / 2**exponent rounded half away from zero."""
    q = Fraction(x, 2**exponent)
    magnitude = math.floor(abs(q) + Fraction(1, 2))
    return magnitude if q >= 0 else -magnitude


def ref_mbqm(x: int, multiplier: int, shift: int) -> int:
    left, right = max(shift, 0), max(-shift, 0)
    return ref_rdbp(ref_srdhm(wrap32(x * (1 << left)), multiplier), right)


# -- quantize_multiplier ------------------------------------------------------------------


def test_quantize_multiplier_represents_10000_scales_within_2_pow_minus_31() -> None:
    scales = np.exp(RNG.uniform(math.log(1e-6), math.log(1e3), 10_000))
    for real in map(float, scales):
        multiplier, shift = quantize_multiplier(real)
        assert 2**30 <= multiplier < 2**31 and -19 <= shift <= 10
        represented = Fraction(multiplier) * Fraction(2) ** shift / 2**31
        exact = Fraction(real)
        assert abs(represented - exact) <= exact / 2**31
        # and it is the nearest Q0.31 value (ties away from zero), not merely a close one
        scaled = exact * 2 ** (31 - shift)
        assert multiplier == math.floor(scaled + Fraction(1, 2))


@pytest.mark.parametrize(
    ("real", "expected"),
    [
        (0.0, (0, 0)),
        (0.5, (2**30, 0)),
        (1.0, (2**30, 1)),
        (0.75, (3 * 2**29, 0)),
        (1 - 2**-40, (2**30, 1)),  # rounds up to 2**31: renormalized
        (2**-32, (2**30, -31)),
        (2**-33, (0, 0)),  # below 2**-32: flushed to zero as TFLite does
        (0.1, (1717986918, -3)),
    ],
)
def test_quantize_multiplier_corners(real: float, expected: tuple[int, int]) -> None:
    assert quantize_multiplier(real) == expected


@pytest.mark.parametrize("real", [-0.5, math.inf, math.nan, 2.0**31])
def test_quantize_multiplier_rejects_unrepresentable(real: float) -> None:
    with pytest.raises(ValueError):
        quantize_multiplier(real)


# -- gemmlowp primitives --------------------------------------------------------------------


def test_srdhm_matches_big_int_reference() -> None:
    a, b = random_int32(3000), random_int32(3000)[::-1]
    a = np.concatenate([a, [INT32_MIN, INT32_MIN, INT32_MAX, 1 << 15, -(1 << 15)]]).astype(np.int32)
    b = np.concatenate([b, [INT32_MIN, INT32_MAX, INT32_MIN, 1 << 15, 1 << 15]]).astype(np.int32)
    got = saturating_rounding_doubling_high_mul(a, b)
    assert got.dtype == np.int32
    assert got.tolist() == [ref_srdhm(int(x), int(y)) for x, y in zip(a, b)]
    assert int(saturating_rounding_doubling_high_mul(INT32_MIN, INT32_MIN)) == INT32_MAX


def test_srdhm_rounds_to_nearest_with_ties_up() -> None:
    a, b = random_int32(2000), random_int32(2000)
    for x, y, r in zip(a.tolist(), b.tolist(), saturating_rounding_doubling_high_mul(a, b).tolist()):
        if x == y == INT32_MIN:
            continue
        assert r == math.floor(Fraction(x * y, 2**31) + Fraction(1, 2))
    # ties: +0.5 -> 1 and -0.5 -> 0
    assert saturating_rounding_doubling_high_mul([1 << 15, -(1 << 15)], [1 << 15, 1 << 15]).tolist() == [1, 0]


def test_rounding_divide_by_pot_is_exact_rounding_half_away_from_zero() -> None:
    x = random_int32(2000)
    exponents = RNG.integers(0, 32, x.size)
    got = rounding_divide_by_pot(x, exponents)
    assert got.tolist() == [ref_rdbp(int(v), int(e)) for v, e in zip(x, exponents)]
    ties = np.asarray([3, -3, 5, -5, 6, -6], np.int32)
    assert rounding_divide_by_pot(ties, 1).tolist() == [2, -2, 3, -3, 3, -3]
    with pytest.raises(ValueError):
        rounding_divide_by_pot(ties, 32)


def test_multiply_by_quantized_multiplier_matches_big_int_reference() -> None:
    right = [quantize_multiplier(float(s)) for s in np.exp(RNG.uniform(math.log(1e-6), 0, 300))]
    x = random_int32(300)
    for (multiplier, shift), value in zip(right, x.tolist()):
        got = int(multiply_by_quantized_multiplier(value, multiplier, shift))
        assert got == ref_mbqm(value, multiplier, shift)
        exact = Fraction(value * multiplier, 2**31) * Fraction(2) ** shift
        assert abs(got - exact) <= 1  # two roundings, each at most half a unit
    # left shifts: inputs small enough not to wrap, then inputs that wrap like C int32
    for value in RNG.integers(-(2**20), 2**20, 300).tolist():
        multiplier, shift = quantize_multiplier(float(RNG.uniform(1.0, 1000.0)))
        assert int(multiply_by_quantized_multiplier(value, multiplier, shift)) == ref_mbqm(value, multiplier, shift)
    assert int(multiply_by_quantized_multiplier(2**30, 2**30, 2)) == ref_mbqm(2**30, 2**30, 2)


def test_multiply_by_quantized_multiplier_vectorizes_per_channel() -> None:
    acc = RNG.integers(-(2**24), 2**24, (4, 50)).astype(np.int32)
    params = [quantize_multiplier(s) for s in (3e-4, 0.02, 0.9, 1.7)]
    multipliers = np.asarray([m for m, _ in params]).reshape(4, 1)
    shifts = np.asarray([s for _, s in params]).reshape(4, 1)
    got = multiply_by_quantized_multiplier(acc, multipliers, shifts)
    want = [[ref_mbqm(int(v), m, s) for v in row] for row, (m, s) in zip(acc, params)]
    assert got.dtype == np.int32 and got.tolist() == want


def test_requantize_adds_zero_point_and_clamps() -> None:
    acc = RNG.integers(-(2**22), 2**22, 500).astype(np.int32)
    multiplier, shift = quantize_multiplier(0.00123)
    got = requantize(acc, multiplier, shift, -5, -128, 127)
    assert got.dtype == np.int8
    assert got.tolist() == [min(max(ref_mbqm(int(v), multiplier, shift) - 5, -128), 127) for v in acc]
    relu6 = requantize(acc, multiplier, shift, -128, -128, -128 + 120)  # fused ReLU6 as a narrower range
    assert relu6.min() >= -128 and relu6.max() <= -8
    assert requantize(acc, multiplier, shift, 128, 0, 255).dtype == np.uint8


# -- lookup tables ---------------------------------------------------------------------------


def reference_table(fn, in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> list[int]:  # type: ignore[no-untyped-def]
    table = []
    for q in range(-128, 128):
        y = fn((q - in_zp) * in_scale) / out_scale
        rounded = math.floor(abs(y) + 0.5) * (1 if y >= 0 else -1)
        table.append(min(max(rounded + out_zp, -128), 127))
    return table


def stable_sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


@pytest.mark.parametrize(
    ("in_scale", "in_zp", "out_scale", "out_zp"),
    [(0.05, 3, 1 / 256, -128), (0.1, -20, 0.004, -128), (0.02, 0, 1 / 256, -128), (2.0, 0, 0.01, 0), (1e-3, 127, 1 / 256, -128)],
)
def test_sigmoid_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> None:
    table = sigmoid_table_int8(in_scale, in_zp, out_scale, out_zp)
    assert table.dtype == np.int8 and table.shape == (256,)
    assert np.all(np.diff(table.astype(np.int32)) >= 0)
    assert table.tolist() == reference_table(stable_sigmoid, in_scale, in_zp, out_scale, out_zp)
    if out_scale == 1 / 256 and out_zp == -128:
        assert table[in_zp + 128] == 0  # sigmoid(0) = 0.5 = 128 steps above -128


@pytest.mark.parametrize(
    ("in_scale", "in_zp", "out_scale", "out_zp"),
    [(0.05, 3, 1 / 128, 0), (0.1, -20, 0.008, 2), (0.5, 0, 1 / 128, 0), (0.003, -128, 0.01, -1)],
)
def test_tanh_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> None:
    table = tanh_table_int8(in_scale, in_zp, out_scale, out_zp)
    assert table.dtype == np.int8 and table.shape == (256,)
    assert np.all(np.diff(table.astype(np.int32)) >= 0)
    assert table.tolist() == reference_table(math.tanh, in_scale, in_zp, out_scale, out_zp)
    if out_zp == 0:
        assert table[in_zp + 128] == 0
