"""int8 arithmetic with onnxruntime's QDQ meaning: the one definition of every formula.

A QDQ model means, for every quantized op: DequantizeLinear of each input, the op in float32,
QuantizeLinear of the result; onnxruntime with graph optimizations disabled computes exactly that.
Here `float32` is IEEE binary32 with every operation rounded once to nearest-even (no fused
multiply-add; the C kernels are built with -ffp-contract=off and assign every intermediate):

    dequantize(q)      = float32(q - zp) * scale
    quantize(y)        = clamp(rint(y / scale) + zp, lo, hi)    a true division; ties to even;
                                                                NaN gives lo

Both are onnxruntime's own steps, bit for bit (measured on 16M floats around every rounding tie for
QuantizeLinear: multiplying by 1/scale instead would differ on 632,919 of them; 76,800 of 76,800
DequantizeLinear values equal). Per op kind:

    dense   conv, depthwise_conv, conv1d, conv_transpose, fully_connected, matmul:
            acc = sum (x - zx)(w - zw[c]) + bias[c], exactly in int32 (`dense_accumulator_fits`
            bounds it before anything runs); y = clamp(rint(float32(acc) * S[c]) + zy, act range),
            S[c] = float32(sx * sw[c] / sy) evaluated in float64 once, at compile time
    mean    avg_pool, global_avg_pool, reduce_mean: total = sum (x - zx) exactly in int32;
            y = quantize(float32(float32(total) * sx) / float32(count))
    float   add, sub, mul, div: y = quantize(dequantize(a) op dequantize(b)): onnxruntime's steps
            moves (concat, max_pool, global_max_pool, nearest resize, pad, reshapes, transpose) between
            different parameters: quantize(dequantize(q)); equal parameters: a copy (the same)
            softmax: quantize(softmax_f32(dequantize(x))), see `softmax_f32`
    table   unary ops: table[v - lo] = quantize(float32(f(dequantize(v)))), f in float64

Why these formulas (measured against onnxruntime 1.32, graph optimizations disabled):
- dense: onnxruntime sums float32 products in MLAS's order, so no formula can be bit-exact; over
  every Conv/Gemm/MatMul of the eight zoo int8 models on seeds 0-9 (9,974,290 outputs) the
  candidates differ from it at: rint(float32(acc) * float32(sx sw/sy)) 17, exact float64 17,
  float32(acc) * float32(float32(sx sw)/sy) 19, two steps (float32(acc) * float32(sx sw)) / sy 18,
  with the bias added in float as onnxruntime does 18; TFLite's Q0.31 multiplier with double
  rounding (this project's previous arithmetic) 19,382. All differences are 1 LSB. The single
  float32 multiply is as close as any and is what a device computes fastest.
- mean: ties (a mean exactly halfway between two steps, common when sx == sy) are decided by
  onnxruntime's float summation order; on 11,520 synthetic outputs built to hit them the candidate
  above differs at 58 (0.5 %, 1 LSB), exact float64 at 64, a float32 multiply by
  sx / (count sy) at 67; TFLite's integer MEAN differed on 701 of the zoo's 13,760 outputs, this
  formula on none.
- float: 0 differences on every pair of int8 inputs (65,536 pairs x 24 scale choices per op) for
  add, sub, mul and div, and on every zoo Add/Mul/Concat output; TFLite's integer Add and Mul
  differed on 22,293 (add), 3,217 (sub) and 14,467 (mul) of 1,572,864.
- table: computed in float64 and rounded to float32 before quantize, the tables of sigmoid, tanh,
  hard_swish, hard_sigmoid, relu, leaky_relu, elu, exp, softplus, abs and neg equal onnxruntime's
  QDQ outputs on all 256 inputs for 102 scale choices each (power-of-two scale ratios included,
  where ties occur), although onnxruntime's float sigmoid/tanh are approximations that differ from
  the exact value in about half of the float bits; the previous tables (rounding half away from
  zero) differed at ties, e.g. 569 of 10,752 entries for abs, 299 for relu.
- softmax: 0 of 2,091,328 quantized outputs differ whether the float path divides or multiplies by
  the reciprocal, and sums sequentially or pairwise; `exp_f32` is our own so that the interpreter
  and every C library agree bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from tigris.dialects.quant.unary_math import math_function

F32 = np.float32
I64 = np.int64
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

QuantParams = tuple[float, int]
"""(scale, zero point) of a per-tensor quantized tensor."""

INT8_RANGE = (-128, 127)

MEAN_MAX_COUNT = INT32_MAX // 255
"""Most elements a mean (or average pool window) may sum: |x - zx| <= 255 each, the sum in int32."""


# -- the two conversions -------------------------------------------------------------------------


def dequantize(q: ArrayLike, scale: ArrayLike, zero_point: ArrayLike) -> np.ndarray:
    """onnxruntime's DequantizeLinear: float32(q - zero_point) * scale (the difference in integers,
    one float32 multiply). `scale` and `zero_point` broadcast (per-axis parameters)."""
    diff = np.asarray(q, I64) - np.asarray(zero_point, I64)
    return diff.astype(F32) * np.asarray(scale, F32)


def round_to_storage(value: ArrayLike, zero_point: ArrayLike, lo: int, hi: int) -> np.ndarray:
    """clamp(rint(value) + zero_point, lo, hi) for float32 values, ties to even, NaN -> lo
    (int64). The float is clamped to [lo - zp, hi - zp] before it is converted, so no value
    overflows the integer it becomes (the C helper does the same)."""
    v = np.asarray(value, F32)
    zp = np.asarray(zero_point, I64)
    with np.errstate(invalid="ignore"):
        r = np.rint(v)
        clamped = np.clip(r, (lo - zp).astype(F32), (hi - zp).astype(F32))
    out = np.where(np.isnan(r), I64(lo) - zp, np.nan_to_num(clamped).astype(I64))
    return np.clip(out + zp, lo, hi)  # a no-op for 8-bit storage; float32(2**31 - 1) rounds up


def quantize(y: ArrayLike, scale: ArrayLike, zero_point: ArrayLike, lo: int, hi: int) -> np.ndarray:
    """onnxruntime's QuantizeLinear: clamp(rint(float32(y) / scale) + zero_point, lo, hi), NaN -> lo."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.asarray(y, F32) / np.asarray(scale, F32)
    return round_to_storage(ratio, zero_point, lo, hi)


