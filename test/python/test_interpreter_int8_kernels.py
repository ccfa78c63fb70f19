"""The int8 kernels of the reference interpreter against independent references: onnxruntime
running the same op as a QDQ graph (DequantizeLinear -> the float op -> QuantizeLinear, graph
optimizations off: what the model means), naive loops written here, and hand calculations.

Each test runs a one-op `func.func @main` whose operands are function arguments (weights too, so
the stored integers are exact), and the same op in onnxruntime with the same stored inputs.
Element-wise arithmetic, tables, concat and moves must equal onnxruntime bit for bit; dense ops,
means and softmax within 1 LSB (onnxruntime sums in float32 in its own order, which decides values
that lie within a float32 rounding of a tie; see `tigris.dialects.quant.arith`), and dense ops and
means equal the naive loops exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.parser import Parser
from xdsl.utils.exceptions import InterpretationError

from ort_helpers import run_onnxruntime  # test/models, on sys.path via conftest
from tigris.dialects import make_context
from tigris.dialects.interpreter import run_module

RNG = np.random.default_rng(2024)
F32 = np.float32


def f32(x: float) -> float:
    """A float32-representable scale (the IR's scales come from float32 ONNX initializers)."""
    return float(F32(x))


# -- running one op in the interpreter -------------------------------------------------------------


def q(scale: float, zp: int, storage: str = "i8") -> str:
    return f"!tgr.quant<{storage}, {scale!r}:{zp}>"


def q_axis(scales: Sequence[float], zps: Sequence[int], axis: int = 0, storage: str = "i8") -> str:
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
    text = (
        f"func.func @main({args}) -> {out_t} {{\n"
        f"  %y = {op} {', '.join(names)} {props} : ({', '.join(types)}) -> {out_t}\n"
        f"  func.return %y : {out_t}\n}}"
    )
    module = Parser(make_context(), text).parse_module()
    module.verify()
    (result,) = run_module(module, [a for a, _ in present])
    assert result.shape == out_shape
    return result


def arr(values: Sequence[int]) -> str:
    return f"array<i64: {', '.join(map(str, values))}>"


def i8(*shape: int, lo: int = -128, hi: int = 127) -> np.ndarray:
    return RNG.integers(lo, hi, shape, endpoint=True).astype(np.int8)


def clamp(v: int, lo: int = -128, hi: int = 127) -> int:
    return min(max(v, lo), hi)


# -- the same op in onnxruntime ----------------------------------------------------------------------


@dataclass
class Act:
    """A quantized activation, fed to onnxruntime as stored integers."""

    values: np.ndarray
    scale: float
    zp: int


@dataclass
class Const:
    """A quantized constant (weight or int32 bias) read through a DequantizeLinear, or a float
    constant (axis None, no scales) read as it is."""

    values: np.ndarray
    scales: Sequence[float] = ()
    zps: Sequence[int] = ()
    axis: int | None = None


_ONNX_TYPES = {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint8): TensorProto.UINT8}


def ort_qdq(op_type: str, inputs: Sequence[Act | Const | None], out_shape: Sequence[int], out_q: tuple[float, int],
            out_dtype: type = np.int8, opset: int = 19, domain: str = "", **attrs: object) -> np.ndarray:
    """onnxruntime's result of `op_type` between DequantizeLinears and a QuantizeLinear."""
    nodes, inits, graph_inputs, feeds, names = [], [], [], {}, []
    for i, value in enumerate(inputs):
        if value is None:
            names.append("")
            continue
        if isinstance(value, Act):
            graph_inputs.append(helper.make_tensor_value_info(f"q{i}", _ONNX_TYPES[value.values.dtype], value.values.shape))
            feeds[f"q{i}"] = value.values
            zp = np.array(value.zp, value.values.dtype)
            inits += [numpy_helper.from_array(F32(value.scale), f"s{i}"), numpy_helper.from_array(zp, f"z{i}")]
            nodes.append(helper.make_node("DequantizeLinear", [f"q{i}", f"s{i}", f"z{i}"], [f"x{i}"]))
        elif value.axis is None and not value.scales:
            inits.append(numpy_helper.from_array(value.values, f"x{i}"))
        else:
            inits.append(numpy_helper.from_array(value.values, f"q{i}"))
            scales = np.asarray(value.scales, F32)
            zps = np.asarray(value.zps, value.values.dtype)
            axis = {} if value.axis is None else {"axis": value.axis}
            inits += [numpy_helper.from_array(scales.reshape(() if value.axis is None else -1), f"s{i}"),
                      numpy_helper.from_array(zps.reshape(() if value.axis is None else -1), f"z{i}")]  # fmt: skip
            nodes.append(helper.make_node("DequantizeLinear", [f"q{i}", f"s{i}", f"z{i}"], [f"x{i}"], **axis))
        names.append(f"x{i}")
    nodes.append(helper.make_node(op_type, names, ["y"], domain=domain, **attrs))
    inits += [numpy_helper.from_array(F32(out_q[0]), "sy"), numpy_helper.from_array(np.array(out_q[1], out_dtype), "zy")]
    nodes.append(helper.make_node("QuantizeLinear", ["y", "sy", "zy"], ["out"]))
    out_t = _ONNX_TYPES[np.dtype(out_dtype)]
    graph = helper.make_graph(nodes, "g", graph_inputs, [helper.make_tensor_value_info("out", out_t, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    (out,) = run_onnxruntime(model, feeds)
    return out


def lsb(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64)), initial=0))


