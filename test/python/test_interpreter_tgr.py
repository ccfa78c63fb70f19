"""Every `tgr` op against a reference written here, independently: naive loops in float64 for
the windowed ops, per-element index formulas for pad/resize/concat, plain formulas elsewhere.

Each test parses a one-op `func.func @main` (operands as function arguments, so the
arrays are exact), verifies it, and runs it with `run_module`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.utils.exceptions import InterpretationError, VerifyException
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.interpreter import OpRecorder, run_module
from tigris.dialects.tgr.dialect import TGR_OPS
from tigris.dialects.tgr.weight import make_weight

RNG = np.random.default_rng(7)
COVERED: set[str] = set()


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, shape).astype(np.float32)


context = make_context


def ttype(shape: tuple[int, ...], element: str = "f32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{element}>"


def run_tgr(op: str, inputs: list[np.ndarray | None], out_shape: tuple[int, ...], props: str = "") -> np.ndarray:
    """Run `%y = <op> %a0, %a1 ... {props}`; a None input prints as `none` (absent optional)."""
    COVERED.add(op)
    present = [a for a in inputs if a is not None]
    args = ", ".join(f"%a{i}: {ttype(a.shape)}" for i, a in enumerate(present))
    names, index = [], 0
    for a in inputs:
        names.append("none" if a is None else f"%a{index}")
        index += a is not None
    out_t = ttype(out_shape)
    in_types = ", ".join(ttype(a.shape) for a in present)
    text = (
        f"func.func @main({args}) -> {out_t} {{\n"
        f"  %y = {op} {', '.join(names)} {props} : ({in_types}) -> {out_t}\n"
        f"  func.return %y : {out_t}\n}}"
    )
    module = Parser(context(), text).parse_module()
    module.verify()
    (result,) = run_module(module, present)
    assert result.dtype == np.float32 and result.shape == out_shape
    return result


def close(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, float(np.max(np.abs(want)))))


def arr(values: list[int]) -> str:
    return f"array<i64: {', '.join(map(str, values))}>"


# -- naive references -----------------------------------------------------------------------


def naive_conv(x, w, b, strides, dilations, pads, group):  # type: ignore[no-untyped-def]
    n, c, *spatial = x.shape
    o, cg, *kernel = w.shape
    rank = len(spatial)
    out = [(spatial[i] + pads[i] + pads[rank + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(rank)]  # fmt: skip
    y = np.zeros((n, o, *out))
    for b_, oc in itertools.product(range(n), range(o)):
        g = oc // (o // group)
        for pos in itertools.product(*map(range, out)):
            total = 0.0 if b is None else float(b[oc])
            for ic, tap in itertools.product(range(cg), itertools.product(*map(range, kernel))):
                src = [pos[i] * strides[i] - pads[i] + tap[i] * dilations[i] for i in range(rank)]
                if all(0 <= s < spatial[i] for i, s in enumerate(src)):
                    total += float(x[(b_, g * cg + ic, *src)]) * float(w[(oc, ic, *tap)])
            y[(b_, oc, *pos)] = total
    return y


def naive_conv_transpose(x, w, b, strides, dilations, pads, output_padding, group):  # type: ignore[no-untyped-def]
    n, c, *spatial = x.shape
    _, og, *kernel = w.shape
    rank = len(spatial)
    full = [strides[i] * (spatial[i] - 1) + dilations[i] * (kernel[i] - 1) + 1 + output_padding[i] for i in range(rank)]
    y = np.zeros((n, og * group, *full))
    for b_, ic, pos in itertools.product(range(n), range(c), itertools.product(*map(range, spatial))):
        g = ic // (c // group)
        for oc, tap in itertools.product(range(og), itertools.product(*map(range, kernel))):
            dst = [pos[i] * strides[i] + tap[i] * dilations[i] for i in range(rank)]
            y[(b_, g * og + oc, *dst)] += float(x[(b_, ic, *pos)]) * float(w[(ic, oc, *tap)])
    y = y[(slice(None), slice(None), *[slice(pads[i], full[i] - pads[rank + i]) for i in range(rank)])]
    return y + (0 if b is None else b.reshape(1, -1, *([1] * rank)))


def naive_pool(x, kind, kernel, strides, pads, ceil, include_pad=False, dilations=(1, 1)):  # type: ignore[no-untyped-def]
    """2-D pool; ceil-mode windows past the end pad are clipped there (ORT semantics)."""
    n, c, h, w = x.shape
    rnd = math.ceil if ceil else math.floor
    oh = rnd((h + pads[0] + pads[2] - dilations[0] * (kernel[0] - 1) - 1) / strides[0]) + 1
    ow = rnd((w + pads[1] + pads[3] - dilations[1] * (kernel[1] - 1) - 1) / strides[1]) + 1
    y = np.zeros((n, c, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        rows = [i * strides[0] - pads[0] + k * dilations[0] for k in range(kernel[0])]
        cols = [j * strides[1] - pads[1] + k * dilations[1] for k in range(kernel[1])]
        real = [(r, q) for r in rows for q in cols if 0 <= r < h and 0 <= q < w]
        window = np.stack([x[:, :, r, q] for r, q in real], axis=-1).astype(np.float64)
        if kind == "max":
            y[:, :, i, j] = window.max(axis=-1)
        else:
            padded = [(r, q) for r in rows for q in cols if -pads[0] <= r < h + pads[2] and -pads[1] <= q < w + pads[3]]
            y[:, :, i, j] = window.sum(axis=-1) / (len(padded) if include_pad else len(real))
    return y


# -- windowed ops ---------------------------------------------------------------------------


@pytest.mark.parametrize("activation", ["none", "relu", "relu6"])
def test_conv_strided_padded_dilated_grouped(activation: str) -> None:
    x, w, b = rand(2, 4, 9, 8) * 2, rand(6, 2, 3, 2), rand(6)
    props = f'{{strides = {arr([2, 1])}, dilations = {arr([1, 2])}, pads = {arr([1, 0, 2, 1])}, group = 2 : i64, fused_activation = "{activation}"}}'
    want = naive_conv(x, w, b, [2, 1], [1, 2], [1, 0, 2, 1], 2)
    want = {"none": want, "relu": np.maximum(want, 0), "relu6": np.clip(want, 0, 6)}[activation]
    close(run_tgr("tgr.conv", [x, w, b], want.shape, props), want)


def test_conv_defaults_without_bias() -> None:
    x, w = rand(1, 3, 5, 5), rand(4, 3, 3, 3)
    close(run_tgr("tgr.conv", [x, w], (1, 4, 3, 3)), naive_conv(x, w, None, [1, 1], [1, 1], [0] * 4, 1))


def test_depthwise_conv_with_multiplier_2() -> None:
    x, w, b = rand(1, 3, 7, 6), rand(6, 1, 3, 3), rand(6)
    props = f'{{strides = {arr([2, 2])}, pads = {arr([1, 1, 1, 1])}, fused_activation = "relu6"}}'
    want = np.clip(naive_conv(x, w, b, [2, 2], [1, 1], [1, 1, 1, 1], 3), 0, 6)
    close(run_tgr("tgr.depthwise_conv", [x, w, b], want.shape, props), want)


def test_conv1d() -> None:
    x, w, b = rand(2, 3, 17), rand(5, 3, 4), rand(5)
    props = f'{{strides = {arr([2])}, dilations = {arr([2])}, pads = {arr([3, 1])}, fused_activation = "relu"}}'
    want = np.maximum(naive_conv(x, w, b, [2], [2], [3, 1], 1), 0)
    close(run_tgr("tgr.conv1d", [x, w, b], want.shape, props), want)


def test_conv_transpose() -> None:
    x, w, b = rand(1, 4, 3, 4), rand(4, 2, 3, 2), rand(4)
    props = f"{{strides = {arr([2, 3])}, dilations = {arr([1, 2])}, pads = {arr([1, 0, 0, 2])}, output_padding = {arr([1, 1])}, group = 2 : i64}}"
    want = naive_conv_transpose(x, w, b, [2, 3], [1, 2], [1, 0, 0, 2], [1, 1], 2)
    close(run_tgr("tgr.conv_transpose", [x, w, b], want.shape, props), want)


@pytest.mark.parametrize("activation", ["none", "relu6"])
def test_fully_connected(activation: str) -> None:
    x, w, b = rand(3, 5) * 3, rand(4, 5), rand(4)
    want = x.astype(np.float64) @ w.T.astype(np.float64) + b
    want = np.clip(want, 0, 6) if activation == "relu6" else want
    close(run_tgr("tgr.fully_connected", [x, w, b], (3, 4), f'{{fused_activation = "{activation}"}}'), want)


def test_matmul_broadcasts_batches() -> None:
    a, b = rand(2, 3, 4), rand(4, 5)
    close(run_tgr("tgr.matmul", [a, b], (2, 3, 5)), np.einsum("bij,jk->bik", a.astype(np.float64), b))


@pytest.mark.parametrize(
    ("kind", "op", "kernel", "strides", "pads", "ceil", "extra"),
    [
        ("max", "tgr.max_pool", [3, 3], [2, 2], [1, 1, 1, 1], False, ""),
        ("max", "tgr.max_pool", [2, 3], [2, 2], [0, 0, 0, 0], True, ""),
        ("avg", "tgr.avg_pool", [3, 3], [2, 2], [1, 1, 1, 1], False, ""),
        ("avg", "tgr.avg_pool", [3, 3], [2, 2], [1, 1, 1, 1], False, "count_include_pad = 1 : i64"),
        ("avg", "tgr.avg_pool", [3, 2], [2, 2], [1, 0, 0, 0], True, ""),
        ("avg", "tgr.avg_pool", [3, 3], [2, 2], [1, 0, 1, 0], True, "count_include_pad = 1 : i64"),
    ],
)
def test_pools(kind: str, op: str, kernel: list[int], strides: list[int], pads: list[int], ceil: bool, extra: str) -> None:
    x = rand(1, 3, 8, 9)
    props = [f"kernel_shape = {arr(kernel)}", f"strides = {arr(strides)}", f"pads = {arr(pads)}"]
    props += [f"ceil_mode = {int(ceil)} : i64"] + ([extra] if extra else [])
    want = naive_pool(x, kind, kernel, strides, pads, ceil, "count_include_pad" in extra)
    close(run_tgr(op, [x], want.shape, "{" + ", ".join(props) + "}"), want)


def test_max_pool_dilated() -> None:
    x = rand(1, 2, 9, 9)
    props = f"{{kernel_shape = {arr([2, 2])}, dilations = {arr([2, 3])}, pads = {arr([1, 1, 0, 0])}}}"
    want = naive_pool(x, "max", [2, 2], [1, 1], [1, 1, 0, 0], False, dilations=(2, 3))
    close(run_tgr("tgr.max_pool", [x], want.shape, props), want)


def test_global_pools() -> None:
    x = rand(2, 3, 4, 5)
    close(run_tgr("tgr.global_avg_pool", [x], (2, 3, 1, 1)), x.astype(np.float64).mean(axis=(2, 3), keepdims=True))
    close(run_tgr("tgr.global_max_pool", [x], (2, 3, 1, 1)), x.max(axis=(2, 3), keepdims=True))


# -- element-wise and normalization -----------------------------------------------------------


def sigmoid64(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


@pytest.mark.parametrize(
    ("op", "props", "formula"),
    [
        ("tgr.relu", "", lambda x: np.where(x > 0, x, 0.0)),
        ("tgr.relu6", "", lambda x: np.where(x > 6, 6.0, np.where(x > 0, x, 0.0))),
        ("tgr.sigmoid", "", sigmoid64),
        ("tgr.tanh", "", lambda x: np.tanh(x.astype(np.float64))),
        ("tgr.hard_swish", "", lambda x: x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0),
        ("tgr.leaky_relu", "{alpha = 0.25 : f32}", lambda x: np.where(x >= 0, x, 0.25 * x)),
        ("tgr.leaky_relu", "", lambda x: np.where(x >= 0, x, np.float32(0.01) * x.astype(np.float64))),
        ("tgr.clip", "{min = -1.5 : f32, max = 2.5 : f32}", lambda x: np.minimum(np.maximum(x, -1.5), 2.5)),
        ("tgr.clip", "{min = 0.5 : f32}", lambda x: np.maximum(x, 0.5)),
        ("tgr.clip", "{max = -0.5 : f32}", lambda x: np.minimum(x, -0.5)),
        ("tgr.clip", "", lambda x: x),
        # element-wise math: float64 formulas by hand (x = 5 N(0, 1))
        ("tgr.neg", "", lambda x: -x),
        ("tgr.abs", "", np.abs),
        ("tgr.exp", "", lambda x: np.exp(x.astype(np.float64))),
        ("tgr.reciprocal", "", lambda x: 1.0 / x.astype(np.float64)),
        ("tgr.elu", "", lambda x: np.where(x >= 0, x, np.exp(x.astype(np.float64)) - 1.0)),
        ("tgr.elu", "{alpha = 0.5 : f32}", lambda x: np.where(x >= 0, x, 0.5 * (np.exp(x.astype(np.float64)) - 1.0))),
        ("tgr.selu", "{alpha = 1.5 : f32, gamma = 2.0 : f32}",
         lambda x: 2.0 * np.where(x > 0, x, 1.5 * (np.exp(x.astype(np.float64)) - 1.0))),
        ("tgr.softplus", "", lambda x: np.log(1.0 + np.exp(x.astype(np.float64)))),
        ("tgr.softsign", "", lambda x: x / (1.0 + np.abs(x.astype(np.float64)))),
        ("tgr.erf", "", lambda x: np.vectorize(math.erf)(x.astype(np.float64))),
        ("tgr.gelu", "", lambda x: 0.5 * x * (1.0 + np.vectorize(math.erf)(x.astype(np.float64) / math.sqrt(2.0)))),
        ("tgr.gelu", '{approximate = "tanh"}',
         lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.astype(np.float64) ** 3)))),
        ("tgr.hard_sigmoid", "", lambda x: np.clip(0.2 * x.astype(np.float64) + 0.5, 0.0, 1.0)),
        ("tgr.sign", "", np.sign),
        ("tgr.shrink", "{lambd = 1.5 : f32, bias = 0.5 : f32}",
         lambda x: np.where(x < -1.5, x + 0.5, np.where(x > 1.5, x - 0.5, 0.0))),
        ("tgr.pow", "{exponent = 3.0 : f32}", lambda x: x.astype(np.float64) ** 3),
        ("tgr.silu", "", lambda x: x * sigmoid64(x)),
    ],
)
def test_unary(op: str, props: str, formula) -> None:  # type: ignore[no-untyped-def]
    x = rand(2, 3, 4, 5) * 5
    close(run_tgr(op, [x], x.shape, props), formula(x))


@pytest.mark.parametrize(("op", "formula"), [("tgr.log", np.log), ("tgr.sqrt", np.sqrt)])
def test_unary_of_positive_inputs(op: str, formula) -> None:  # type: ignore[no-untyped-def]
    x = np.abs(rand(2, 3, 4, 5) * 5) + np.float32(1e-3)
    close(run_tgr(op, [x], x.shape), formula(x.astype(np.float64)))


@pytest.mark.parametrize(
    ("op", "formula"),
    [("tgr.add", np.add), ("tgr.sub", np.subtract), ("tgr.mul", np.multiply), ("tgr.div", np.divide)],
)
def test_binary_broadcasting(op: str, formula) -> None:  # type: ignore[no-untyped-def]
    a, b = rand(2, 3, 4, 5), rand(3, 1, 5) + 3  # b > 0: no division by zero
    close(run_tgr(op, [a, b], (2, 3, 4, 5)), formula(a.astype(np.float64), b.astype(np.float64)))


@pytest.mark.parametrize(
    ("op", "b_shape", "formula"),
    [
        ("tgr.max", (3, 1, 5), np.maximum),
        ("tgr.min", (1, 4, 1), np.minimum),
        ("tgr.prelu", (3, 1, 1), lambda x, s: np.where(x >= 0, x, x * s)),
        ("tgr.prelu", (1,), lambda x, s: np.where(x >= 0, x, x * s)),
    ],
)
def test_max_min_prelu_broadcast(op: str, b_shape: tuple[int, ...], formula) -> None:  # type: ignore[no-untyped-def]
    """b is as large as a, so max/min pick from both; the slope differs per channel."""
    a, b = rand(2, 3, 4, 5), rand(*b_shape)
    got = run_tgr(op, [a, b], (2, 3, 4, 5))
    want = formula(a.astype(np.float64), b.astype(np.float64))
    close(got, want)


def test_pow_tensor_broadcasts_its_exponent() -> None:
    """x ** e with e broadcast along channels; a negative base with a non-integer exponent is NaN
    (numpy's float64 power says the same)."""
    x = np.abs(rand(2, 3, 4, 5)) + 0.1
    x[0, 0, 0, 0] = -2.0
    e = rand(3, 1, 1)
    got = run_tgr("tgr.pow_tensor", [x, e], (2, 3, 4, 5))
    with np.errstate(invalid="ignore"):
        want = np.power(x.astype(np.float64), e.astype(np.float64))
    assert np.isnan(got[0, 0, 0, 0]) and np.isnan(want[0, 0, 0, 0])
    close(got.reshape(-1)[1:], want.reshape(-1)[1:])


def test_prelu_slope_must_broadcast_to_x() -> None:
    """The slope broadcasts one way only: a result larger than x is refused by the verifier."""
    with pytest.raises(VerifyException, match="tgr.prelu"):
        run_tgr("tgr.prelu", [rand(3, 1), rand(1, 4)], (3, 4))


@pytest.mark.parametrize("axis", [1, -1])
def test_softmax(axis: int) -> None:
    x = rand(2, 3, 4) * 10
    e = np.exp(x.astype(np.float64))
    close(run_tgr("tgr.softmax", [x], x.shape, f"{{axis = {axis} : i64}}"), e / e.sum(axis=axis, keepdims=True))


def test_batch_norm() -> None:
    x, scale, bias, mean = rand(2, 3, 4, 4), rand(3), rand(3), rand(3)
    var = RNG.uniform(0.1, 2.0, 3).astype(np.float32)
    c = lambda v: v.astype(np.float64).reshape(1, 3, 1, 1)  # noqa: E731
    want = (x - c(mean)) / np.sqrt(c(var) + np.float32(1e-3)) * c(scale) + c(bias)
    close(run_tgr("tgr.batch_norm", [x, scale, bias, mean, var], x.shape, "{epsilon = 1.0e-03 : f32}"), want)


def test_instance_norm() -> None:
    x, scale, bias = rand(2, 3, 4, 5) * 3 + 1, rand(3), rand(3)
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=(2, 3), keepdims=True), x64.var(axis=(2, 3), keepdims=True)
    want = (x64 - mean) / np.sqrt(var + np.float32(1e-5)) * scale.reshape(1, 3, 1, 1) + bias.reshape(1, 3, 1, 1)
    close(run_tgr("tgr.instance_norm", [x, scale, bias], x.shape), want)