# -- dense ops: int32 accumulators ---------------------------------------------------------------


def accumulator_scales(in_scale: float, weight_scales: ArrayLike, out_scale: float) -> np.ndarray:
    """S[c] = float32(sx * sw[c] / sy): the float32 factor that takes a dense op's int32
    accumulator to output steps, evaluated in float64 from the float32 scales and rounded once."""
    sx = float(F32(in_scale))
    sw = np.asarray(weight_scales, F32).astype(np.float64)
    sy = float(F32(out_scale))
    if not (sx > 0 and sy > 0 and np.all(sw > 0)):
        smallest = float(np.min(sw))
        raise ValueError(f"scales must be positive (input {sx}, weights min {smallest}, output {sy})")
    scales = (sx * sw / sy).astype(F32)
    if not np.all(np.isfinite(scales)) or np.any(scales == 0):
        raise ValueError("an accumulator scale sx * sw / sy is not a normal float32 (zero or infinite)")
    return scales


def requantize_accumulator(
    acc: ArrayLike, scales: ArrayLike, zero_point: int, lo: int, hi: int
) -> np.ndarray:
    """clamp(rint(float32(acc) * S) + zero_point, lo, hi); `scales` broadcast against `acc`."""
    acc64 = np.asarray(acc, I64)
    if acc64.size and (int(acc64.min()) < INT32_MIN or int(acc64.max()) > INT32_MAX):
        raise ValueError(f"accumulator leaves the int32 range ({int(acc64.min())} .. {int(acc64.max())})")
    with np.errstate(over="ignore"):
        return round_to_storage(acc64.astype(F32) * np.asarray(scales, F32), zero_point, lo, hi)


def max_offset(zero_point: int, lo: int, hi: int) -> int:
    """Largest |q - zero_point| over a storage range [lo, hi]."""
    return max(hi - zero_point, zero_point - lo)


def dense_accumulator_fits(taps: int, max_x: int, max_w: int, max_bias: int) -> bool:
    """Whether taps * max|x - zx| * max|w - zw| + max|bias| <= INT32_MAX: then no accumulator of a
    dense op can overflow, whatever the input. The C kernels check the same bound at run time."""
    return taps * max_x * max_w + max_bias <= INT32_MAX


# -- means ---------------------------------------------------------------------------------------


