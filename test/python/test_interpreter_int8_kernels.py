"""The int8 kernels of the reference interpreter against Python big-integer references written
here (naive loops; TFLite's C definitions transcribed: C `/` truncates, int32 wraps), which
share no code with the kernels. Each test runs a one-op `func.func @main` whose operands are
function arguments (weights too, so the stored integers are exact).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects import make_context
from tigris.dialects.interpreter import quant_math as qm
from tigris.dialects.interpreter import run_module

RNG = np.random.default_rng(2024)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


# -- TFLite / gemmlowp primitives, transcribed in Python integers ----------------------------------


def c_div(a: int, b: int) -> int:
    """C integer division: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def tflite_round(x: float) -> int:
    """TfLiteRound / std::round: half away from zero."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def quantize_multiplier(real: float) -> tuple[int, int]:
    """tensorflow/lite/kernels/internal/quantization_util.cc QuantizeMultiplier."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = tflite_round(q * (1 << 31))
    if q_fixed == 1 << 31:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def srdhm(a: int, b: int) -> int:
    """gemmlowp SaturatingRoundingDoublingHighMul."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return c_div(ab + nudge, 1 << 31)


def rdbp(x: int, exponent: int) -> int:
    """gemmlowp RoundingDivideByPOT (two's complement & and >> as Python's infinite-precision ones)."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def mbqm(x: int, multiplier: int, shift: int) -> int:
    """TFLite MultiplyByQuantizedMultiplier (the int32 left shift wraps like the C code)."""
    left, right = max(shift, 0), max(-shift, 0)
    return rdbp(srdhm(wrap32(x * (1 << left)), multiplier), right)


def mbqm_smaller_than_one_exp(x: int, multiplier: int, left_shift: int) -> int:
    """TFLite MultiplyByQuantizedMultiplierSmallerThanOneExp (left_shift <= 0)."""
    return rdbp(srdhm(x, multiplier), -left_shift)


def clamp(v: int, lo: int = -128, hi: int = 127) -> int:
    return min(max(v, lo), hi)


def f32(x: float) -> float:
    """A float32-representable scale (the IR's scales come from float32 ONNX initializers)."""
    return float(np.float32(x))


# -- running one op ------------------------------------------------------------------------------


context = make_context


def q(scale: float, zp: int, storage: str = "i8") -> str:
    return f"!tgr.quant<{storage}, {scale!r}:{zp}>"


def q_axis(scales: list[float], zps: list[int], axis: int = 0, storage: str = "i8") -> str:
    pairs = ", ".join(f"{s!r}:{z}" for s, z in zip(scales, zps))
    return f"!tgr.quant<{storage}:{axis}, {{{pairs}}}>"