# -- data movement ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "layout", "nchw_axis"),
    [(1, "nchw", 1), (3, "nhwc", 1), (1, "nhwc", 2), (2, "nhwc", 3), (-1, "nhwc", 1), (-1, "nchw", 3)],
)
def test_concat_axis_and_layout(axis: int, layout: str, nchw_axis: int) -> None:
    shapes = [[1, 2, 3, 4], [1, 2, 3, 4]]
    shapes[1][nchw_axis] = 5
    a, b = rand(*shapes[0]), rand(*shapes[1])
    want = np.zeros([s0 + s1 if i == nchw_axis else s0 for i, (s0, s1) in enumerate(zip(a.shape, b.shape))], np.float32)
    for index in itertools.product(*map(range, want.shape)):
        inside = index[nchw_axis] < a.shape[nchw_axis]
        src = list(index)
        if not inside:
            src[nchw_axis] -= a.shape[nchw_axis]
        want[index] = (a if inside else b)[tuple(src)]
    got = run_tgr("tgr.concat", [a, b], want.shape, f'{{axis = {axis} : i64, layout = "{layout}"}}')
    np.testing.assert_array_equal(got, want)


def test_concat_of_rank_2_ignores_nhwc() -> None:
    a, b = rand(2, 3), rand(2, 4)
    got = run_tgr("tgr.concat", [a, b], (2, 7), '{axis = 1 : i64, layout = "nhwc"}')
    np.testing.assert_array_equal(got, np.hstack([a, b]))