# -- convolutions and dense layers ---------------------------------------------------------------


def requant(acc: int, scale: float, zy: int, lo: int = -128, hi: int = 127) -> int:
    """The dense formula, element by element: clamp(rint(float32(acc) * S) + zy), S a float32."""
    return clamp(int(np.rint(F32(acc) * F32(scale))) + zy, lo, hi)


def ref_conv(x, zx, w, zw, bias, scales, zy, strides, dilations, pads, group, lo, hi):  # type: ignore[no-untyped-def]
    """A grouped convolution with loops and Python integers; padded taps are skipped (they are zx)."""
    n, c, *spatial = x.shape
    o, cg, *kernel = w.shape
    rank = len(spatial)
    out = [(spatial[i] + pads[i] + pads[rank + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(rank)]  # fmt: skip
    y = np.zeros((n, o, *out), np.int64)
    for b_, oc in itertools.product(range(n), range(o)):
        g = oc // (o // group)
        for pos in itertools.product(*map(range, out)):
            acc = int(bias[oc]) if bias is not None else 0
            for ic, tap in itertools.product(range(cg), itertools.product(*map(range, kernel))):
                src = [pos[i] * strides[i] - pads[i] + tap[i] * dilations[i] for i in range(rank)]
                if all(0 <= s < spatial[i] for i, s in enumerate(src)):
                    acc += (int(x[(b_, g * cg + ic, *src)]) - zx) * (int(w[(oc, ic, *tap)]) - int(zw[oc]))
            y[(b_, oc, *pos)] = requant(acc, scales[oc], zy, lo, hi)
    return y


def conv_case(op: str, x_shape, w_shape, group, strides, dilations, pads, activation, w_zps, with_bias=True):  # type: ignore[no-untyped-def]
    sx, zx = f32(0.043), -7
    sy, zy = f32(0.029), (-128 if activation != "none" else 5)
    o = w_shape[0]
    sw = [f32(v) for v in RNG.uniform(0.004, 0.03, o)]
    x, w = i8(*x_shape), i8(*w_shape, lo=-127)
    bias = RNG.integers(-3000, 3000, o).astype(np.int32) if with_bias else None
    operands = [(x, q(sx, zx)), (w, q_axis(sw, w_zps))]
    bias_scales = [f32(sx * s) for s in sw]
    if bias is not None:
        operands.append((bias, q_axis(bias_scales, [0] * o, storage="i32")))
    props = [f"strides = {arr(strides)}", f"dilations = {arr(dilations)}", f"pads = {arr(pads)}",
             f'fused_activation = "{activation}"'] + ([f"group = {group} : i64"] if op != "tgr.depthwise_conv" else [])  # fmt: skip
    lo = zy if activation in ("relu", "relu6") else -128
    hi = min(127, zy + int(np.rint(F32(6.0) / F32(sy)))) if activation == "relu6" else 127
    scales = [F32(np.float64(sx) * s / np.float64(sy)) for s in sw]
    want = ref_conv(x, zx, w, w_zps, bias, scales, zy, strides, dilations, pads, group, lo, hi)
    got = run1(op, operands, want.shape, q(sy, zy), "{" + ", ".join(props) + "}")
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    # onnxruntime: the same Conv (+ Relu/Clip) between QDQ nodes
    inputs = [Act(x, sx, zx), Const(w, sw, w_zps, 0)] + ([Const(bias, bias_scales, [0] * o, 0)] if bias is not None else [])
    spatial = len(x_shape) - 2
    ort = ort_qdq("Conv", inputs, want.shape, (sy, zy), group=group, strides=strides, dilations=dilations,
                  pads=pads, kernel_shape=list(w_shape[2:2 + spatial]))  # fmt: skip
    assert lsb(got, np.clip(ort, lo, hi)) <= 1  # the fused activation is the clamp
    return got


@pytest.mark.parametrize("activation", ["none", "relu", "relu6"])
def test_conv_zero_points_per_channel_padding_stride(activation: str) -> None:
    w_zps = [0, 3, -2, 0, 1, -5]  # onnxruntime's quantizer writes 0; the kernel supports any
    got = conv_case("tgr.conv", (2, 4, 9, 8), (6, 2, 3, 3), 2, [2, 1], [1, 2], [1, 2, 2, 0], activation, w_zps)
    assert len(np.unique(got)) > (5 if activation == "relu6" else 20)


def test_conv_without_bias() -> None:
    conv_case("tgr.conv", (1, 3, 6, 5), (4, 3, 3, 3), 1, [1, 1], [1, 1], [1, 1, 1, 1], "none", [0] * 4, with_bias=False)


def test_depthwise_conv_with_multiplier() -> None:
    conv_case("tgr.depthwise_conv", (1, 3, 7, 6), (6, 1, 3, 3), 3, [2, 2], [1, 1], [1, 1, 1, 1], "relu6", [0] * 6)


def test_conv1d() -> None:
    conv_case("tgr.conv1d", (2, 3, 17), (5, 3, 4), 1, [2], [2], [3, 1], "relu", [0] * 5)


def test_dense_ties_round_to_even() -> None:
    """A 1x1 conv, s_x s_w / s_y = 0.25 exactly: accumulators 2 * w for x = 2 (zp 0) are 6, 10, -10,
    14 for w = 3, 5, -5, 7: 1.5 -> 2, 2.5 -> 2, -2.5 -> -2, 3.5 -> 4 (TFLite's double rounding
    gives 2, 3, -3, 4)."""
    x = np.full((1, 1, 1, 1), 2, np.int8)
    w = np.array([3, 5, -5, 7], np.int8).reshape(4, 1, 1, 1)
    got = run1("tgr.conv", [(x, q(0.5, 0)), (w, q(0.25, 0))], (1, 4, 1, 1), q(0.5, 0))
    np.testing.assert_array_equal(got.reshape(-1), [2, 2, -2, 4])


def test_fully_connected() -> None:
    sx, zx, sy, zy = f32(0.05), 11, f32(0.09), -20
    x, w = i8(3, 10), i8(5, 10, lo=-127)
    sw = [f32(v) for v in RNG.uniform(0.005, 0.02, 5)]
    bias = RNG.integers(-2000, 2000, 5).astype(np.int32)
    bias_scales = [f32(sx * s) for s in sw]
    want = np.zeros((3, 5), np.int64)
    for n, m in itertools.product(range(3), range(5)):
        acc = int(bias[m]) + sum((int(x[n, k]) - zx) * int(w[m, k]) for k in range(10))
        want[n, m] = requant(acc, F32(np.float64(sx) * sw[m] / np.float64(sy)), zy, lo=zy)  # relu
    operands = [(x, q(sx, zx)), (w, q_axis(sw, [0] * 5)), (bias, q_axis(bias_scales, [0] * 5, storage="i32"))]
    got = run1("tgr.fully_connected", operands, (3, 5), q(sy, zy), '{fused_activation = "relu"}')
    np.testing.assert_array_equal(got, want)
    ort = ort_qdq("Gemm", [Act(x, sx, zx), Const(w, sw, [0] * 5, 0), Const(bias, bias_scales, [0] * 5, 0)], (3, 5),
                  (sy, zy), transB=1)  # fmt: skip
    assert lsb(got, np.maximum(ort, zy)) <= 1


def test_conv_transpose() -> None:
    sx, zx, sy, zy = f32(0.04), 3, f32(0.07), -9
    x, w = i8(1, 4, 3, 4), i8(4, 3, 3, 2, lo=-127)  # weight [C_in, C_out, kh, kw], per channel on axis 1
    sw = [f32(v) for v in RNG.uniform(0.005, 0.02, 3)]
    bias = RNG.integers(-500, 500, 3).astype(np.int32)
    bias_scales = [f32(sx * s) for s in sw]
    strides, pads, output_padding = [2, 3], [1, 0, 0, 2], [1, 1]
    full = [strides[i] * ((3, 4)[i] - 1) + (3, 2)[i] + output_padding[i] for i in range(2)]
    acc = np.zeros((3, *full), dtype=object)
    for ic, i, j, oc, ki, kj in itertools.product(range(4), range(3), range(4), range(3), range(3), range(2)):
        acc[oc, i * strides[0] + ki, j * strides[1] + kj] += (int(x[0, ic, i, j]) - zx) * int(w[ic, oc, ki, kj])
    acc = acc[:, pads[0] : full[0] - pads[2], pads[1] : full[1] - pads[3]]
    want = np.zeros(acc.shape, np.int64)
    for oc, i, j in np.ndindex(*acc.shape):
        want[oc, i, j] = requant(int(acc[oc, i, j]) + int(bias[oc]), F32(np.float64(sx) * sw[oc] / np.float64(sy)), zy)
    operands = [(x, q(sx, zx)), (w, q_axis(sw, [0] * 3, axis=1)), (bias, q_axis(bias_scales, [0] * 3, storage="i32"))]
    props = f"{{strides = {arr(strides)}, pads = {arr(pads)}, output_padding = {arr(output_padding)}}}"
    got = run1("tgr.conv_transpose", operands, (1, *want.shape), q(sy, zy), props)
    np.testing.assert_array_equal(got[0], want)
    ort = ort_qdq("ConvTranspose", [Act(x, sx, zx), Const(w, sw, [0] * 3, 1), Const(bias, bias_scales, [0] * 3, 0)],
                  got.shape, (sy, zy), strides=strides, pads=pads, output_padding=output_padding)  # fmt: skip
    assert lsb(got, ort) <= 1


def test_matmul_of_two_int8_activations() -> None:
    sa, za, sb, zb, sy, zy = f32(0.03), -5, f32(0.02), 7, f32(0.02), 1
    a, b = i8(2, 3, 6), i8(6, 4)
    want = np.zeros((2, 3, 4), np.int64)
    for n, i, j in np.ndindex(2, 3, 4):
        acc = sum((int(a[n, i, k]) - za) * (int(b[k, j]) - zb) for k in range(6))
        want[n, i, j] = requant(acc, F32(np.float64(sa) * sb / sy), zy)
    got = run1("tgr.matmul", [(a, q(sa, za)), (b, q(sb, zb))], (2, 3, 4), q(sy, zy))
    np.testing.assert_array_equal(got, want)
    assert lsb(got, ort_qdq("MatMul", [Act(a, sa, za), Act(b, sb, zb)], (2, 3, 4), (sy, zy))) <= 1


def test_bias_at_the_wrong_scale_and_overflowing_accumulators_are_refused() -> None:
    sx, sy = f32(0.05), f32(0.1)
    x, w = i8(1, 4), i8(2, 4)
    ok_bias_type = q_axis([sx * 0.01, sx * 0.02], [0, 0], storage="i32")
    w_type = q_axis([0.01, 0.02], [0, 0])
    with pytest.raises(InterpretationError, match="tgr.fully_connected.*bias scale"):
        run1("tgr.fully_connected", [(x, q(sx, 0)), (w, w_type), (np.zeros(2, np.int32), q_axis([1e-3, 1e-3], [0, 0], storage="i32"))], (1, 2), q(sy, 0))
    huge = np.full(2, 2**31 - 11, np.int32)
    with pytest.raises(InterpretationError, match="int32"):
        run1("tgr.fully_connected", [(np.full((1, 4), 127, np.int8), q(sx, -128)), (np.full((2, 4), 127, np.int8), w_type), (huge, ok_bias_type)], (1, 2), q(sy, 0))


# -- element-wise arithmetic: bit for bit -------------------------------------------------------------

ALL_PAIRS = (np.arange(-128, 128, dtype=np.int8).reshape(256, 1), np.arange(-128, 128, dtype=np.int8).reshape(1, 256))


@pytest.mark.parametrize(("op", "onnx_op"), [("tgr.add", "Add"), ("tgr.sub", "Sub"), ("tgr.mul", "Mul"), ("tgr.div", "Div")])
@pytest.mark.parametrize(
    ("qa", "qb", "qy"),
    [
        ((0.0172, 14), (0.0531, -39), (0.0455, 3)),  # unrelated scales
        ((0.05, 0), (0.025, 0), (0.1, 0)),  # power-of-two ratios: exact ties everywhere
    ],
)
def test_binary_ops_equal_onnxruntime_on_every_pair(op: str, onnx_op: str, qa, qb, qy) -> None:  # type: ignore[no-untyped-def]
    """All 65,536 pairs of int8 inputs (broadcast [256, 1] x [1, 256])."""
    qa, qb, qy = ((f32(s), z) for s, z in (qa, qb, qy))
    a, b = ALL_PAIRS
    got = run1(op, [(a, q(*qa)), (b, q(*qb))], (256, 256), q(*qy))
    want = ort_qdq(onnx_op, [Act(a, *qa), Act(b, *qb)], (256, 256), qy)
    np.testing.assert_array_equal(got, want)


def test_add_uint8_equals_onnxruntime() -> None:
    a = np.arange(256, dtype=np.uint8).reshape(256, 1)
    b = np.arange(256, dtype=np.uint8).reshape(1, 256)
    qa, qb, qy = (f32(0.025), 128), (f32(0.05), 120), (f32(0.06), 128)
    got = run1("tgr.add", [(a, q(*qa, "ui8")), (b, q(*qb, "ui8"))], (256, 256), q(*qy, "ui8"))
    np.testing.assert_array_equal(got, ort_qdq("Add", [Act(a, *qa), Act(b, *qb)], (256, 256), qy, np.uint8))


# -- lookup tables: bit for bit ------------------------------------------------------------------------

EVERY_INT8 = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)


@pytest.mark.parametrize(
    ("op", "props", "onnx_op", "attrs", "extra", "out_q"),
    [
        ("tgr.sigmoid", "", "Sigmoid", {}, [], (1 / 256, -128)),
        ("tgr.sigmoid", "", "Sigmoid", {}, [], (0.0039198, -128)),
        ("tgr.tanh", "", "Tanh", {}, [], (1 / 128, 0)),
        ("tgr.hard_swish", "", "HardSwish", {}, [], (0.0258, -113)),
        ("tgr.relu", "", "Relu", {}, [], (0.05, -128)),
        ("tgr.relu", "", "Relu", {}, [], (0.0496 * 2, 3)),  # a power-of-two ratio: ties
        ("tgr.relu6", "", "Clip", {}, [F32(0.0), F32(6.0)], (6 / 255, -128)),
        ("tgr.clip", "{min = -1.5 : f32, max = 2.0 : f32}", "Clip", {}, [F32(-1.5), F32(2.0)], (0.02, 10)),
        ("tgr.leaky_relu", "{alpha = 1.000000e-01 : f32}", "LeakyRelu", {"alpha": 0.1}, [], (0.04, -30)),
        ("tgr.leaky_relu", "{alpha = 5.000000e-01 : f32}", "LeakyRelu", {"alpha": 0.5}, [], (0.0496, -7)),
        ("onnx.Swish", "", "Swish", {}, [], (0.027, -118)),
        # element-wise math (tgr/ops_unary.py); x in [-6.0, 6.3]
        ("tgr.neg", "", "Neg", {}, [], (0.0496, 7)),  # the input's scale: ties
        ("tgr.abs", "", "Abs", {}, [], (0.0496 / 2, -128)),
        ("tgr.exp", "", "Exp", {}, [], (2.2, -128)),
        ("tgr.log", "", "Log", {}, [], (0.02, 60)),  # log 0 = -inf and NaN (x < 0): the lowest value
        ("tgr.sqrt", "", "Sqrt", {}, [], (0.01, -128)),
        ("tgr.reciprocal", "", "Reciprocal", {}, [], (0.2, 0)),
        ("tgr.elu", "{alpha = 8.000000e-01 : f32}", "Elu", {"alpha": 0.8}, [], (0.03, -100)),
        ("tgr.selu", "", "Selu", {}, [], (0.035, -80)),
        ("tgr.selu", "{alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32}", "Selu",
         {"alpha": 1.5, "gamma": 2.0}, [], (0.06, -80)),
        ("tgr.softplus", "", "Softplus", {}, [], (0.025, -128)),
        ("tgr.softsign", "", "Softsign", {}, [], (1 / 128, 0)),
        ("tgr.erf", "", "Erf", {}, [], (1 / 128, 0)),
        ("tgr.gelu", "", "Gelu", {}, [], (0.026, -105)),
        ("tgr.gelu", '{approximate = "tanh"}', "Gelu", {"approximate": "tanh"}, [], (0.026, -105)),
        ("tgr.hard_sigmoid", "{alpha = 3.000000e-01 : f32, beta = 4.000000e-01 : f32}", "HardSigmoid",
         {"alpha": 0.3, "beta": 0.4}, [], (1 / 255, -128)),
        ("tgr.sign", "", "Sign", {}, [], (1 / 64, 0)),
        ("tgr.shrink", "{lambd = 6.000000e-01 : f32, bias = 2.500000e-01 : f32}", "Shrink",
         {"lambd": 0.6, "bias": 0.25}, [], (0.045, 5)),
        ("tgr.pow", "{exponent = 2.000000e+00 : f32}", "Pow", {}, [F32(2.0)], (0.16, -128)),
        ("tgr.pow", "{exponent = 3.000000e+00 : f32}", "Pow", {}, [F32(3.0)], (1.0, 0)),
        ("tgr.pow", "{exponent = 5.000000e-01 : f32}", "Pow", {}, [F32(0.5)], (0.01, -128)),
        ("tgr.silu", "", "Swish", {}, [], (0.027, -118)),
    ],
)
def test_tables_equal_onnxruntime_on_every_input(op: str, props: str, onnx_op: str, attrs: dict, extra: list,
                                                 out_q: tuple[float, int]) -> None:  # fmt: skip
    sx, zx = f32(0.0496), -7
    out_q = (f32(out_q[0]), out_q[1])
    got = run1(op, [(EVERY_INT8, q(sx, zx))], (1, 256), q(*out_q), props)
    opset = {"Swish": 24, "Gelu": 20}.get(onnx_op, 19)
    want = ort_qdq(onnx_op, [Act(EVERY_INT8, sx, zx), *(Const(v) for v in extra)], (1, 256), out_q, opset=opset, **attrs)
    np.testing.assert_array_equal(got, want)


# -- softmax, means: within 1 LSB of onnxruntime ---------------------------------------------------------


@pytest.mark.parametrize(("shape", "axis", "in_q", "out_q"), [((4, 10), -1, (0.1, -4), (1 / 256, -128)),
                                                              ((2, 5, 3, 4), 1, (0.05, 3), (0.0037, -120))])
def test_softmax(shape: tuple[int, ...], axis: int, in_q: tuple[float, int], out_q: tuple[float, int]) -> None:
    x = i8(*shape)
    in_q, out_q = (f32(in_q[0]), in_q[1]), (f32(out_q[0]), out_q[1])
    got = run1("tgr.softmax", [(x, q(*in_q))], shape, q(*out_q), f"{{axis = {axis} : i64}}")
    want = ort_qdq("Softmax", [Act(x, *in_q)], shape, out_q, opset=13, axis=axis)
    assert lsb(got, want) <= 1 and np.count_nonzero(got != want) <= x.size // 1000


def ref_mean(totals: np.ndarray, counts: np.ndarray | int, sx: float, sy: float, zy: int) -> np.ndarray:
    """quantize(float32(float32(total) * sx) / float32(count)), element by element."""
    out = np.zeros(totals.shape, np.int64)
    for i in np.ndindex(totals.shape):
        count = counts if isinstance(counts, int) else counts[i]
        mean = F32(F32(F32(totals[i]) * F32(sx)) / F32(count))
        out[i] = clamp(int(np.rint(F32(mean / F32(sy)))) + zy)
    return out


def test_mean_ties_round_to_even() -> None:
    """Means of [1, 2] and [1, 4] with s_x = s_y, zp 0: 1.5 -> 2 and 2.5 -> 2 (TFLite: 2 and 3)."""
    x = np.array([[[[1, 2], [1, 4]]]], np.int8)
    got = run1("tgr.reduce_mean", [(x, q(0.1, 0))], (1, 1, 2, 1), q(0.1, 0), f"{{axes = {arr([3])}}}")
    np.testing.assert_array_equal(got.reshape(-1), [2, 2])


@pytest.mark.parametrize("include", [0, 1])
def test_avg_pool_padded(include: int) -> None:
    sx, zx, sy, zy = f32(0.03), 17, f32(0.021), -40
    x = i8(2, 3, 7, 8)
    pads, kernel, strides = [1, 1, 1, 0], [3, 3], [2, 2]
    props = f"{{kernel_shape = {arr(kernel)}, strides = {arr(strides)}, pads = {arr(pads)}, count_include_pad = {include} : i64}}"
    oh, ow = (7 + 2 - 3) // 2 + 1, (8 + 1 - 3) // 2 + 1
    totals, counts = np.zeros((2, 3, oh, ow), np.int64), np.zeros((2, 3, oh, ow), np.int64)
    for b, c, i, j in itertools.product(range(2), range(3), range(oh), range(ow)):
        for ki, kj in itertools.product(range(3), range(3)):
            r, s = i * 2 - 1 + ki, j * 2 - 1 + kj
            if 0 <= r < 7 and 0 <= s < 8:
                totals[b, c, i, j] += int(x[b, c, r, s]) - zx
                counts[b, c, i, j] += 1
            elif include and r < 8 and s < 8:  # inside the explicit pads: a counted real 0
                counts[b, c, i, j] += 1
    want = ref_mean(totals, counts, sx, sy, zy)
    got = run1("tgr.avg_pool", [(x, q(sx, zx))], want.shape, q(sy, zy), props)
    np.testing.assert_array_equal(got, want)
    ort = ort_qdq("AveragePool", [Act(x, sx, zx)], want.shape, (sy, zy), kernel_shape=kernel, strides=strides,
                  pads=pads, count_include_pad=include)  # fmt: skip
    assert lsb(got, ort) <= 1


def test_global_avg_pool_and_reduce_mean() -> None:
    sx, zx, sy, zy = f32(0.0950), -128, f32(0.0627), -128
    x = i8(1, 6, 5, 7)
    totals = (x.astype(np.int64) - zx).sum(axis=(2, 3), keepdims=True)
    want = ref_mean(totals, 35, sx, sy, zy)
    got = run1("tgr.global_avg_pool", [(x, q(sx, zx))], (1, 6, 1, 1), q(sy, zy))
    np.testing.assert_array_equal(got, want)
    assert lsb(got, ort_qdq("GlobalAveragePool", [Act(x, sx, zx)], (1, 6, 1, 1), (sy, zy))) <= 1
    x = i8(2, 5, 4, 3)
    got = run1("tgr.reduce_mean", [(x, q(sx, 9))], (2, 1, 4, 1), q(sy, -2), f"{{axes = {arr([1, 3])}, keepdims = 1 : i64}}")
    want = ref_mean((x.astype(np.int64) - 9).sum(axis=(1, 3), keepdims=True), 15, sx, sy, -2)
    np.testing.assert_array_equal(got, want)
    axes = Const(np.array([1, 3], np.int64))
    assert lsb(got, ort_qdq("ReduceMean", [Act(x, sx, 9), axes], (2, 1, 4, 1), (sy, -2), opset=18)) <= 1


# -- moves and concat: bit for bit ------------------------------------------------------------------------


def test_max_pool_ignores_padding_and_requantizes() -> None:
    sx, zx, sy, zy = f32(0.034), -128, f32(0.05), -100
    x = i8(1, 2, 6, 5, lo=-128, hi=-100)  # all below the real 0 ... padding must not win
    props = f"{{kernel_shape = {arr([3, 3])}, strides = {arr([2, 2])}, pads = {arr([1, 1, 1, 1])}}}"
    got = run1("tgr.max_pool", [(x, q(sx, zx))], (1, 2, 3, 3), q(sy, zy), props)
    want = ort_qdq("MaxPool", [Act(x, sx, zx)], (1, 2, 3, 3), (sy, zy), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_concat_requantizes_inputs_with_other_parameters(layout: str) -> None:
    sa, za, sb, zb = f32(0.0159), -110, f32(0.0227), -116
    a, b = i8(1, 3, 4, 5), i8(1, 2, 4, 5)
    axis = 3 if layout == "nhwc" else 1  # the channel axis either way
    got = run1("tgr.concat", [(a, q(sa, za)), (b, q(sb, zb))], (1, 5, 4, 5), q(sb, zb),
               f'{{axis = {axis} : i64, layout = "{layout}"}}')  # fmt: skip
    np.testing.assert_array_equal(got, ort_qdq("Concat", [Act(a, sa, za), Act(b, sb, zb)], (1, 5, 4, 5), (sb, zb), axis=1))
    np.testing.assert_array_equal(got[:, 3:], b)  # same parameters: moved unchanged


def test_moves_keep_or_requantize_values() -> None:
    s, z = f32(0.028), -128
    x = i8(1, 2, 3, 4)
    got = run1("tgr.resize", [(x, q(s, z))], (1, 2, 6, 8), q(s, z),
               f'{{scales = {arr([1, 1, 2, 2])}, coordinate_transformation_mode = "asymmetric"}}')  # fmt: skip
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))
    np.testing.assert_array_equal(run1("tgr.transpose", [(x, q(s, z))], (1, 3, 4, 2), q(s, z), f"{{perm = {arr([0, 2, 3, 1])}}}"),
                                  x.transpose(0, 2, 3, 1))  # fmt: skip
    np.testing.assert_array_equal(run1("tgr.flatten", [(x, q(s, z))], (1, 24), q(s, z)), x.reshape(1, 24))
    got = run1("tgr.reshape", [(x, q(s, z))], (2, 12), q(0.05, 3))
    want = ort_qdq("Reshape", [Act(x, s, z), Const(np.array([2, 12], np.int64))], (2, 12), (f32(0.05), 3))
    np.testing.assert_array_equal(got, want)
    got = run1("tgr.global_max_pool", [(x, q(s, z))], (1, 2, 1, 1), q(0.1, -3))
    np.testing.assert_array_equal(got, ort_qdq("GlobalMaxPool", [Act(x, s, z)], (1, 2, 1, 1), (f32(0.1), -3)))