def mean_of_total(
    total: ArrayLike, count: ArrayLike, in_scale: float, out_scale: float, zero_point: int, lo: int, hi: int
) -> np.ndarray:
    """An average from its exact integer sum of (x - zx) over `count` elements:
    quantize(float32(float32(total) * sx) / float32(count)): the dequantized sum, divided."""
    dequantized = dequantize(total, in_scale, 0)
    return quantize(dequantized / np.asarray(count, F32), out_scale, zero_point, lo, hi)


# -- the float path ------------------------------------------------------------------------------


def requantize_values(q: ArrayLike, src: QuantParams, dst: QuantParams, lo: int, hi: int) -> np.ndarray:
    """Stored values moved between parameters: quantize(dequantize(q)) (the identity when equal)."""
    return quantize(dequantize(q, src[0], src[1]), dst[0], dst[1], lo, hi)


BINARY_FLOAT_OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "prelu": lambda x, slope: np.where(x >= 0, x, x * slope),
}
"""The float32 op of each element-wise binary int8 op (numpy broadcasting, IEEE binary32); prelu's
second operand is the slope."""


def binary(
    kind: str,
    a: ArrayLike,
    a_q: QuantParams,
    b: ArrayLike,
    b_q: QuantParams,
    out_q: QuantParams,
    lo: int,
    hi: int,
) -> np.ndarray:
    """quantize(dequantize(a) op dequantize(b)): onnxruntime's QDQ Add/Sub/Mul/Div (and
    Max/Min/PRelu, exact in float32 given their operands) bit for bit."""
    fa, fb = dequantize(a, *a_q), dequantize(b, *b_q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = BINARY_FLOAT_OPS[kind](fa, fb).astype(F32)
    return quantize(y, out_q[0], out_q[1], lo, hi)


# -- softmax -------------------------------------------------------------------------------------

_F = float.fromhex
_LOG2E = F32(_F("0x1.715476p+0"))  # log2(e) in binary32
_LN2_HI = F32(_F("0x1.62e4p-1"))  # 16 significant bits: n * _LN2_HI is exact for |n| <= 256
_LN2_LO = F32(_F("0x1.7f7d1cp-20"))  # ln 2 - _LN2_HI in binary32
_EXP_UNDERFLOW = F32(-87.0)  # below: 0 (the result would be within 2**-125 of it)
_EXP_OVERFLOW = F32(88.0)
_TAYLOR = tuple(  # 1/k! in binary32, k = 0..7 (i8_math.h spells the same values)
    F32(_F(h)) for h in ("0x1p+0", "0x1p+0", "0x1p-1", "0x1.555556p-3", "0x1.555556p-5", "0x1.111112p-7",
                         "0x1.6c16c2p-10", "0x1.a01a02p-13")
)


def exp_f32(x: ArrayLike) -> np.ndarray:
    """exp in float32 operations only, defined so that the interpreter and the C kernel
    (`tigris_i8_expf`) agree bit for bit on every input (libm expf and numpy's exp differ in the
    last bit here and there): n = rint(x log2 e); r = (x - n ln2_hi) - n ln2_lo; the degree-7
    Taylor polynomial of e**r by Horner; times 2**n (exact). Within 1.2 float32 ulps of exp for
    x in [-87, 88]; 0 below -87, +inf above 88; NaN stays NaN."""
    v = np.asarray(x, F32)
    with np.errstate(invalid="ignore", over="ignore"):
        safe = np.clip(np.nan_to_num(v), _EXP_UNDERFLOW, _EXP_OVERFLOW)
        n = np.rint(safe * _LOG2E)
        r = (safe - n * _LN2_HI) - n * _LN2_LO
        p = _TAYLOR[7]
        for k in range(6, -1, -1):
            p = p * r + _TAYLOR[k]
        y = np.ldexp(np.asarray(p, F32), n.astype(np.int32)).astype(F32)
    y = np.where(v < _EXP_UNDERFLOW, F32(0), y)
    y = np.where(v > _EXP_OVERFLOW, F32(np.inf), y)
    return np.where(np.isnan(v), F32(np.nan), y).astype(F32)


def softmax_f32(x: ArrayLike, axis: int) -> np.ndarray:
    """Softmax along `axis` in float32: m = max; e = exp_f32(x - m); s = e summed in index order
    (a sequential float32 sum); e / s."""
    v = np.asarray(x, F32)
    e = exp_f32(v - np.max(v, axis=axis, keepdims=True))
    total = np.take(np.add.accumulate(e, axis=axis, dtype=F32), [-1], axis=axis)
    return (e / total).astype(F32)


def softmax(x: ArrayLike, x_q: QuantParams, out_q: QuantParams, axis: int, lo: int, hi: int) -> np.ndarray:
    """int8 softmax: quantize(softmax_f32(dequantize(x)))."""
    return quantize(softmax_f32(dequantize(x, *x_q), axis), out_q[0], out_q[1], lo, hi)


# -- lookup tables -------------------------------------------------------------------------------


def storage_dtype(lo: int, hi: int) -> np.dtype:
    """The numpy dtype of 8-bit storage covering [lo, hi]."""
    if -128 <= lo and hi <= 127:
        return np.dtype(np.int8)
    if 0 <= lo and hi <= 255:
        return np.dtype(np.uint8)
    raise ValueError(f"lookup tables are for 8-bit storage, got the range [{lo}, {hi}]")


def unary_table(
    f: Callable[[np.ndarray], np.ndarray],
    in_q: QuantParams,
    out_q: QuantParams,
    in_range: tuple[int, int] = INT8_RANGE,
    out_range: tuple[int, int] = INT8_RANGE,
) -> np.ndarray:
    """The lookup table of an element-wise function between two quantized tensors: entry v - lo
    is quantize(float32(f(dequantize(v)))) for the stored input v, `f` evaluated in float64 on the
    float32 input. The int8 kernels (interpreter, device) are then pure lookups."""
    if not (in_q[0] > 0 and out_q[0] > 0):
        raise ValueError(f"unary_table needs positive scales, got {in_q[0]} and {out_q[0]}")
    stored = np.arange(in_range[0], in_range[1] + 1, dtype=I64)
    x = dequantize(stored, in_q[0], in_q[1]).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.asarray(f(x), np.float64).astype(F32)
    lo, hi = out_range
    return quantize(y, out_q[0], out_q[1], lo, hi).astype(storage_dtype(lo, hi))


def _sigmoid64(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # the stable form: no overflow for large |x|
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _f64(value: float) -> float:
    """A float32 attribute (ONNX stores them so) as the float64 it exactly is."""
    return float(F32(value))


def activation_function(name: str, **attrs: float) -> Callable[[np.ndarray], np.ndarray]:
    """The float64 definition of an element-wise activation, for `unary_table`.

    names: sigmoid, tanh, hard_swish (x * relu6(x + 3) / 6), relu, relu6, clip (attrs min, max,
    either may be absent), leaky_relu (alpha, default 0.01), swish (alpha, default 1),
    hard_sigmoid (alpha, beta), and the math ops of unary_math.py. Float attributes are taken
    as the float32 values ONNX stores."""
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
    defined = math_function(name, attrs)  # neg, exp, log, elu, gelu, pow, ...: unary_math.py
    if defined is not None:
        return defined
    raise ValueError(f"no int8 table for activation '{name}'")


def activation_table(
    name: str,
    in_q: QuantParams,
    out_q: QuantParams,
    in_range: tuple[int, int] = INT8_RANGE,
    out_range: tuple[int, int] = INT8_RANGE,
    **attrs: float,
) -> np.ndarray:
    """`unary_table` of the named activation (see `activation_function`)."""
    return unary_table(activation_function(name, **attrs), in_q, out_q, in_range, out_range)


# -- compile-time numbers ------------------------------------------------------------------------


def activation_range(activation: str, scale: float, zero_point: int, lo: int, hi: int) -> tuple[int, int]:
    """The clamp of a dense op's output with a fused activation: quantize(relu(y)) is
    max(quantize(y), zp), and quantize(relu6(y)) also min(.., quantize(6.0)) (rint is monotonic)."""
    if activation == "none":
        return lo, hi
    if activation == "relu":
        return max(lo, zero_point), hi
    if activation == "relu6":
        six = int(quantize(F32(6.0), scale, zero_point, lo, hi))
        return max(lo, zero_point), six
    raise ValueError(f"unknown fused_activation '{activation}'")


def quantize_scalar(value: float, q: QuantParams, lo: int, hi: int) -> int:
    """quantize of one float32 value (a constant pad value, a clip bound)."""
    return int(quantize(F32(value), q[0], q[1], lo, hi))