def reference_pad(x: np.ndarray, pads: list[int], mode: str, value: float) -> np.ndarray:
    rank = x.ndim
    out = [d + pads[i] + pads[rank + i] for i, d in enumerate(x.shape)]
    y = np.zeros(out, np.float32)
    for index in itertools.product(*map(range, out)):
        src = []
        for i, o in enumerate(index):
            s, n = o - pads[i], x.shape[i]
            if mode == "edge":
                s = min(max(s, 0), n - 1)
            elif mode == "reflect":
                s = -s if s < 0 else (2 * (n - 1) - s if s >= n else s)
            src.append(s)
        y[index] = x[tuple(src)] if all(0 <= s < n for s, n in zip(src, x.shape)) else value
    return y


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad(mode: str) -> None:
    x, pads = rand(1, 2, 4, 5), [0, 1, 2, 3, 0, 0, 3, 1]
    want = reference_pad(x, pads, mode, 0.75)
    got = run_tgr("tgr.pad", [x], want.shape, f'{{pads = {arr(pads)}, mode = "{mode}", value = 0.75 : f32}}')
    np.testing.assert_array_equal(got, want)


def test_slice_steps_both_ways() -> None:
    x = rand(2, 5, 6, 7)
    props = f"{{starts = {arr([1, 4, 0, 6])}, steps = {arr([1, -2, 3, -1])}}}"
    got = run_tgr("tgr.slice", [x], (1, 3, 2, 7), props)
    np.testing.assert_array_equal(got, x[1:2, 4::-2, 0::3, ::-1])


