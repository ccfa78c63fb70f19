"""tigris.dialects.quant.arith against independent references: onnxruntime's own QuantizeLinear
and DequantizeLinear (graph optimizations off, as test/models/ort_helpers.py runs it), exact
rational arithmetic (`fractions.Fraction`) and hand calculations written down here.

The formulas of whole int8 ops are checked against onnxruntime in test_interpreter_int8_kernels.py
(one op each) and test_interpreter_int8_zoo.py (every op of every zoo model).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ort_helpers import run_onnxruntime  # test/models, on sys.path via conftest
from tigris.dialects.quant import arith

F32 = np.float32
RNG = np.random.default_rng(31)


def conversion_model(op: str, n: int, scale: float, zp: int, storage: int) -> onnx.ModelProto:
    """One QuantizeLinear (float in) or DequantizeLinear (int in) of n values."""
    store = np.uint8 if storage == TensorProto.UINT8 else np.int8
    inp, out = (TensorProto.FLOAT, storage) if op == "QuantizeLinear" else (storage, TensorProto.FLOAT)
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "s", "z"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", inp, [n])],
        [helper.make_tensor_value_info("y", out, [n])],
        [numpy_helper.from_array(F32(scale), "s"), numpy_helper.from_array(np.array(zp, store), "z")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def ties_and_neighbours(scale: float, n: int) -> np.ndarray:
    """(k + 1/2) * scale in float32, its two float32 neighbours, and wide random values."""
    k = RNG.integers(-300, 300, n).astype(F32)
    ties = ((k + F32(0.5)) * F32(scale)).astype(F32)
    wide = (RNG.standard_normal(n) * 150 * scale).astype(F32)
    return np.concatenate(
        [ties, np.nextafter(ties, F32(np.inf)), np.nextafter(ties, F32(-np.inf)), wide, [np.nan, np.inf, -np.inf]]
    ).astype(F32)


@pytest.mark.parametrize("storage", [TensorProto.INT8, TensorProto.UINT8])
def test_quantize_is_onnxruntimes_quantize_linear(storage: int) -> None:
    """Bit for bit on rounding ties, their neighbours, saturation, NaN and infinities (onnxruntime
    divides by the scale, rounds half to even, saturates, and sends NaN to the storage minimum)."""
    lo, hi = (0, 255) if storage == TensorProto.UINT8 else (-128, 127)
    for trial in range(40):
        scale = float(F32(math.exp(RNG.uniform(-8, 2))))
        zp = int(RNG.integers(lo, hi + 1))
        x = ties_and_neighbours(scale, 2000)
        (want,) = run_onnxruntime(conversion_model("QuantizeLinear", x.size, scale, zp, storage), {"x": x})
        np.testing.assert_array_equal(arith.quantize(x, scale, zp, lo, hi), want.astype(np.int64), err_msg=f"trial {trial}")


def test_quantize_by_hand() -> None:
    """Ties to even, both signs, then the zero point; the clamp; NaN to lo."""
    y = np.array([0.25, 0.75, 1.25, -0.25, -0.75, 100.0, -100.0, np.nan], F32)
    # y / 0.5 = 0.5, 1.5, 2.5, -0.5, -1.5 -> 0, 2, 2, -0, -2 (+3); 200 -> 127; -200 -> -128; NaN -> -128
    np.testing.assert_array_equal(arith.quantize(y, 0.5, 3, -128, 127), [3, 5, 5, 3, 1, 127, -128, -128])
    assert arith.quantize_scalar(6.0, (12.0, 0), -128, 127) == 0  # 0.5 -> 0, not TFLite's 1


@pytest.mark.parametrize("storage", [TensorProto.INT8, TensorProto.UINT8])
def test_dequantize_is_onnxruntimes_dequantize_linear(storage: int) -> None:
    lo, hi = (0, 255) if storage == TensorProto.UINT8 else (-128, 127)
    q = np.arange(lo, hi + 1).astype(np.uint8 if lo == 0 else np.int8)
    for _ in range(60):
        scale = float(F32(math.exp(RNG.uniform(-12, 4))))
        zp = int(RNG.integers(lo, hi + 1))
        (want,) = run_onnxruntime(conversion_model("DequantizeLinear", q.size, scale, zp, storage), {"x": q})
        got = arith.dequantize(q, scale, zp)
        assert got.dtype == F32
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_requantize_accumulator_by_hand() -> None:
    """S = 0.25: acc 6 -> 1.5 -> 2, acc 10 -> 2.5 -> 2 (ties to even; TFLite's double rounding gives
    3), acc -10 -> -2.5 -> -2, acc 11 -> 2.75 -> 3; + zp 5; the clamp [0, 6] of a fused relu6."""
    acc = np.array([6, 10, -10, 11, 1000, -1000])
    np.testing.assert_array_equal(arith.requantize_accumulator(acc, 0.25, 5, 0, 6), [6, 6, 3, 6, 6, 0])
    # above 2**24 float32(acc) rounds to nearest even: 2**24 + 1 -> 2**24, times 2**-24 -> 1
    assert int(arith.requantize_accumulator(np.array([2**24 + 1]), 2.0**-24, 0, -128, 127)[0]) == 1
    with pytest.raises(ValueError, match="int32"):
        arith.requantize_accumulator(np.array([2**31]), 1.0, 0, -128, 127)


def test_accumulator_scales_are_the_nearest_float32_of_the_exact_ratio() -> None:
    """float32(sx sw / sy) from float32 scales: within half a float32 step of the exact rational
    (evaluating in float64 first adds at most 2**-52 relative before the final rounding)."""
    sx = F32(math.exp(RNG.uniform(-7, 0)))
    sw = np.exp(RNG.uniform(-12, -2, 5000)).astype(F32)
    sy = F32(math.exp(RNG.uniform(-7, 0)))
    got = arith.accumulator_scales(sx, sw, sy)
    assert got.dtype == F32
    for s, w in zip(got, sw):
        exact = Fraction(float(sx)) * Fraction(float(w)) / Fraction(float(sy))
        ulp = Fraction(float(np.spacing(s)))
        assert abs(Fraction(float(s)) - exact) <= ulp * (Fraction(1, 2) + Fraction(1, 2**28))
    with pytest.raises(ValueError, match="not a normal float32"):
        arith.accumulator_scales(1e-30, [1e-30], 1e30)
    with pytest.raises(ValueError, match="positive"):
        arith.accumulator_scales(0.5, [0.0], 1.0)


def test_dense_accumulator_bound() -> None:
    """taps * 255 * 128 + bias against 2**31 - 1 = 2147483647: 65793 taps fit (2147483520), with a
    bias of 128 they do not; 65794 taps never do."""
    assert arith.dense_accumulator_fits(65793, 255, 128, 127)
    assert not arith.dense_accumulator_fits(65793, 255, 128, 128)
    assert not arith.dense_accumulator_fits(65794, 255, 128, 0)
    assert arith.MEAN_MAX_COUNT == 8421504  # floor((2**31 - 1) / 255)
    assert arith.max_offset(-128, -128, 127) == 255 and arith.max_offset(0, -128, 127) == 128


def test_mean_of_total_by_hand() -> None:
    """sx = sy = 1: sums 3 and 5 over 2 -> 1.5 -> 2 and 2.5 -> 2 (ties to even; TFLite's average
    rounds both away from zero: 2 and 3); -5 over 2 -> -2.5 -> -2; sx 0.5, sy 0.25: 7 / 4 * 2 = 3.5 -> 4."""
    np.testing.assert_array_equal(arith.mean_of_total(np.array([3, 5, -5]), 2, 1.0, 1.0, 0, -128, 127), [2, 2, -2])
    assert int(arith.mean_of_total(np.array(7), 4, 0.5, 0.25, -1, -128, 127)) == 3


def test_binary_by_hand() -> None:
    """(3 - 1) 0.5 + (-4 - 0) 0.25 = 0 -> zp 7; (5 - 1) 0.5 = 2 times (2 - 0) 0.25 = 0.5 is 1, / 0.25
    = 4; (3 - 1) 0.5 / 0 = inf -> hi."""
    a_q, b_q = (0.5, 1), (0.25, 0)
    assert int(arith.binary("add", np.array(3), a_q, np.array(-4), b_q, (0.1, 7), -128, 127)) == 7
    assert int(arith.binary("mul", np.array(5), a_q, np.array(2), b_q, (0.25, 0), -128, 127)) == 4
    assert int(arith.binary("div", np.array(3), a_q, np.array(0), b_q, (0.25, 0), -128, 127)) == 127


def test_exp_f32_is_within_1_2_ulp_of_exp() -> None:
    """Against the float64 exp of the same float32 argument, over 2,000,001 points of [-87, 88]."""
    x = np.linspace(-87, 88, 2_000_001).astype(F32)
    y = arith.exp_f32(x)
    ref = np.exp(x.astype(np.float64))
    ulps = np.abs(y.astype(np.float64) - ref) / np.spacing(ref.astype(F32)).astype(np.float64)
    assert ulps.max() <= 1.2
    np.testing.assert_array_equal(arith.exp_f32(np.array([-88, 0, 89, -np.inf, np.inf], F32)), [0, 1, np.inf, 0, np.inf])
    assert np.isnan(arith.exp_f32(np.array([np.nan], F32))[0])


def test_softmax_f32_against_float64() -> None:
    x = (RNG.standard_normal((50, 37)) * 4).astype(F32)
    got = arith.softmax_f32(x, axis=1)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    assert np.max(np.abs(got - want) / want) < 2e-6
    np.testing.assert_array_equal(arith.softmax_f32(x.T, axis=0), got.T)  # the axis is honoured


def test_activation_range_by_hand() -> None:
    """relu: [max(lo, zp), hi]; relu6: quantize(6) is rint(6 / s) + zp: 6 / 0.05 = 120 -> 123 at zp 3;
    6 / (6 / 255) = 255 -> 127 at zp -128; 6 / 12 = 0.5 -> 0 (even)."""
    assert arith.activation_range("relu6", 0.05, 3, -128, 127) == (3, 123)
    assert arith.activation_range("relu6", float(F32(6 / 255)), -128, -128, 127) == (-128, 127)
    assert arith.activation_range("relu6", 12.0, 3, -128, 127) == (3, 3)
    assert arith.activation_range("relu", 0.05, -20, -128, 127) == (-20, 127)
    assert arith.activation_range("none", 0.05, -20, 0, 255) == (0, 255)


def test_unary_table_by_hand() -> None:
    """identity between equal uint8 parameters is 0..255; abs between (0.5, 0) and (1, 0): |v| / 2
    with ties to even: v = -3 -> 1.5 -> 2, -1 -> 0.5 -> 0, 1 -> 0, 3 -> 2, 5 -> 2.5 -> 2."""
    table = arith.unary_table(lambda x: x, (0.1, 0), (0.1, 0), (0, 255), (0, 255))
    assert table.dtype == np.uint8 and table.tolist() == list(range(256))
    table = arith.unary_table(np.abs, (0.5, 0), (1.0, 0))
    assert [int(table[v + 128]) for v in (-3, -1, 1, 3, 5)] == [2, 0, 0, 2, 2]