def test_pad_value_is_quantized_at_the_result_parameters() -> None:
    s, z, sy, zy = f32(0.05), -20, f32(0.1), 4
    x = i8(1, 2, 3, 3)
    pads = [0, 0, 1, 0, 0, 0, 1, 1]
    got = run1("tgr.pad", [(x, q(s, z))], (1, 2, 5, 4), q(sy, zy), f"{{pads = {arr(pads)}, value = 0.25 : f32}}")
    want = ort_qdq("Pad", [Act(x, s, z), Const(np.array(pads, np.int64)), Const(F32(0.25))], (1, 2, 5, 4), (sy, zy))
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 0, 0] == 6  # 0.25 / 0.1 = 2.5 -> 2 (even), + 4


# -- refusals -----------------------------------------------------------------------------------------


def test_ops_without_an_int8_kernel_are_refused_by_name() -> None:
    s = q(0.05, -3)
    with pytest.raises(InterpretationError, match="tgr.instance_norm.*no int8 kernel"):
        run1("tgr.instance_norm", [(i8(1, 2, 2, 2), s), (np.ones(2, F32), "f32"), (np.zeros(2, F32), "f32")], (1, 2, 2, 2), s)
    with pytest.raises(InterpretationError, match="tgr.resize.*linear"):
        run1("tgr.resize", [(i8(1, 1, 2, 2), s)], (1, 1, 4, 4), s, f'{{scales = {arr([1, 1, 2, 2])}, mode = "linear"}}')
    with pytest.raises(InterpretationError, match="tgr.add.*not a !tgr.quant"):  # mixed float/int8
        run1("tgr.add", [(i8(1, 4), s), (np.zeros((1, 4), F32), "f32")], (1, 4), s)


def test_onnx_ops_without_int8_semantics_are_refused() -> None:
    """Float `onnx` kernels never cast float results into !tgr.quant storage."""
    s = q(0.05, -3)
    with pytest.raises(InterpretationError, match="onnx.Sigmoid.*no int8 kernel"):
        run1("onnx.Sigmoid", [(i8(1, 4), s)], (1, 4), s)
    scales = np.array([1, 1, 2, 2], F32)
    with pytest.raises(InterpretationError, match="onnx.Resize.*float32 values.*no int8 kernel"):
        run1("onnx.Resize", [(i8(1, 1, 2, 2), s), None, (scales, "f32")], (1, 1, 4, 4), s, '{mode = "linear"}')
    # onnx.Resize nearest between fold-qdq and extract-resize-scales copies the stored values
    x = i8(1, 2, 3, 3)
    got = run1("onnx.Resize", [(x, s), None, (scales, "f32")], (1, 2, 6, 6), s,
               '{coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}')  # fmt: skip
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))