def test_slice_verifier_refuses_reading_outside() -> None:
    with pytest.raises(VerifyException, match="leave axis 1"):
        run_tgr("tgr.slice", [rand(2, 5)], (2, 3), f"{{starts = {arr([0, 1])}, steps = {arr([1, 2])}}}")


def test_gather_constant_indices_any_shape() -> None:
    x, idx = rand(2, 5, 3), [[4, 0], [1, 1]]
    want = np.zeros((2, 2, 2, 3), np.float32)
    for i, a, b, k in itertools.product(range(2), range(2), range(2), range(3)):
        want[i, a, b, k] = x[i, idx[a][b], k]
    got = run_tgr("tgr.gather", [x, None], want.shape, f"{{axis = 1 : i64, indices = {arr([4, 0, 1, 1])}}}")
    np.testing.assert_array_equal(got, want)


def _gather_of_indices(x_shape: tuple[int, ...], n: int, y_shape: tuple[int, ...]) -> ModuleOp:
    xt, it, yt = ttype(x_shape), ttype((n,), "i64"), ttype(y_shape)
    text = (
        f"func.func @main(%x: {xt}, %i: {it}) -> {yt} {{\n"
        f'  %y = "tgr.gather"(%x, %i) <{{axis = 0 : i64}}> : ({xt}, {it}) -> {yt}\n'
        f"  func.return %y : {yt}\n}}"
    )
    module = Parser(context(), text).parse_module()
    module.verify()
    return module