def tensor(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{element}>"


def run1(op: str, operands: list[tuple[np.ndarray, str] | None], out_shape: tuple[int, ...], out_element: str,
         props: str = "") -> np.ndarray:
    """`%y = <op> %a0, ... {props}` with each operand a function argument of the given element type
    (None: an absent optional operand, printed `none`)."""
    present = [o for o in operands if o is not None]
    types = [tensor(a.shape, e) for a, e in present]
    out_t = tensor(out_shape, out_element)
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    names, index = [], 0
    for operand in operands:
        names.append("none" if operand is None else f"%a{index}")
        index += operand is not None
    names = ", ".join(names)  # type: ignore[assignment]
    text = (
        f"func.func @main({args}) -> {out_t} {{\n"
        f"  %y = {op} {names} {props} : ({', '.join(types)}) -> {out_t}\n"
        f"  func.return %y : {out_t}\n}}"
    )
    module = Parser(context(), text).parse_module()
    module.verify()
    (result,) = run_module(module, [a for a, _ in present])
    assert result.shape == out_shape
    return result


def arr(values: list[int]) -> str:
    return f"array<i64: {', '.join(map(str, values))}>"


def i8(*shape: int, lo: int = -128, hi: int = 127) -> np.ndarray:
    return RNG.integers(lo, hi, shape, endpoint=True).astype(np.int8)


# -- convolutions --------------------------------------------------------------------------------


def ref_conv(x, zx, w, zw, bias, sx, sw, sy, zy, strides, dilations, pads, group, activation):  # type: ignore[no-untyped-def]
    """TFLite's reference per-channel conv, with loops: padded taps are skipped (they are x_zp)."""
    n, c, *spatial = x.shape
    o, cg, *kernel = w.shape
    rank = len(spatial)
    out = [(spatial[i] + pads[i] + pads[rank + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(rank)]  # fmt: skip
    lo, hi = -128, 127
    if activation in ("relu", "relu6"):
        lo = max(lo, zy)
    if activation == "relu6":
        hi = min(hi, zy + tflite_round(6.0 / sy))
    y = np.zeros((n, o, *out), np.int64)
    for b_, oc in itertools.product(range(n), range(o)):
        g = oc // (o // group)
        multiplier, shift = quantize_multiplier(sx * sw[oc] / sy)
        for pos in itertools.product(*map(range, out)):
            acc = int(bias[oc]) if bias is not None else 0
            for ic, tap in itertools.product(range(cg), itertools.product(*map(range, kernel))):
                src = [pos[i] * strides[i] - pads[i] + tap[i] * dilations[i] for i in range(rank)]
                if all(0 <= s < spatial[i] for i, s in enumerate(src)):
                    acc += (int(x[(b_, g * cg + ic, *src)]) - zx) * (int(w[(oc, ic, *tap)]) - int(zw[oc]))
            y[(b_, oc, *pos)] = clamp(zy + mbqm(acc, multiplier, shift), lo, hi)
    return y


def conv_case(op: str, x_shape, w_shape, group, strides, dilations, pads, activation, w_zps, with_bias=True):  # type: ignore[no-untyped-def]
    sx, zx = f32(0.043), -7
    sy, zy = f32(0.029), -128 if activation != "none" else 5
    o = w_shape[0]
    sw = [f32(v) for v in RNG.uniform(0.004, 0.03, o)]
    x, w = i8(*x_shape), i8(*w_shape, lo=-127)
    bias = RNG.integers(-3000, 3000, o).astype(np.int32) if with_bias else None
    operands = [(x, q(sx, zx)), (w, q_axis(sw, w_zps))]
    if bias is not None:
        operands.append((bias, q_axis([sx * s for s in sw], [0] * o, storage="i32")))
    props = [f"strides = {arr(strides)}", f"dilations = {arr(dilations)}", f"pads = {arr(pads)}",
             f'fused_activation = "{activation}"'] + ([f"group = {group} : i64"] if op != "tgr.depthwise_conv" else [])  # fmt: skip
    want = ref_conv(x, zx, w, w_zps, bias, sx, sw, sy, zy, strides, dilations, pads, group, activation)
    got = run1(op, operands, want.shape, q(sy, zy), "{" + ", ".join(props) + "}")
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    return got, zy, sy


@pytest.mark.parametrize("activation", ["none", "relu", "relu6"])
def test_conv_zero_points_per_channel_padding_stride(activation: str) -> None:
    w_zps = [0, 3, -2, 0, 1, -5]  # TFLite wants 0; the kernel supports any
    got, zy, sy = conv_case("tgr.conv", (2, 4, 9, 8), (6, 2, 3, 3), 2, [2, 1], [1, 2], [1, 2, 2, 0], activation, w_zps)
    if activation == "relu6":  # both fused bounds are exercised
        assert (got == zy).any() and (got == zy + tflite_round(6.0 / sy)).any()
    assert len(np.unique(got)) > 20


def test_conv_without_bias() -> None:
    conv_case("tgr.conv", (1, 3, 6, 5), (4, 3, 3, 3), 1, [1, 1], [1, 1], [1, 1, 1, 1], "none", [0] * 4, with_bias=False)


def test_depthwise_conv_with_multiplier() -> None:
    conv_case("tgr.depthwise_conv", (1, 3, 7, 6), (6, 1, 3, 3), 3, [2, 2], [1, 1], [1, 1, 1, 1], "relu6", [0] * 6)


def test_conv1d() -> None:
    conv_case("tgr.conv1d", (2, 3, 17), (5, 3, 4), 1, [2], [2], [3, 1], "relu", [0] * 5)


def test_fully_connected() -> None:
    sx, zx, sy, zy = f32(0.05), 11, f32(0.09), -20
    x, w = i8(3, 10), i8(5, 10, lo=-127)
    sw = [f32(v) for v in RNG.uniform(0.005, 0.02, 5)]
    bias = RNG.integers(-2000, 2000, 5).astype(np.int32)
    want = np.zeros((3, 5), np.int64)
    for n, m in itertools.product(range(3), range(5)):
        acc = int(bias[m]) + sum((int(x[n, k]) - zx) * int(w[m, k]) for k in range(10))
        want[n, m] = clamp(zy + mbqm(acc, *quantize_multiplier(sx * sw[m] / sy)), max(-128, zy))  # relu
    operands = [(x, q(sx, zx)), (w, q_axis(sw, [0] * 5)), (bias, q_axis([sx * s for s in sw], [0] * 5, storage="i32"))]
    got = run1("tgr.fully_connected", operands, (3, 5), q(sy, zy), '{fused_activation = "relu"}')
    np.testing.assert_array_equal(got, want)


def test_bias_at_the_wrong_scale_and_overflowing_accumulators_are_refused() -> None:
    sx, sy = f32(0.05), f32(0.1)
    x, w = i8(1, 4), i8(2, 4)
    ok_bias_type = q_axis([sx * 0.01, sx * 0.02], [0, 0], storage="i32")
    w_type = q_axis([0.01, 0.02], [0, 0])
    with pytest.raises(InterpretationError, match="tgr.fully_connected.*bias scale"):
        run1("tgr.fully_connected", [(x, q(sx, 0)), (w, w_type), (np.zeros(2, np.int32), q_axis([1e-3, 1e-3], [0, 0], storage="i32"))], (1, 2), q(sy, 0))
    huge = np.full(2, INT32_MAX - 10, np.int32)
    with pytest.raises(InterpretationError, match="int32"):
        run1("tgr.fully_connected", [(np.full((1, 4), 127, np.int8), q(sx, -128)), (np.full((2, 4), 127, np.int8), w_type), (huge, ok_bias_type)], (1, 2), q(sy, 0))


# -- element-wise arithmetic -----------------------------------------------------------------------


def tflite_add_elementwise(x1: np.ndarray, x2: np.ndarray, s1: float, z1: int, s2: float, z2: int, so: float, zo: int,
                           subtract: bool = False) -> np.ndarray:
    """tensorflow/lite/kernels/add.cc Prepare (int8) + reference_integer_ops::AddElementwise, literally."""
    input1_offset, input2_offset, output_offset = -z1, -z2, zo
    left_shift = 20
    twice_max_input_scale = 2 * max(s1, s2)
    real_input1_multiplier = s1 / twice_max_input_scale
    real_input2_multiplier = s2 / twice_max_input_scale
    real_output_multiplier = twice_max_input_scale / ((1 << left_shift) * so)
    input1_multiplier, input1_shift = quantize_multiplier(real_input1_multiplier)  # SmallerThanOneExp: < 1
    input2_multiplier, input2_shift = quantize_multiplier(real_input2_multiplier)
    output_multiplier, output_shift = quantize_multiplier(real_output_multiplier)
    assert max(input1_shift, input2_shift, output_shift) <= 0
    a, b = np.broadcast_arrays(x1, x2)
    out = np.zeros(a.shape, np.int64)
    for i in np.ndindex(a.shape):
        input1_val = input1_offset + int(a[i])
        input2_val = input2_offset + int(b[i])
        shifted_input1_val = input1_val * (1 << left_shift)
        shifted_input2_val = input2_val * (1 << left_shift)
        scaled_input1_val = mbqm_smaller_than_one_exp(shifted_input1_val, input1_multiplier, input1_shift)
        scaled_input2_val = mbqm_smaller_than_one_exp(shifted_input2_val, input2_multiplier, input2_shift)
        raw_sum = scaled_input1_val - scaled_input2_val if subtract else scaled_input1_val + scaled_input2_val
        raw_output = mbqm_smaller_than_one_exp(raw_sum, output_multiplier, output_shift) + output_offset
        out[i] = min(127, max(-128, raw_output))
    return out


@pytest.mark.parametrize("op", ["tgr.add", "tgr.sub"])
def test_add_and_sub_with_different_scales_broadcasting(op: str) -> None:
    s1, z1, s2, z2, so, zo = f32(0.0172), 14, f32(0.0531), -39, f32(0.0455), 3
    x1, x2 = i8(2, 3, 4, 5), i8(1, 3, 1, 5)
    want = tflite_add_elementwise(x1, x2, s1, z1, s2, z2, so, zo, subtract=op == "tgr.sub")
    got = run1(op, [(x1, q(s1, z1)), (x2, q(s2, z2))], want.shape, q(so, zo))
    np.testing.assert_array_equal(got, want)
    exact = ((x1.astype(np.float64) - z1) * s1 + (-1 if op == "tgr.sub" else 1) * (x2.astype(np.float64) - z2) * s2) / so + zo
    assert np.max(np.abs(got - np.clip(exact, -128, 127))) <= 0.51  # and it is the sum to half a step


def test_mul() -> None:
    s1, z1, s2, z2, so, zo = f32(0.0496), -7, 1 / 256, -128, f32(0.0270), -118
    x1, x2 = i8(2, 16), i8(2, 16)
    want = np.zeros((2, 16), np.int64)
    multiplier, shift = quantize_multiplier(s1 * s2 / so)
    for i in np.ndindex(want.shape):
        want[i] = clamp(zo + mbqm((int(x1[i]) - z1) * (int(x2[i]) - z2), multiplier, shift))
    np.testing.assert_array_equal(run1("tgr.mul", [(x1, q(s1, z1)), (x2, q(s2, z2))], (2, 16), q(so, zo)), want)


# -- pools and means -------------------------------------------------------------------------------


def tflite_average(total: int, count: int) -> int:
    """reference_integer_ops::AveragePool's rounding."""
    return c_div(total + count // 2, count) if total > 0 else c_div(total - count // 2, count)


def ref_avg_pool(x, zp, kernel, strides, pads, include_pad):  # type: ignore[no-untyped-def]
    n, c, h, w = x.shape
    oh = (h + pads[0] + pads[2] - kernel[0]) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - kernel[1]) // strides[1] + 1
    y = np.zeros((n, c, oh, ow), np.int64)
    for b, ch, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        total, count = 0, 0
        for ki, kj in itertools.product(range(kernel[0]), range(kernel[1])):
            r, s = i * strides[0] - pads[0] + ki, j * strides[1] - pads[1] + kj
            if 0 <= r < h and 0 <= s < w:
                total, count = total + int(x[b, ch, r, s]), count + 1
            elif include_pad:  # a counted pad is the real 0: the zero point
                total, count = total + zp, count + 1
        y[b, ch, i, j] = clamp(tflite_average(total, count))
    return y


def test_avg_pool_rounds_negative_sums_away_from_zero() -> None:
    sx, zx = f32(0.02), -3
    # 2x2 windows: sums -6, 6, -5, -2 (ties -1.5 / 1.5 round away from zero; -1.25 -> -1; -0.5 -> -1)
    x = np.array([[[[-1, -2, 2, 1], [-1, -2, 2, 1], [-1, -1, -1, 0], [-1, -2, -1, 0]]]], np.int8)
    props = f"{{kernel_shape = {arr([2, 2])}, strides = {arr([2, 2])}}}"
    got = run1("tgr.avg_pool", [(x, q(sx, zx))], (1, 1, 2, 2), q(sx, zx), props)
    np.testing.assert_array_equal(got, [[[[-2, 2], [-1, -1]]]])
    np.testing.assert_array_equal(got, ref_avg_pool(x, zx, [2, 2], [2, 2], [0] * 4, False))


@pytest.mark.parametrize("include", [0, 1])
def test_avg_pool_padded(include: int) -> None:
    sx, zx = f32(0.03), 17
    x = i8(2, 3, 7, 8)
    pads = [1, 1, 1, 0]
    props = f"{{kernel_shape = {arr([3, 3])}, strides = {arr([2, 2])}, pads = {arr(pads)}, count_include_pad = {include} : i64}}"
    want = ref_avg_pool(x, zx, [3, 3], [2, 2], pads, include == 1)
    np.testing.assert_array_equal(run1("tgr.avg_pool", [(x, q(sx, zx))], want.shape, q(sx, zx), props), want)


def test_avg_pool_requantizes_to_other_parameters() -> None:
    sx, zx, sy, zy = f32(0.03), 17, f32(0.021), -40
    x = i8(1, 2, 6, 6)
    props = f"{{kernel_shape = {arr([2, 2])}, strides = {arr([2, 2])}}}"
    average = ref_avg_pool(x, zx, [2, 2], [2, 2], [0] * 4, False)
    multiplier, shift = quantize_multiplier(sx / sy)
    want = np.vectorize(lambda v: clamp(zy + mbqm(int(v) - zx, multiplier, shift)))(average)
    np.testing.assert_array_equal(run1("tgr.avg_pool", [(x, q(sx, zx))], want.shape, q(sy, zy), props), want)


def ref_mean(x: np.ndarray, axes: tuple[int, ...], keepdims: bool, sx: float, zx: int, sy: float, zy: int) -> np.ndarray:
    """TFLite MEAN (int8): sum of (x - zp_in), one multiplier of s_in / (s_out * count)."""
    count = math.prod(x.shape[a] for a in axes)
    multiplier, shift = quantize_multiplier(sx / (sy * count))
    kept = [d for i, d in enumerate(x.shape) if i not in axes]
    y = np.zeros(kept, np.int64)
    for index in np.ndindex(*kept):
        total = 0
        for red in np.ndindex(*[x.shape[a] for a in axes]):
            full, it_k, it_r = [], iter(index), iter(red)
            for i in range(x.ndim):
                full.append(next(it_r) if i in axes else next(it_k))
            total += int(x[tuple(full)]) - zx
        y[index] = clamp(zy + mbqm(total, multiplier, shift))
    return y.reshape([1 if i in axes else d for i, d in enumerate(x.shape)]) if keepdims else y


def test_global_avg_pool_is_tflite_mean() -> None:
    sx, zx, sy, zy = f32(0.0950), -128, f32(0.0627), -128
    x = i8(1, 6, 5, 7)
    want = ref_mean(x, (2, 3), True, sx, zx, sy, zy)
    np.testing.assert_array_equal(run1("tgr.global_avg_pool", [(x, q(sx, zx))], (1, 6, 1, 1), q(sy, zy)), want)


@pytest.mark.parametrize(("axes", "keepdims"), [((2, 3), 1), ((1,), 0), ((1, 3), 1)])
def test_reduce_mean(axes: tuple[int, ...], keepdims: int) -> None:
    sx, zx, sy, zy = f32(0.041), 9, f32(0.013), -2
    x = i8(2, 5, 4, 3)
    want = ref_mean(x, axes, keepdims == 1, sx, zx, sy, zy)
    props = f"{{axes = {arr(list(axes))}, keepdims = {keepdims} : i64}}"
    np.testing.assert_array_equal(run1("tgr.reduce_mean", [(x, q(sx, zx))], want.shape, q(sy, zy), props), want)


def test_max_pool_ignores_padding_and_requantizes() -> None:
    sx, zx, sy, zy = f32(0.034), -128, f32(0.05), -100
    x = i8(1, 2, 6, 5, lo=-128, hi=-100)  # all below the real 0 ... -128 is the smallest: padding must not win
    props = f"{{kernel_shape = {arr([3, 3])}, strides = {arr([2, 2])}, pads = {arr([1, 1, 1, 1])}}}"
    multiplier, shift = quantize_multiplier(sx / sy)
    want = np.zeros((1, 2, 3, 3), np.int64)
    for c, i, j in itertools.product(range(2), range(3), range(3)):
        window = [int(x[0, c, r, s]) for r in range(2 * i - 1, 2 * i + 2) for s in range(2 * j - 1, 2 * j + 2)
                  if 0 <= r < 6 and 0 <= s < 5]  # fmt: skip
        want[0, c, i, j] = clamp(zy + mbqm(max(window) - zx, multiplier, shift))
    np.testing.assert_array_equal(run1("tgr.max_pool", [(x, q(sx, zx))], (1, 2, 3, 3), q(sy, zy), props), want)


# -- data movement ---------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_concat_requantizes_inputs_with_other_parameters(layout: str) -> None:
    sa, za, sb, zb = f32(0.0159), -110, f32(0.0227), -116
    a, b = i8(1, 3, 4, 5), i8(1, 2, 4, 5)
    axis = 3 if layout == "nhwc" else 1  # the channel axis either way
    got = run1("tgr.concat", [(a, q(sa, za)), (b, q(sb, zb))], (1, 5, 4, 5), q(sb, zb),
               f'{{axis = {axis} : i64, layout = "{layout}"}}')  # fmt: skip
    multiplier, shift = quantize_multiplier(sa / sb)
    want_a = np.vectorize(lambda v: clamp(zb + mbqm(int(v) - za, multiplier, shift)))(a)
    np.testing.assert_array_equal(got[:, :3], want_a)
    np.testing.assert_array_equal(got[:, 3:], b)  # same parameters: moved unchanged


def test_resize_nearest_replicates_and_movement_ops_keep_values() -> None:
    s, z = f32(0.028), -128
    x = i8(1, 2, 3, 4)
    got = run1("tgr.resize", [(x, q(s, z))], (1, 2, 6, 8), q(s, z),
               f'{{scales = {arr([1, 1, 2, 2])}, coordinate_transformation_mode = "asymmetric"}}')  # fmt: skip
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))
    np.testing.assert_array_equal(run1("tgr.transpose", [(x, q(s, z))], (1, 3, 4, 2), q(s, z), f"{{perm = {arr([0, 2, 3, 1])}}}"),
                                  x.transpose(0, 2, 3, 1))  # fmt: skip
    np.testing.assert_array_equal(run1("tgr.reshape", [(x, q(s, z))], (2, 12), q(s, z)), x.reshape(2, 12))
    np.testing.assert_array_equal(run1("tgr.flatten", [(x, q(s, z))], (1, 24), q(s, z)), x.reshape(1, 24))
    multiplier, shift = quantize_multiplier(s / 0.05)
    want = np.vectorize(lambda v: clamp(3 + mbqm(int(v) - z, multiplier, shift)))(x.reshape(2, 12))
    np.testing.assert_array_equal(run1("tgr.reshape", [(x, q(s, z))], (2, 12), q(0.05, 3)), want)


# -- lookup tables ---------------------------------------------------------------------------------


def float_table(fn, sx: float, zx: int, sy: float, zy: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The float formula per int8 value, in Python floats: clamp(round_half_away(f(x) / s_y) + zp_y)."""
    return np.array([clamp(tflite_round(fn((v - zx) * sx) / sy) + zy) for v in range(-128, 128)])


def py_sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


@pytest.mark.parametrize(
    ("op", "fn", "props", "out_q"),
    [
        ("tgr.sigmoid", py_sigmoid, "", (1 / 256, -128)),
        ("tgr.sigmoid", py_sigmoid, "", (f32(0.0039198), -128)),
        ("tgr.tanh", math.tanh, "", (1 / 128, 0)),
        ("tgr.hard_swish", lambda x: x * min(max(x + 3, 0), 6) / 6, "", (f32(0.0258), -113)),
        ("tgr.relu", lambda x: max(x, 0.0), "", (f32(0.05), -128)),
        ("tgr.relu6", lambda x: min(max(x, 0.0), 6.0), "", (6 / 255, -128)),
        ("tgr.clip", lambda x: min(max(x, -1.5), 2.0), "{min = -1.5 : f32, max = 2.0 : f32}", (f32(0.02), 10)),
        ("tgr.leaky_relu", lambda x: x if x >= 0 else f32(0.1) * x, "{alpha = 0.1 : f32}", (f32(0.04), -30)),
    ],
)
def test_lookup_table_ops_match_the_float_formula(op: str, fn, props: str, out_q: tuple[float, int]) -> None:  # type: ignore[no-untyped-def]
    sx, zx = f32(0.0496), -7
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
    got = run1(op, [(x, q(sx, zx))], (1, 256), q(*out_q), props)
    want = float_table(fn, sx, zx, *out_q)
    np.testing.assert_array_equal(got[0], want)
    if op == "tgr.sigmoid":
        assert np.all(np.diff(got[0].astype(int)) >= 0) and got[0, zx + 128] == clamp(tflite_round(0.5 / out_q[0]) + out_q[1])


def test_tables_for_the_emitter() -> None:
    """quant_math's table builders are what the compiler emits: same numbers as the kernels use."""
    np.testing.assert_array_equal(qm.activation_table_int8("sigmoid", (0.05, -7), (1 / 256, -128)),
                                  qm.sigmoid_table_int8(0.05, -7, 1 / 256, -128))  # fmt: skip
    np.testing.assert_array_equal(qm.unary_table_int8(np.tanh, (0.03, 4), (1 / 128, 0)), qm.tanh_table_int8(0.03, 4, 1 / 128, 0))
    table = qm.unary_table_int8(lambda x: x, (0.1, 0), (0.1, 0), (0, 255), (0, 255))
    assert table.dtype == np.uint8 and table.tolist() == list(range(256))


# -- parameters, refusals ----------------------------------------------------------------------------


def test_compile_time_parameters() -> None:
    for s1, s2, so in [(0.0172, 0.0531, 0.0455), (0.1, 0.1, 0.2), (0.003, 0.5, 0.25)]:
        s1, s2, so = f32(s1), f32(s2), f32(so)
        twice = 2 * max(s1, s2)
        assert qm.add_params(s1, s2, so) == (
            quantize_multiplier(s1 / twice), quantize_multiplier(s2 / twice), quantize_multiplier(twice / ((1 << 20) * so)))
    reals = RNG.uniform(1e-4, 3, 20)
    multipliers, shifts = qm.quantize_multipliers(reals)
    assert [(int(m), int(s)) for m, s in zip(multipliers, shifts)] == [quantize_multiplier(float(r)) for r in reals]
    assert qm.activation_range("relu6", 6 / 255, -128, -128, 127) == (-128, 127)
    assert qm.activation_range("relu6", 0.05, 3, -128, 127) == (3, 123)
    assert qm.activation_range("relu", 0.05, -200 + 180, -128, 127) == (-20, 127)


def test_ops_without_an_int8_kernel_are_refused_by_name() -> None:
    s = q(0.05, -3)
    with pytest.raises(InterpretationError, match="tgr.softmax.*no int8 kernel"):
        run1("tgr.softmax", [(i8(1, 4), s)], (1, 4), s)
    with pytest.raises(InterpretationError, match="tgr.div.*no int8 kernel"):
        run1("tgr.div", [(i8(1, 4), s), (i8(1, 4), s)], (1, 4), s)
    with pytest.raises(InterpretationError, match="tgr.resize.*linear"):
        run1("tgr.resize", [(i8(1, 1, 2, 2), s)], (1, 1, 4, 4), s, f'{{scales = {arr([1, 1, 2, 2])}, mode = "linear"}}')
    with pytest.raises(InterpretationError, match="tgr.add.*not a !tgr.quant"):  # mixed float/int8
        run1("tgr.add", [(i8(1, 4), s), (np.zeros((1, 4), np.float32), "f32")], (1, 4), s)


def test_table_ties_round_half_away_from_zero() -> None:
    """Exact ties (x / s_y = k + 1/2) round away from zero, TFLite's rounding, both signs."""
    x = np.array([[-5, -3, -1, 0, 1, 3, 5]], np.int8)
    got = run1("tgr.clip", [(x, q(0.5, 0))], (1, 7), q(1.0, 0), "{min = -100.0 : f32, max = 100.0 : f32}")
    np.testing.assert_array_equal(got, [[-3, -2, -1, 0, 1, 2, 3]])


def test_conv_transpose() -> None:
    sx, zx, sy, zy = f32(0.04), 3, f32(0.07), -9
    x, w = i8(1, 4, 3, 4), i8(4, 3, 3, 2, lo=-127)  # weight [C_in, C_out, kh, kw], per channel on axis 1
    sw = [f32(v) for v in RNG.uniform(0.005, 0.02, 3)]
    bias = RNG.integers(-500, 500, 3).astype(np.int32)
    strides, pads, output_padding = [2, 3], [1, 0, 0, 2], [1, 1]
    full = [strides[i] * ((3, 4)[i] - 1) + (3, 2)[i] + output_padding[i] for i in range(2)]
    acc = np.zeros((3, *full), dtype=object)
    for ic, i, j, oc, ki, kj in itertools.product(range(4), range(3), range(4), range(3), range(3), range(2)):
        acc[oc, i * strides[0] + ki, j * strides[1] + kj] += (int(x[0, ic, i, j]) - zx) * int(w[ic, oc, ki, kj])
    acc = acc[:, pads[0] : full[0] - pads[2], pads[1] : full[1] - pads[3]]
    want = np.zeros(acc.shape, np.int64)
    for oc, i, j in np.ndindex(*acc.shape):
        want[oc, i, j] = clamp(zy + mbqm(int(acc[oc, i, j]) + int(bias[oc]), *quantize_multiplier(sx * sw[oc] / sy)))
    operands = [(x, q(sx, zx)), (w, q_axis(sw, [0] * 3, axis=1)), (bias, q_axis([sx * s for s in sw], [0] * 3, storage="i32"))]
    props = f"{{strides = {arr(strides)}, pads = {arr(pads)}, output_padding = {arr(output_padding)}}}"
    got = run1("tgr.conv_transpose", operands, (1, *want.shape), q(sy, zy), props)
    np.testing.assert_array_equal(got[0], want)


def test_matmul_of_two_int8_activations() -> None:
    sa, za, sb, zb, sy, zy = f32(0.03), -5, f32(0.02), 7, f32(0.2), 1
    a, b = i8(2, 3, 6), i8(6, 4)
    multiplier, shift = quantize_multiplier(sa * sb / sy)
    want = np.zeros((2, 3, 4), np.int64)
    for n, i, j in np.ndindex(2, 3, 4):
        acc = sum((int(a[n, i, k]) - za) * (int(b[k, j]) - zb) for k in range(6))
        want[n, i, j] = clamp(zy + mbqm(acc, multiplier, shift))
    np.testing.assert_array_equal(run1("tgr.matmul", [(a, q(sa, za)), (b, q(sb, zb))], (2, 3, 4), q(sy, zy)), want)


def test_pad_global_max_and_the_onnx_ops_that_carry_int8_before_their_pass() -> None:
    s, z = f32(0.05), -20
    x = i8(1, 2, 3, 3)
    got = run1("tgr.pad", [(x, q(s, z))], (1, 2, 5, 4), q(s, z), f"{{pads = {arr([0, 0, 1, 0, 0, 0, 1, 1])}}}")
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 1)], constant_values=z))  # real 0
    multiplier, shift = quantize_multiplier(s / 0.1)
    want = np.vectorize(lambda v: clamp(-3 + mbqm(int(v) - z, multiplier, shift)))(x.max(axis=(2, 3), keepdims=True))
    np.testing.assert_array_equal(run1("tgr.global_max_pool", [(x, q(s, z))], (1, 2, 1, 1), q(0.1, -3)), want)
    # onnx.Swish between fold-qdq and decompose-silu: one table of the whole function
    v = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
    got = run1("onnx.Swish", [(v, q(s, z))], (1, 256), q(f32(0.027), -118))
    np.testing.assert_array_equal(got[0], float_table(lambda t: t * py_sigmoid(t), s, z, f32(0.027), -118))
    # onnx.Resize between fold-qdq and extract-resize-scales: nearest copies the stored values
    text_scales = np.array([1, 1, 2, 2], np.float32)
    got = run1("onnx.Resize", [(x, q(s, z)), None, (text_scales, "f32")], (1, 2, 6, 6), q(s, z),
               '{coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}')  # fmt: skip
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))


def test_onnx_ops_without_int8_semantics_are_refused() -> None:
    """Float `onnx` kernels never cast float results into !tgr.quant storage."""
    s = q(0.05, -3)
    with pytest.raises(InterpretationError, match="onnx.Sigmoid.*no int8 kernel"):
        run1("onnx.Sigmoid", [(i8(1, 4), s)], (1, 4), s)
    scales = np.array([1, 1, 2, 2], np.float32)
    with pytest.raises(InterpretationError, match="onnx.Resize.*float32 values.*no int8 kernel"):
        run1("onnx.Resize", [(i8(1, 1, 2, 2), s), None, (scales, "f32")], (1, 1, 4, 4), s, '{mode = "linear"}')