def test_gather_indices_at_run_time_count_from_the_end() -> None:
    COVERED.add("tgr.gather")
    table = rand(4, 3)
    (got,) = run_module(_gather_of_indices((4, 3), 3, (3, 3)), [table, np.array([3, -4, -1], np.int64)])
    np.testing.assert_array_equal(got, np.stack([table[3], table[0], table[3]]))
    with pytest.raises(InterpretationError, match="leaves axis 0"):
        run_module(_gather_of_indices((4, 3), 3, (3, 3)), [table, np.array([0, 4, 1], np.int64)])


def test_tile_repeats_every_axis() -> None:
    x = rand(2, 3)
    want = np.array([[x[i % 2, j % 3] for j in range(6)] for i in range(6)], np.float32)
    np.testing.assert_array_equal(run_tgr("tgr.tile", [x], (6, 6), f"{{repeats = {arr([3, 2])}}}"), want)


@pytest.mark.parametrize("ctm", ["half_pixel", "asymmetric", "pytorch_half_pixel"])
def test_resize_nearest_replicates_pixels(ctm: str) -> None:
    x = rand(1, 2, 3, 4)
    want = x[:, :, np.arange(6) // 2][:, :, :, np.arange(12) // 3]
    props = f'{{scales = {arr([1, 1, 2, 3])}, coordinate_transformation_mode = "{ctm}"}}'
    np.testing.assert_array_equal(run_tgr("tgr.resize", [x], (1, 2, 6, 12), props), want)


def linear_weights(out_len: int, in_len: int, ctm: str) -> np.ndarray:
    """[out, in] interpolation matrix of 1-D linear resizing (coordinates clamped to the input)."""
    m = np.zeros((out_len, in_len))
    for o in range(out_len):
        if ctm == "align_corners":
            src = o * (in_len - 1) / (out_len - 1)
        else:
            src = (o + 0.5) * in_len / out_len - 0.5
        src = min(max(src, 0.0), in_len - 1)
        low = int(math.floor(src))
        high = min(low + 1, in_len - 1)
        m[o, low] += 1 - (src - low)
        m[o, high] += src - low
    return m


@pytest.mark.parametrize("ctm", ["half_pixel", "align_corners"])
def test_resize_linear(ctm: str) -> None:
    x = rand(1, 2, 3, 4)
    want = np.einsum("oh,nchw,pw->ncop", linear_weights(6, 3, ctm), x.astype(np.float64), linear_weights(8, 4, ctm))
    props = f'{{scales = {arr([1, 1, 2, 2])}, mode = "linear", coordinate_transformation_mode = "{ctm}"}}'
    close(run_tgr("tgr.resize", [x], (1, 2, 6, 8), props), want)


def test_reshapes_and_transpose() -> None:
    x = rand(2, 3, 1, 4)
    np.testing.assert_array_equal(run_tgr("tgr.flatten", [x], (6, 4), "{axis = 2 : i64}"), x.reshape(6, 4))
    np.testing.assert_array_equal(run_tgr("tgr.flatten", [x], (2, 12)), x.reshape(2, 12))
    np.testing.assert_array_equal(run_tgr("tgr.reshape", [x], (4, 6)), x.reshape(4, 6))
    np.testing.assert_array_equal(run_tgr("tgr.squeeze", [x], (2, 3, 4), f"{{axes = {arr([2])}}}"), x[:, :, 0])
    np.testing.assert_array_equal(run_tgr("tgr.squeeze", [rand(1, 3, 1)], (3,)).shape, (3,))
    want = x[:, None, :, :, :, None]
    np.testing.assert_array_equal(run_tgr("tgr.unsqueeze", [x], want.shape, f"{{axes = {arr([1, -1])}}}"), want)
    got = run_tgr("tgr.transpose", [x], (4, 2, 1, 3), f"{{perm = {arr([3, 0, 2, 1])}}}")
    for n, c, h, w in itertools.product(range(2), range(3), range(1), range(4)):
        assert got[w, n, h, c] == x[n, c, h, w]


@pytest.mark.parametrize(("axes", "keep"), [([2, 3], 1), ([1], 0), ([-1, 0], 0)])
def test_reduce_mean(axes: list[int], keep: int) -> None:
    x = rand(2, 3, 4, 5)
    want = x.astype(np.float64).mean(axis=tuple(axes), keepdims=bool(keep))
    close(run_tgr("tgr.reduce_mean", [x], want.shape, f"{{axes = {arr(axes)}, keepdims = {keep} : i64}}"), want)


@pytest.mark.parametrize(("op", "axes", "keep"), [("tgr.reduce_sum", [2, 3], 1), ("tgr.reduce_sum", [-1, 0], 0),
                                                 ("tgr.reduce_max", [1], 0), ("tgr.reduce_max", [0, 2], 1),
                                                 ("tgr.reduce_min", [3], 1), ("tgr.reduce_min", [1, 2], 0)])
def test_reduce_sum_max_min(op: str, axes: list[int], keep: int) -> None:
    x = rand(2, 3, 4, 5)
    want = getattr(x.astype(np.float64), op.removeprefix("tgr.reduce_"))(axis=tuple(axes), keepdims=bool(keep))
    close(run_tgr(op, [x], want.shape, f"{{axes = {arr(axes)}, keepdims = {keep} : i64}}"), want)


@pytest.mark.parametrize("axis", [1, -1])
def test_log_softmax(axis: int) -> None:
    x = rand(2, 3, 4, 5) * 30  # large values: exp(x) alone would overflow float32
    x64 = x.astype(np.float64)
    want = x64 - np.log(np.sum(np.exp(x64 - x64.max(axis=axis, keepdims=True)), axis=axis, keepdims=True)) \
        - x64.max(axis=axis, keepdims=True)
    close(run_tgr("tgr.log_softmax", [x], want.shape, f"{{axis = {axis} : i64}}"), want)


@pytest.mark.parametrize("size", [3, 4, 5])
def test_lrn(size: int) -> None:
    x = rand(2, 6, 3, 4)
    want = np.empty(x.shape)
    for c in range(6):  # ONNX: channels [c - floor((size-1)/2), c + ceil((size-1)/2)]
        lo, hi = max(0, c - (size - 1) // 2), min(5, c + -(-(size - 1) // 2))
        square_sum = np.sum(x[:, lo : hi + 1].astype(np.float64) ** 2, axis=1)
        want[:, c] = x[:, c] / (1.5 + 0.2 / size * square_sum) ** 0.6
    props = f"{{size = {size} : i64, alpha = 0.2 : f32, beta = 0.6 : f32, bias = 1.5 : f32}}"
    close(run_tgr("tgr.lrn", [x], x.shape, props), want)


@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_norm(axis: int) -> None:
    x = rand(2, 3, 4)
    params = x.shape[axis % 3 :]
    scale, bias = rand(*params), rand(*params)
    axes = tuple(range(axis % 3, 3))
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=axes, keepdims=True), x64.var(axis=axes, keepdims=True)
    want = (x64 - mean) / np.sqrt(var + 1e-5) * scale + bias
    close(run_tgr("tgr.layer_norm", [x, scale, bias], x.shape, f"{{axis = {axis} : i64}}"), want)


# -- weights, quantized types, recording, coverage -----------------------------------------------


def test_weights_inline_and_from_the_resource_table() -> None:
    big = rand(4, 5)  # more than INLINE_LIMIT elements: stored as a resource
    text = """func.func @main() -> (tensor<2xf32>, tensor<2x2xf32>) {
      %a = tgr.weight dense<[0.5, -1.25]> : tensor<2xf32>
      %b = tgr.weight dense<3.0> : tensor<2x2xf32>
      func.return %a, %b : tensor<2xf32>, tensor<2x2xf32>
    }"""
    COVERED.add("tgr.weight")
    module = Parser(context(), text).parse_module()
    a, b = run_module(module, [])
    np.testing.assert_array_equal(a, [0.5, -1.25])
    np.testing.assert_array_equal(b, np.full((2, 2), 3.0, np.float32))
    weight = make_weight(big, TensorType(f32, big.shape), "w")
    recorder = OpRecorder()
    from xdsl.dialects.func import FuncOp, ReturnOp
    from xdsl.ir import Block, Region

    block = Block()
    block.add_ops([weight, ReturnOp(weight.output)])
    func = FuncOp.from_region("main", [], [weight.output.type], Region(block))
    (got,) = run_module(ModuleOp([func]), [], recorder=recorder)
    np.testing.assert_array_equal(got, big)
    assert [op.name for op, _ in recorder.records] == ["tgr.weight", "func.return"]
    np.testing.assert_array_equal(recorder.by_name()["w"][0], big)


@pytest.mark.parametrize(
    ("quant", "scales", "zero_points", "axis"),
    [("!tgr.quant<i8, 0.05:-3>", [0.05], [-3], None), ("!tgr.quant<ui8, 0.1:128>", [0.1], [128], None),
     ("!tgr.quant<i8:1, {0.02:0, 0.04:5, 0.08:-7}>", [0.02, 0.04, 0.08], [0, 5, -7], 1)],
)  # fmt: skip
def test_quantize_and_dequantize(quant: str, scales: list[float], zero_points: list[int], axis: int | None) -> None:
    """`"tgr.quantize"` then `"tgr.dequantize"`: ONNX QuantizeLinear/DequantizeLinear at the type's parameters."""
    x = rand(2, 3, 4) * 4
    x[0, 0, :2] = [0.05 * 2.5, -0.05 * 3.5]  # near-ties: float32 division decides
    f, q = "tensor<2x3x4xf32>", f"tensor<2x3x4x{quant}>"
    text = f"""func.func @main(%x: {f}) -> ({q}, {f}) {{
      %q = tgr.quantize %x : ({f}) -> {q}
      %d = tgr.dequantize %q : ({q}) -> {f}
      func.return %q, %d : {q}, {f}
    }}"""
    module = Parser(context(), text).parse_module()
    module.verify()
    got_q, got_d = run_module(module, [x])
    shape = (1, 3, 1) if axis is not None else ()
    s = np.asarray(scales, np.float32).reshape(shape)
    z = np.asarray(zero_points).reshape(shape)
    info = np.iinfo(got_q.dtype)
    assert got_q.dtype == (np.uint8 if "ui8" in quant else np.int8)
    ratio = (x / s).astype(np.float64)  # ONNX divides in float32, then rounds half to even
    want_q = np.clip(np.round(ratio) + z, info.min, info.max)
    np.testing.assert_array_equal(got_q, want_q)
    close(got_d, (want_q - z) * s.astype(np.float64))


def test_quantized_ops_without_an_int8_kernel_are_refused() -> None:
    """instance_norm has no int8 kernel: it must refuse int8 rather than run float on it."""
    q = "tensor<1x2x2x2x!tgr.quant<i8, 0.05:-3>>"
    text = (
        f"func.func @main(%x: {q}, %s: tensor<2xf32>, %b: tensor<2xf32>) -> {q} {{\n"
        f"  %y = tgr.instance_norm %x, %s, %b : ({q}, tensor<2xf32>, tensor<2xf32>) -> {q}\n  func.return %y : {q}\n}}"
    )
    module = Parser(context(), text).parse_module()
    with pytest.raises(InterpretationError, match="quantized"):
        run_module(module, [np.zeros((1, 2, 2, 2), np.int8), np.ones(2, np.float32), np.zeros(2, np.float32)])


def test_inputs_are_checked_against_the_signature() -> None:
    text = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %x : tensor<2xf32>\n}"
    module = Parser(context(), text).parse_module()
    with pytest.raises(InterpretationError, match="shape"):
        run_module(module, [np.zeros(3, np.float32)])
    with pytest.raises(InterpretationError, match="takes 1 inputs"):
        run_module(module, [])


def test_every_tgr_op_is_tested_here() -> None:
    import re
    from pathlib import Path

    named = set(re.findall(r'"(tgr\.[a-z0-9_]+)"', Path(__file__).read_text()))
    assert {op.name for op in TGR_OPS} <= named


def test_every_dialect_op_has_an_implementation() -> None:
    from tigris.dialects.interpreter import OnnxFunctions, TgrFunctions
    from tigris.dialects.onnx.dialect import ONNX

    implemented = {op for op, _ in [*OnnxFunctions._impls(), *TgrFunctions._impls()]}  # noqa: SLF001
    assert set(ONNX.operations) <= implemented
    assert set(TGR_OPS) <= implemented
