"""The C int8 reference kernels (runtime/src/kernels/kernels_i8_*.c) against the Python int8
interpreter, bit for bit, and against onnxruntime within one LSB.

- The arithmetic helpers (i8_math.h) through runtime/tests/test_i8_math.c on 10,000 random and
  edge cases each (rounding ties and their neighbours), against tigris_dialects/quant/arith.py.
- One-op models: a float ONNX model of one op (and its parameter variants) is quantized with the
  repo's QDQ quantizer (test/models/quantize.py), or built as a QDQ graph by hand where the
  quantizer would not pick the parameters (requantizing moves, uint8 tensors, ops it leaves in
  float), compiled with `compile_bytes` at a budget that gives one stage, and run op by op with
  run_ops (test/support/runtime_ops.py). Its outputs must equal the interpreter's on the same
  compiled IR, and lie within 1 LSB of onnxruntime on the QDQ model (which computes in float and
  quantizes once). Band variants hold every tensor as the row band it needs, as a tiled stage
  does: the output rows must equal the whole run's, and an input band one row short must fail
  with TIGRIS_KERNEL_ERR_BAND. Window variants do the same for 2-D tiles (rows x columns,
  test/support/kernel_windows.py) on random convolutions and pools with zero points, in the fast
  and the reference-only build.
- Plans the compiler does not write (mutated records): bad parameters are refused with the right
  error; cropping pads follow ONNX.
- Every int8 zoo model end to end: bit-exact with the interpreter (the distance to onnxruntime,
  in output LSB, is printed and bounded); and tiled through tigris_run at small budgets.

run_ops runs twice: the -O2 build and the ASan + UBSan build.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from compiled_models import ORT_INT8_STEPS, Compiled, compile_model, interpret, ort_lsb, plan_inputs  # test/support
from tigris.dialects.quant import arith
from tigris.dialects.onnx.importer import import_model_file
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import DType, OpFlag, OpType, WeightLayout
from tigris.emit.tgrs.model import PlanFile
from tigris.tools import runtime_build
from tigris.transforms.pipelines import TigrisCompilePass
from xdsl.context import Context

SANITIZE = [False, True]


# -- (a) the arithmetic helpers ------------------------------------------------------------------

KIND_ROUND_CLAMP, KIND_QUANTIZE, KIND_DEQUANTIZE, KIND_REQUANT, KIND_MEAN, KIND_EXP = range(6)


def math_binary(sanitize: bool) -> Path:
    sources = [runtime_build.RUNTIME_DIR / "tests" / "test_i8_math.c"]
    flags = [f"-I{runtime_build.RUNTIME_DIR / 'src' / 'kernels'}"]
    return runtime_build.build(
        "test_i8_math_asan" if sanitize else "test_i8_math", sources, sanitize=sanitize, extra_flags=flags
    )


def run_math(sanitize: bool, records: np.ndarray) -> np.ndarray:
    """Evaluate records [kind, p0..p6] with the C helpers."""
    data = records.astype("<i4").tobytes()
    proc = subprocess.run([str(math_binary(sanitize))], input=data, capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    return np.frombuffer(proc.stdout, "<i4").astype(np.int64)


def records(kind: int, *columns: np.ndarray) -> np.ndarray:
    out = np.zeros((len(columns[0]), 8), np.int64)
    out[:, 0] = kind
    for i, c in enumerate(columns):
        out[:, 1 + i] = c
    return out


def bits(x: np.ndarray) -> np.ndarray:
    """binary32 values as the int32 words the C driver reads."""
    return np.asarray(x, np.float32).view(np.int32).astype(np.int64)


def float_cases(rng: np.random.Generator, n: int, scale: np.ndarray) -> np.ndarray:
    """Values around every kind of rounding decision at `scale`: exact ties (k + 1/2) * scale,
    their float32 neighbours, random values, and NaN / infinities / huge values."""
    k = rng.integers(-300, 300, n).astype(np.float32)
    ties = ((k + np.float32(0.5)) * scale).astype(np.float32)
    pick = rng.integers(0, 4, n)
    wide = (rng.standard_normal(n) * 200 * scale).astype(np.float32)
    up = np.nextafter(ties, np.float32(np.inf))
    down = np.nextafter(ties, np.float32(-np.inf))
    out = np.choose(pick, [ties, up, down, wide]).astype(np.float32)
    out[:6] = [np.nan, np.inf, -np.inf, 3e38, -3e38, 0.0]
    return out


def storage(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(zero point, lo, hi) of int8 and uint8 outputs, some narrowed as a fused relu/relu6 does."""
    unsigned = rng.integers(0, 2, n).astype(bool)
    lo = np.where(unsigned, 0, -128)
    hi = np.where(unsigned, 255, 127)
    zp = rng.integers(lo, hi + 1)
    narrowed = rng.integers(0, 3, n) == 0
    lo = np.where(narrowed, zp, lo)
    hi = np.where(narrowed & (rng.integers(0, 2, n) == 0), np.minimum(hi, zp + 40), hi)
    return zp, lo, hi


@pytest.mark.parametrize("sanitize", SANITIZE)
def test_arithmetic_helpers_are_bit_exact_with_quant_arith(sanitize: bool) -> None:
    """i8_math.h against tigris_dialects/quant/arith.py, the interpreter's definitions, bit for
    bit on ~10,000 cases each, ties and their neighbours included."""
    rng = np.random.default_rng(7)
    n = 10_000
    scale = np.exp(rng.uniform(np.log(1e-4), np.log(10.0), n)).astype(np.float32)
    zp, lo, hi = storage(rng, n)
    # round_clamp and quantize
    v = float_cases(rng, n, np.float32(1.0))
    got = run_math(sanitize, records(KIND_ROUND_CLAMP, bits(v), zp, lo, hi))
    np.testing.assert_array_equal(got, [int(arith.round_to_storage(v[i], zp[i], lo[i], hi[i])) for i in range(n)])
    y = float_cases(rng, n, scale)
    got = run_math(sanitize, records(KIND_QUANTIZE, bits(y), bits(scale), zp, lo, hi))
    np.testing.assert_array_equal(got, [int(arith.quantize(y[i], scale[i], zp[i], lo[i], hi[i])) for i in range(n)])
    # dequantize: every stored value of both storages
    q = rng.integers(-128, 256, n)
    z = rng.integers(-128, 256, n)
    got = run_math(sanitize, records(KIND_DEQUANTIZE, q, z, bits(scale)))
    np.testing.assert_array_equal(got, bits(arith.dequantize(q, scale, z)))
    # requant: accumulators of every magnitude, float32-inexact ones (> 2^24) included
    acc = np.concatenate([rng.integers(-(2**31), 2**31, n // 2), rng.integers(-(2**20), 2**20, n - n // 2)])
    acc[:4] = [-(2**31), 2**31 - 1, 2**24 + 1, -(2**24) - 3]
    s = np.exp(rng.uniform(np.log(1e-8), np.log(1.0), n)).astype(np.float32)
    got = run_math(sanitize, records(KIND_REQUANT, acc, bits(s), zp, lo, hi))
    want = [int(arith.requantize_accumulator(acc[i], s[i], int(zp[i]), int(lo[i]), int(hi[i]))) for i in range(n)]
    np.testing.assert_array_equal(got, want)
    # mean: sums of up to MEAN_MAX_COUNT values, ties (sx == sy, total = (k + 1/2) count) included
    count = rng.integers(1, 2**15, n)
    total = np.clip(rng.integers(-255, 256, n) * count + rng.integers(-(2**15), 2**15, n), -(2**31), 2**31 - 1)
    total[: n // 4] = (2 * rng.integers(-100, 100, n // 4) + 1) * (count[: n // 4] * 2) // 2
    sx = np.exp(rng.uniform(np.log(1e-3), np.log(1.0), n)).astype(np.float32)
    sy = np.where(rng.integers(0, 2, n) == 0, sx, sx * np.exp(rng.uniform(-1, 1, n))).astype(np.float32)
    got = run_math(sanitize, records(KIND_MEAN, total, count, bits(sx), bits(sy), zp, lo, hi))
    want = [int(arith.mean_of_total(total[i], count[i], sx[i], sy[i], int(zp[i]), int(lo[i]), int(hi[i]))) for i in range(n)]
    np.testing.assert_array_equal(got, want)
    # exp over its whole range, the cut-offs and specials
    x = np.concatenate([rng.uniform(-100, 100, n), rng.uniform(-1, 1, n)]).astype(np.float32)
    x[:9] = [np.nan, np.inf, -np.inf, -87.0, np.nextafter(np.float32(-87), np.float32(-100)), 88.0, 0.0, -0.0, 1e-30]
    got = run_math(sanitize, records(KIND_EXP, bits(x)))
    np.testing.assert_array_equal(got, bits(arith.exp_f32(x)))


# -- one-op models -----------------------------------------------------------------------------

OPSET = 17
SEED = 11


def _info(name: str, shape: Sequence[int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


@dataclass
class Graph:
    """A small float ONNX graph under construction: inputs, float initializers, nodes."""

    inputs: list[tuple[str, tuple[int, ...]]]
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(SEED))
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    inits: list[onnx.TensorProto] = field(default_factory=list)

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, name: str, shape: Sequence[int], scale: float = 0.3) -> str:
        return self.const(name, (self.rng.standard_normal(shape) * scale).astype(np.float32))

    def node(self, op_type: str, inputs: Sequence[str], output: str, **attrs: object) -> str:
        self.nodes.append(
            helper.make_node(
                op_type, list(inputs), [output], name=f"{op_type.lower()}_{len(self.nodes)}", **attrs
            )
        )
        return output

    storage: type = np.int8

    def q_dq(self, name: str, q: tuple[float, int], tag: str) -> str:
        """name through QuantizeLinear and DequantizeLinear at q (scale, zero point)."""
        scale, zp = self.const(f"s_{tag}", np.float32(q[0])), self.const(f"z_{tag}", self.storage(q[1]))
        stored = self.node("QuantizeLinear", [name, scale, zp], f"{tag}_q")
        return self.node("DequantizeLinear", [stored, scale, zp], f"{tag}_dq")

    def model(self, outputs: Sequence[str]) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "one_op",
            [_info(n, s) for n, s in self.inputs],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
            self.inits,
        )
        opsets = [helper.make_opsetid("", OPSET)]
        model = helper.make_model(
            graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets)
        )
        return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def conv(
    shape: tuple[int, ...],
    out_ch: int,
    kernel: tuple[int, ...],
    bias: bool = True,
    after: str | None = None,
    **attrs: object,
) -> onnx.ModelProto:
    g = Graph([("x", shape)])
    group = int(attrs.get("group", 1))  # type: ignore[call-overload]
    ins = ["x", g.weight("w", (out_ch, shape[1] // group, *kernel))]
    if bias:
        ins.append(g.weight("b", (out_ch,), 0.1))
    y = g.node("Conv", ins, "y", kernel_shape=list(kernel), **attrs)
    if after == "relu":
        y = g.node("Relu", [y], "z")
    elif after == "relu6":
        y = g.node("Clip", [y, g.const("lo", np.float32(0)), g.const("hi", np.float32(6))], "z")
    return g.model([y])


def per_tensor(model: onnx.ModelProto) -> onnx.ModelProto:
    """The quantizer with per-tensor weights: it writes a bias's scale as [1] beside a scalar zero
    point, which the importer takes as per-tensor (as onnxruntime does)."""
    from quantize import quantize_int8  # test/models, on sys.path via conftest

    return quantize_int8(model, per_channel=False)


def conv_transpose(
    shape: tuple[int, ...], out_ch: int, kernel: tuple[int, ...], group: int = 1, **attrs: object
) -> onnx.ModelProto:
    g = Graph([("x", shape)])
    w = g.weight("w", (shape[1], out_ch // group, *kernel))
    return g.model(
        [
            g.node(
                "ConvTranspose",
                ["x", w, g.weight("b", (out_ch,), 0.1)],
                "y",
                kernel_shape=list(kernel),
                group=group,
                **attrs,
            )
        ]
    )


def unary(
    op_type: str,
    shape: tuple[int, ...] = (1, 4, 7, 6),
    extra: Sequence[np.ndarray] = (),
    after: str | None = None,
    **attrs: object,
) -> onnx.ModelProto:
    """x * 1.25 (an int8 producer: the quantizer quantizes pools, resizes and activations only
    after one), then the op, then optionally `after` (to keep the op off the model output)."""
    g = Graph([("x", shape)])
    src = g.node("Mul", ["x", g.const("k", np.float32(1.25))], "m")
    names = [src] + [g.const(f"c{i}", v) if v is not None else "" for i, v in enumerate(extra)]
    y = g.node(op_type, names, "y", **attrs)
    if after is not None:
        y = g.node(after, [y, g.const("k2", np.float32(0.75))], "z")
    return g.model([y])


def pooled_transpose(shape: tuple[int, ...], perm: list[int]) -> onnx.ModelProto:
    """x * 1.25, a 1x1 MaxPool, the Transpose, a 1x1 MaxPool: the pools pin the layout on both
    sides of the transpose (see the transpose cases)."""
    g = Graph([("x", shape)])
    pooled = g.node("MaxPool", [g.node("Mul", ["x", g.const("k", np.float32(1.25))], "m")], "p", kernel_shape=[1, 1])
    return g.model([g.node("MaxPool", [g.node("Transpose", [pooled], "t", perm=perm)], "y", kernel_shape=[1, 1])])


def binary(
    op_type: str, a: tuple[int, ...], b: tuple[int, ...], const_b: bool = False, **attrs: object
) -> onnx.ModelProto:
    g = Graph([("a", a)] + ([] if const_b else [("b", b)]))
    rhs = g.weight("b", b, 1.0) if const_b else "b"
    return g.model([g.node(op_type, ["a", rhs], "y", **attrs)])


def concat(shapes: Sequence[tuple[int, ...]], axis: int) -> onnx.ModelProto:
    """Inputs of different ranges (each scaled differently), so concat requantizes some."""
    g = Graph([(f"x{i}", s) for i, s in enumerate(shapes)])
    ins = [
        g.node("Mul", [f"x{i}", g.const(f"k{i}", np.float32(1.0 + 1.5 * i))], f"m{i}")
        for i in range(len(shapes))
    ]
    return g.model([g.node("Concat", ins, "y", axis=axis)])


def gemm_on(shape: tuple[int, ...], units: int, flatten: bool) -> onnx.ModelProto:
    g = Graph([("x", shape)])
    x = g.node("Mul", ["x", g.const("k", np.float32(1.25))], "m")
    x = g.node("Flatten", [x], "f", axis=1) if flatten else x
    k = int(np.prod(shape[1:]))
    return g.model(
        [g.node("Gemm", [x, g.weight("w", (units, k), 0.2), g.weight("b", (units,), 0.1)], "y", transB=1)]
    )


def matmul_const(shape: tuple[int, ...], cols: int) -> onnx.ModelProto:
    g = Graph([("x", shape)])
    return g.model([g.node("MatMul", ["x", g.weight("w", (shape[-1], cols), 0.3)], "y")])


def resize(shape: tuple[int, ...], scale: int, ctm: str, nearest_mode: str) -> onnx.ModelProto:
    scales = np.array([1, 1, scale, scale], np.float32)
    return unary(
        "Resize",
        shape,
        [None, scales],
        mode="nearest",
        coordinate_transformation_mode=ctm,
        nearest_mode=nearest_mode,
    )


def pad(shape: tuple[int, ...], pads: Sequence[int], mode: str) -> onnx.ModelProto:
    return unary("Pad", shape, [np.array(pads, np.int64)], mode=mode)


def reshape_like(op_type: str, shape: tuple[int, ...], target: Sequence[int] | None = None, **attrs: object):
    g = Graph([("x", shape)])
    ins = ["x"]
    if target is not None:
        ins.append(g.const("target", np.array(target, np.int64)))
    # a conv first keeps the model input out of the byte op (the compiler may trim leading moves)
    w = g.weight("w", (shape[1], shape[1], 1, 1)) if len(shape) == 4 else None
    src = g.node("Conv", ["x", w], "c", kernel_shape=[1, 1]) if w is not None else "x"
    return g.model([g.node(op_type, [src, *ins[1:]], "y", **attrs)])


QParam = tuple[float, int]


def qdq(
    inputs: Sequence[tuple[tuple[int, ...], QParam]],
    body: Callable[[Graph, list[str]], str],
    out_q: QParam,
    storage: int = TensorProto.INT8,
) -> onnx.ModelProto:
    """A hand-made QDQ model: each input quantized and dequantized at its own parameters, the
    float `body`, its result quantized at `out_q` (int8 or uint8 storage). It picks parameters
    the quantizer would not: requantizing moves, uint8 tensors, ops it leaves in float."""
    g = Graph([(f"x{i}", s) for i, (s, _) in enumerate(inputs)])
    zero_dtype = np.int8 if storage == TensorProto.INT8 else np.uint8

    g.storage = zero_dtype
    xs = [g.q_dq(f"x{i}", q, f"in{i}") for i, (_, q) in enumerate(inputs)]
    return g.model([g.q_dq(body(g, xs), out_q, "out")])


def qdq_unary(
    op_type: str,
    shape: tuple[int, ...],
    in_q: QParam,
    out_q: QParam,
    storage: int = TensorProto.INT8,
    extra: Sequence[np.ndarray | None] = (),
    **attrs: object,
):
    def body(g: Graph, xs: list[str]) -> str:
        names = xs + [g.const(f"c{i}", v) if v is not None else "" for i, v in enumerate(extra)]
        return g.node(op_type, names, "y", **attrs)

    return qdq([(shape, in_q)], body, out_q, storage)


def split_second(g: Graph, xs: list[str]) -> str:
    """Split into channels [0, 2) and [2, 6); the second part (the first stays unused)."""
    sizes = g.const("sizes", i64s(2, 4))
    g.nodes.append(helper.make_node("Split", [xs[0], sizes], ["y0", "y"], axis=1, name="split"))
    return "y"


def with_opset(model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """`model` (built at OPSET, nodes unchecked) re-typed at a newer opset: Gelu is opset 20,
    Swish 24."""
    del model.opset_import[:]
    model.opset_import.append(helper.make_opsetid("", opset))
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def qdq_binary(
    op_type: str,
    a: tuple[int, ...],
    b: tuple[int, ...],
    qa: QParam,
    qb: QParam,
    out_q: QParam,
    storage: int = TensorProto.INT8,
    **attrs: object,
):
    return qdq([(a, qa), (b, qb)], lambda g, xs: g.node(op_type, xs, "y", **attrs), out_q, storage)


def qdq_prelu(shape: tuple[int, ...], slope_shape: tuple[int, ...], quantized_slope: bool) -> onnx.ModelProto:
    """x -> QDQ -> PRelu(slope) -> QDQ. A quantized slope (QDQ of a constant, as a QDQ tool writes a
    weight) gives the int8 kernel; a float slope keeps PRelu in float between int8 tensors."""

    def body(g: Graph, xs: list[str]) -> str:
        slope = g.const("slope", (g.rng.uniform(-0.5, 0.8, slope_shape)).astype(np.float32))
        if quantized_slope:
            slope = g.q_dq(slope, (0.006, -20), "slope")
        return g.node("PRelu", [xs[0], slope], "y")

    return qdq([(shape, Q_IN)], body, (0.02, -30))


def float_island(shape: tuple[int, ...], in_q: QParam, out_q: QParam, storage: int = TensorProto.INT8):
    """dequantize -> relu, max pool (float: neither sits between a DequantizeLinear and a
    QuantizeLinear, and both are exact in float32) -> quantize."""
    return qdq(
        [(shape, in_q)],
        lambda g, xs: g.node("MaxPool", [g.node("Relu", xs, "r")], "y", kernel_shape=[2, 2]),
        out_q,
        storage,
    )


def conv_then(op_type: str, shape: tuple[int, ...], extra: Sequence[tuple[str, np.ndarray]] = (), **attrs: object):
    """conv -> `op_type` (extra constant inputs after the conv's output) -> relu: the quantizer puts
    the op between QDQ nodes whatever it is, as a QDQ model from any tool would."""
    g = Graph([("x", shape)])
    c = g.node("Conv", ["x", g.weight("w", (shape[1], shape[1], 3, 3))], "c", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    ins = [c] + [g.const(name, value) if name else "" for name, value in extra]
    return g.model([g.node("Relu", [g.node(op_type, ins, "y", **attrs)], "z")])


def dense_softmax(features: int, classes: int) -> onnx.ModelProto:
    """gemm -> softmax, the head of a classifier (a keyword spotter's, say)."""
    g = Graph([("x", (1, features))])
    logits = g.node("Gemm", ["x", g.weight("w", (classes, features))], "logits", transB=1)
    return g.model([g.node("Softmax", [logits], "y", axis=-1)])


def qdq_conv(
    shape: tuple[int, ...],
    out_ch: int,
    kernel: tuple[int, ...],
    in_q: QParam,
    w_scale: float,
    out_q: QParam,
    storage: int = TensorProto.INT8,
    w_zp: int = 0,
    **attrs: object,
) -> onnx.ModelProto:
    """A conv on stored activations of `storage` with a per-tensor int8 weight, no bias."""

    def body(g: Graph, xs: list[str]) -> str:
        w = g.weight("w", (out_ch, shape[1], *kernel))
        scale, zp = g.const("s_w", np.float32(w_scale)), g.const("z_w", np.int8(w_zp))
        wq = g.node("DequantizeLinear", [g.node("QuantizeLinear", [w, scale, zp], "w_q"), scale, zp], "w_dq")
        return g.node("Conv", [xs[0], wq], "y", kernel_shape=list(kernel), **attrs)

    return qdq([(shape, in_q)], body, out_q, storage)


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], onnx.ModelProto]
    ops: tuple[OpType, ...]  # int8 op types the plan must contain (each at least once)
    quantized: bool = False  # build() is a QDQ model already (else: quantize_int8)
    band: bool = True  # every op of the plan is band-capable: run the band variant too


U8 = TensorProto.UINT8
F32 = np.float32
Q_IN, Q_IN_U8 = (0.025, 3), (0.025, 128)


def i64s(*values: int) -> np.ndarray:
    return np.asarray(values, np.int64)
CASES = [
    # convolutions
    Case("conv3x3_pad1", lambda: conv((1, 4, 9, 7), 6, (3, 3), pads=[1, 1, 1, 1]), (OpType.CONV,)),
    Case(
        "conv_stride2_asym_pads_relu",
        lambda: conv((1, 3, 11, 10), 8, (3, 3), after="relu", strides=[2, 2], pads=[1, 0, 0, 1]),
        (OpType.CONV,),
    ),
    Case(
        "conv_dilated_relu6",
        lambda: conv((1, 4, 12, 12), 5, (3, 3), after="relu6", dilations=[2, 2], pads=[2, 2, 2, 2]),
        (OpType.CONV,),
    ),
    Case(
        "conv_group2_nobias",
        lambda: conv((1, 6, 8, 8), 4, (3, 3), bias=False, group=2, pads=[1, 1, 1, 1]),
        (OpType.CONV,),
    ),
    Case(
        "conv5x3_stride1x2",
        lambda: conv((1, 3, 10, 11), 4, (5, 3), strides=[1, 2], pads=[2, 1, 2, 1]),
        (OpType.CONV,),
    ),
    Case("conv_batch2", lambda: conv((2, 3, 6, 5), 4, (3, 3), pads=[1, 1, 1, 1]), (OpType.CONV,)),
    Case(
        "conv_per_tensor_bias",
        lambda: per_tensor(conv((1, 4, 9, 7), 6, (3, 3), pads=[1, 1, 1, 1])),
        (OpType.CONV,),
        quantized=True,
    ),
    Case(
        "conv_uint8",
        lambda: qdq_conv((1, 3, 7, 6), 4, (3, 3), Q_IN_U8, 0.01, (0.02, 100), U8, pads=[1, 1, 1, 1]),
        (OpType.CONV,),
        quantized=True,
    ),
    Case(
        "conv_weight_zero_point",
        lambda: qdq_conv(
            (1, 3, 6, 6), 4, (3, 3), Q_IN, 0.01, (0.03, -5), w_zp=-9, strides=[2, 1], pads=[0, 1, 1, 1]
        ),
        (OpType.CONV,),
        quantized=True,
    ),
    Case(
        "conv_left_shift",
        lambda: qdq_conv((1, 2, 5, 5), 3, (1, 1), (0.05, 0), 0.05, (0.001, 0)),
        (OpType.CONV,),
        quantized=True,
    ),
    Case(
        "depthwise3x3",
        lambda: conv((1, 8, 10, 10), 8, (3, 3), group=8, pads=[1, 1, 1, 1]),
        (OpType.DEPTHWISE,),
    ),
    Case(
        "depthwise_mult2_stride2",
        lambda: conv((1, 4, 9, 9), 8, (3, 3), group=4, strides=[2, 2], pads=[1, 1, 1, 1]),
        (OpType.DEPTHWISE,),
    ),
    Case("conv1d_k3", lambda: conv((1, 6, 20), 8, (3,), pads=[1, 1]), (OpType.CONV1D,)),
    Case(
        "conv1d_stride2_dil2_group2",
        lambda: conv((1, 4, 21), 6, (3,), strides=[2], dilations=[2], group=2, pads=[2, 1]),
        (OpType.CONV1D,),
    ),
    Case(
        "conv_transpose_s2",
        lambda: conv_transpose(
            (1, 4, 5, 6), 3, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]
        ),
        (OpType.CONV_TRANSPOSE,),
    ),
    Case(
        "conv_transpose_k3_s1",
        lambda: conv_transpose((1, 3, 4, 5), 4, (3, 3), pads=[1, 0, 1, 2]),
        (OpType.CONV_TRANSPOSE,),
    ),
    Case(
        "conv_transpose_1d_oki",
        lambda: conv_transpose((1, 3, 7), 4, (4,), strides=[3], pads=[1, 2], output_padding=[1]),
        (OpType.CONV_TRANSPOSE,),
    ),
    # dense
    Case("gemm", lambda: gemm_on((2, 32), 16, flatten=False), (OpType.FULLY_CONN,), band=False),
    Case(
        "gemm_per_tensor_bias",
        lambda: per_tensor(gemm_on((2, 32), 16, flatten=False)),
        (OpType.FULLY_CONN,),
        quantized=True,
        band=False,
    ),
    Case(
        "flatten_gemm_nk_hwc",
        lambda: gemm_on((1, 4, 3, 3), 10, flatten=True),
        (OpType.FLATTEN, OpType.FULLY_CONN),
        band=False,
    ),
    Case("matmul_const", lambda: matmul_const((3, 20), 7), (OpType.FULLY_CONN,), band=False),
    Case("matmul_2d", lambda: binary("MatMul", (4, 6), (6, 5)), (OpType.MATMUL,), band=False),
    Case("matmul_batched", lambda: binary("MatMul", (2, 3, 4), (2, 4, 5)), (OpType.MATMUL,), band=False),
    Case("matmul_broadcast", lambda: binary("MatMul", (2, 3, 4), (4, 5)), (OpType.MATMUL,), band=False),
    # pools and reductions
    Case(
        "maxpool2x2",
        lambda: unary("MaxPool", (1, 4, 8, 9), kernel_shape=[2, 2], strides=[2, 2]),
        (OpType.MAX_POOL,),
    ),
    Case(
        "maxpool3_s2_p1_ceil",
        lambda: unary(
            "MaxPool", (1, 3, 10, 9), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1
        ),
        (OpType.MAX_POOL,),
    ),
    Case(
        "maxpool_dilated",
        lambda: unary("MaxPool", (1, 3, 9, 9), kernel_shape=[2, 2], dilations=[2, 2]),
        (OpType.MAX_POOL,),
    ),
    Case(
        "maxpool_requant_uint8",
        lambda: qdq_unary(
            "MaxPool",
            (1, 3, 8, 8),
            Q_IN_U8,
            (0.04, 90),
            U8,
            kernel_shape=[3, 3],
            strides=[2, 2],
            pads=[1, 1, 1, 1],
        ),
        (OpType.MAX_POOL,),
        quantized=True,
    ),
    Case(
        "avgpool2x2",
        lambda: unary("AveragePool", (1, 4, 8, 8), kernel_shape=[2, 2], strides=[2, 2]),
        (OpType.AVG_POOL,),
    ),
    Case(
        "avgpool3_p1_exclude",
        lambda: unary("AveragePool", (1, 3, 7, 8), kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        (OpType.AVG_POOL,),
    ),
    Case(
        "avgpool3_p1_include",
        lambda: unary(
            "AveragePool", (1, 3, 7, 8), kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1
        ),
        (OpType.AVG_POOL,),
    ),
    Case(
        "avgpool3_s2_ceil",
        lambda: unary("AveragePool", (1, 3, 10, 9), kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        (OpType.AVG_POOL,),
    ),
    Case(
        "avgpool_requant_include",
        lambda: qdq_unary(
            "AveragePool",
            (1, 3, 7, 7),
            Q_IN,
            (0.015, -20),
            kernel_shape=[2, 2],
            pads=[1, 1, 0, 0],
            count_include_pad=1,
        ),
        (OpType.AVG_POOL,),
        quantized=True,
    ),
    Case("global_avg", lambda: unary("GlobalAveragePool", (1, 6, 7, 5)), (OpType.GLOBAL_AVG,), band=False),
    Case(
        "global_max_requant",
        lambda: qdq_unary("GlobalMaxPool", (1, 5, 4, 6), Q_IN, (0.03, -50)),
        (OpType.GLOBAL_MAX,),
        quantized=True,
        band=False,
    ),
    Case(
        "reduce_mean_hw",
        lambda: qdq_unary("ReduceMean", (1, 6, 5, 4), Q_IN, (0.005, 1), axes=[2, 3], keepdims=1),
        (OpType.GLOBAL_AVG, OpType.REDUCE_MEAN),
        quantized=True,
        band=False,
    ),
    Case(
        "reduce_mean_c_nokeep",
        lambda: qdq_unary("ReduceMean", (1, 6, 5, 4), Q_IN, (0.012, -3), axes=[1], keepdims=0),
        (OpType.REDUCE_MEAN,),
        quantized=True,
        band=False,
    ),
    Case(
        "reduce_mean_w_keep",
        lambda: qdq_unary("ReduceMean", (2, 3, 5, 4), Q_IN, (0.01, 7), axes=[3], keepdims=1),
        (OpType.REDUCE_MEAN,),
        quantized=True,
        band=False,
    ),
    # element-wise
    Case("add", lambda: binary("Add", (1, 4, 6, 5), (1, 4, 6, 5)), (OpType.ADD,)),
    Case("add_const_channel", lambda: binary("Add", (1, 4, 6, 5), (1, 4, 1, 1), const_b=True), (OpType.ADD,)),
    Case("add_broadcast_rows", lambda: binary("Add", (1, 4, 6, 5), (1, 4, 1, 5)), (OpType.ADD,)),
    Case(
        "add_uint8",
        lambda: qdq_binary("Add", (1, 3, 5, 4), (1, 3, 5, 4), Q_IN_U8, (0.05, 120), (0.06, 128), U8),
        (OpType.ADD,),
        quantized=True,
    ),
    Case(
        "sub",
        lambda: qdq_binary("Sub", (1, 3, 5, 5), (1, 3, 5, 5), Q_IN, (0.03, -7), (0.05, 2)),
        (OpType.SUB,),
        quantized=True,
    ),
    Case(
        "sub_broadcast",
        lambda: qdq_binary("Sub", (1, 3, 5, 5), (1, 1, 1, 5), Q_IN, (0.03, -7), (0.05, 2)),
        (OpType.SUB,),
        quantized=True,
    ),
    Case(
        "div",
        lambda: qdq_binary("Div", (1, 3, 5, 4), (1, 3, 5, 4), Q_IN, (0.02, -3), (0.1, 5)),
        (OpType.DIV,),
        quantized=True,
    ),
    Case(
        "div_uint8_broadcast",
        lambda: qdq_binary("Div", (1, 3, 5, 4), (1, 1, 1, 4), Q_IN_U8, (0.05, 100), (0.08, 128), U8),
        (OpType.DIV,),
        quantized=True,
    ),
    Case(
        "max_requant",
        lambda: qdq_binary("Max", (1, 3, 5, 4), (1, 3, 5, 4), Q_IN, (0.03, -7), (0.02, 2)),
        (OpType.MAX,),
        quantized=True,
    ),
    Case(
        "max_broadcast_channel",
        lambda: qdq_binary("Max", (1, 4, 5, 6), (1, 4, 1, 1), (0.04, -10), Q_IN, (0.03, 5)),
        (OpType.MAX,),
        quantized=True,
    ),
    Case(
        "min_uint8_broadcast",
        lambda: qdq_binary("Min", (1, 3, 5, 4), (1, 1, 1, 4), Q_IN_U8, (0.05, 100), (0.035, 140), U8),
        (OpType.MIN,),
        quantized=True,
    ),
    Case("prelu_quantized_slope", lambda: qdq_prelu((1, 4, 6, 5), (4, 1, 1), True), (OpType.PRELU,), quantized=True),
    Case("prelu_quantized_scalar_slope", lambda: qdq_prelu((2, 3, 7), (1,), True), (OpType.PRELU,), quantized=True),
    Case(
        "prelu_float_slope_island",
        lambda: qdq_prelu((1, 4, 6, 5), (4, 1, 1), False),
        (OpType.DEQUANTIZE, OpType.QUANTIZE),
        band=False,
    ),
    Case(
        "softmax_last_axis",
        lambda: qdq_unary("Softmax", (3, 10), (0.1, -4), (1 / 256, -128), axis=-1),
        (OpType.SOFTMAX,),
        quantized=True,
        band=False,
    ),
    Case(
        "softmax_channels_uint8",
        lambda: qdq_unary("Softmax", (1, 5, 3, 4), (0.05, 128), (1 / 256, 0), U8, axis=1),
        (OpType.SOFTMAX,),
        quantized=True,
        band=False,
    ),
    Case("softmax_from_the_quantizer", lambda: dense_softmax(24, 10), (OpType.SOFTMAX,), band=False),
    # mixed precision: ops without an int8 kernel run in float between dequantize and quantize
    Case(
        "instance_norm_float_island",
        lambda: conv_then("InstanceNormalization", (1, 3, 6, 5), [("g", F32([1, 2, 0.5])), ("b", F32([0, 0.1, -0.2]))]),
        (OpType.DEQUANTIZE, OpType.QUANTIZE),
        band=False,
    ),
    Case(
        "resize_linear_float_island",
        lambda: conv_then("Resize", (1, 3, 4, 5), [("", F32([])), ("sc", F32([1, 1, 2, 2]))], mode="linear"),
        (OpType.DEQUANTIZE, OpType.QUANTIZE),
        band=False,
    ),
    Case("mul", lambda: binary("Mul", (1, 4, 6, 5), (1, 4, 6, 5)), (OpType.MUL,)),
    Case("mul_broadcast_channel", lambda: binary("Mul", (1, 4, 6, 5), (1, 4, 1, 1)), (OpType.MUL,)),
    Case(
        "mul_uint8",
        lambda: qdq_binary("Mul", (1, 3, 5, 4), (1, 3, 5, 4), Q_IN_U8, (0.03, 100), (0.05, 128), U8),
        (OpType.MUL,),
        quantized=True,
    ),
    # data movement
    Case("concat_channels", lambda: concat([(1, 3, 5, 6), (1, 2, 5, 6)], axis=1), (OpType.CONCAT,)),
    Case("concat_rows", lambda: concat([(1, 3, 4, 6), (1, 3, 2, 6)], axis=2), (OpType.CONCAT,)),
    Case(
        "concat_three_uint8",
        lambda: qdq(
            [((1, 2, 3, 4), Q_IN_U8), ((1, 3, 3, 4), (0.05, 100)), ((1, 1, 3, 4), (0.02, 128))],
            lambda g, xs: g.node("Concat", xs, "y", axis=1),
            (0.03, 128),
            U8,
        ),
        (OpType.CONCAT,),
        quantized=True,
    ),
    Case("pad_constant", lambda: pad((1, 3, 5, 4), [0, 0, 1, 2, 0, 0, 2, 1], "constant"), (OpType.PAD,)),
    Case("pad_reflect", lambda: pad((1, 3, 5, 4), [0, 0, 2, 1, 0, 0, 1, 3], "reflect"), (OpType.PAD,)),
    Case("pad_edge", lambda: pad((1, 3, 5, 4), [0, 0, 2, 1, 0, 0, 1, 3], "edge"), (OpType.PAD,)),
    Case(
        "pad_reflect_alone",
        lambda: qdq_unary(
            "Pad",
            (1, 2, 5, 4),
            Q_IN,
            Q_IN,
            extra=[np.array([0, 0, 2, 1, 0, 0, 3, 2], np.int64)],
            mode="reflect",
        ),
        (OpType.PAD,),
        quantized=True,
    ),
    Case(
        "pad_constant_requant",
        lambda: qdq_unary(
            "Pad",
            (1, 2, 4, 4),
            Q_IN,
            (0.04, -3),
            extra=[np.array([0, 0, 1, 1, 0, 0, 1, 0], np.int64), F32(0.75)],
        ),
        (OpType.PAD,),
        quantized=True,
    ),
    Case("resize_asymmetric_x2", lambda: resize((1, 3, 4, 5), 2, "asymmetric", "floor"), (OpType.RESIZE,)),
    Case(
        "resize_half_pixel_x3",
        lambda: resize((1, 3, 4, 5), 3, "half_pixel", "round_prefer_floor"),
        (OpType.RESIZE,),
    ),
    Case(
        "resize_requant",
        lambda: qdq_unary(
            "Resize",
            (1, 2, 3, 4),
            Q_IN,
            (0.05, 10),
            extra=[None, np.array([1, 1, 2, 3], np.float32)],
            mode="nearest",
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
        ),
        (OpType.RESIZE,),
        quantized=True,
    ),
    Case("flatten", lambda: reshape_like("Flatten", (1, 4, 1, 1), axis=1), (OpType.FLATTEN,), band=False),
    # reshapes between stored orders that differ: element i in model order goes to element i
    Case(
        "flatten_feature_map",
        lambda: reshape_like("Flatten", (1, 4, 3, 3), axis=1),
        (OpType.FLATTEN,),
        band=False,
    ),
    Case(
        "reshape_rank4_to_rank3",
        lambda: reshape_like("Reshape", (1, 2, 3, 4), [1, 6, 4]),
        (OpType.RESHAPE,),
        band=False,
    ),
    Case(
        "reshape_to_rank3_requant",
        lambda: qdq_unary("Reshape", (2, 3, 2, 4), Q_IN, (0.04, -6), extra=[np.array([2, 4, 6], np.int64)]),
        (OpType.RESHAPE,),
        quantized=True,
        band=False,
    ),
    Case(
        "squeeze_unit_channels_batch2",
        lambda: reshape_like("Squeeze", (2, 1, 3, 4), [1]),
        (OpType.SQUEEZE,),
        band=False,
    ),
    Case("reshape", lambda: reshape_like("Reshape", (1, 4, 3, 3), [1, 4, 9]), (OpType.RESHAPE,), band=False),
    Case("squeeze", lambda: reshape_like("Squeeze", (1, 4, 1, 5), [2]), (OpType.SQUEEZE,), band=False),
    Case("unsqueeze", lambda: reshape_like("Unsqueeze", (1, 4, 3, 5), [4]), (OpType.UNSQUEEZE,), band=False),
    Case(
        "reshape_requant",
        lambda: qdq_unary("Reshape", (1, 2, 3, 4), Q_IN, (0.05, 1), extra=[np.array([1, 2, 12], np.int64)]),
        (OpType.RESHAPE,),
        quantized=True,
        band=False,
    ),
    # A 1x1 MaxPool on each side of a transpose pins the layout: fold-layout-transposes moves
    # a transpose only through layout-agnostic ops, so the plan keeps the TRANSPOSE.
    Case(
        "transpose",
        lambda: pooled_transpose((1, 4, 3, 5), [0, 3, 1, 2]),
        (OpType.TRANSPOSE,),
        band=False,
    ),
    Case(
        "transpose_hw_requant",
        lambda: qdq(
            [((1, 4, 3, 5), Q_IN)],
            lambda g, xs: g.node(
                "MaxPool",
                [g.q_dq(g.node("Transpose", [g.q_dq(g.node("MaxPool", xs, "p", kernel_shape=[1, 1]), Q_IN, "p")],
                               "t", perm=[0, 1, 3, 2]), (0.05, 0), "t")],
                "y",
                kernel_shape=[1, 1],
            ),
            (0.05, 0),
        ),
        (OpType.TRANSPOSE,),
        quantized=True,
        band=False,
    ),
    # slice, gather, tile (kernels_move.c): stored values moved, requantized when the parameters differ
    Case(
        "slice_hw_negative_step",
        lambda: qdq_unary(
            "Slice", (1, 4, 7, 6), Q_IN, Q_IN, extra=[i64s(1, -1), i64s(7, 0), i64s(2, 3), i64s(2, -2)]
        ),
        (OpType.SLICE,),
        quantized=True,
        band=False,
    ),
    Case(
        "split_channels_requant_uint8",
        lambda: qdq([((1, 6, 3, 4), Q_IN_U8)], split_second, (0.05, 100), U8),
        (OpType.SLICE,),
        quantized=True,
        band=False,
    ),
    Case(
        "gather_channels",
        lambda: qdq_unary("Gather", (1, 5, 3, 4), Q_IN, Q_IN, extra=[i64s(4, 0, 4, -2)], axis=1),
        (OpType.GATHER,),
        quantized=True,
        band=False,
    ),
    Case(
        "gather_row_scalar_requant",
        lambda: qdq_unary("Gather", (2, 3, 5, 4), Q_IN, (0.04, -6), extra=[np.asarray(3, np.int64)], axis=2),
        (OpType.GATHER,),
        quantized=True,
        band=False,
    ),
    Case(
        "tile_requant",
        lambda: qdq_unary("Tile", (1, 3, 2, 4), Q_IN, (0.05, 1), extra=[i64s(2, 1, 3, 2)]),
        (OpType.TILE,),
        quantized=True,
        band=False,
    ),
    Case(
        "expand",
        lambda: qdq_unary("Expand", (1, 4, 1, 5), Q_IN, Q_IN, extra=[i64s(2, 1, 3, 1)]),
        (OpType.TILE,),
        quantized=True,
        band=False,
    ),
    # lookup tables
    Case(
        "relu", lambda: qdq_unary("Relu", (1, 4, 7, 6), Q_IN, (0.013, -128)), (OpType.RELU,), quantized=True
    ),
    Case(
        "relu_uint8",
        lambda: qdq_unary("Relu", (1, 4, 7, 6), Q_IN_U8, (0.013, 0), U8),
        (OpType.RELU,),
        quantized=True,
    ),
    Case(
        "clip",
        lambda: qdq_unary("Clip", (1, 4, 7, 6), Q_IN, (0.011, -30), extra=[F32(-1.0), F32(1.5)]),
        (OpType.CLIP,),
        quantized=True,
    ),
    Case("leaky_relu", lambda: unary("LeakyRelu", alpha=0.2), (OpType.LEAKY_RELU,)),
    Case("sigmoid", lambda: unary("Sigmoid"), (OpType.SIGMOID,)),
    Case("tanh", lambda: qdq_unary("Tanh", (1, 4, 7, 6), Q_IN, (1 / 128, 0)), (OpType.TANH,), quantized=True),
    Case(
        "tanh_uint8",
        lambda: qdq_unary("Tanh", (1, 4, 7, 6), Q_IN_U8, (2 / 255, 128), U8),
        (OpType.TANH,),
        quantized=True,
    ),
    Case(
        "hard_swish",
        lambda: qdq_unary("HardSwish", (1, 4, 7, 6), Q_IN, (0.02, -100)),
        (OpType.HARD_SWISH,),
        quantized=True,
    ),
    # element-wise math: one lookup table each (test_unary_int8_tables.py checks all 256 entries)
    *[
        Case(name, lambda op=op, out_q=out_q, attrs=attrs, in_q=in_q: qdq_unary(op, (1, 4, 7, 6), in_q, out_q, **attrs),
             (code,), quantized=True)
        for name, op, code, in_q, out_q, attrs in [
            ("neg", "Neg", OpType.NEG, Q_IN, (0.025, -3), {}),
            ("abs", "Abs", OpType.ABS, Q_IN, (0.013, -128), {}),
            ("exp", "Exp", OpType.EXP, Q_IN, (0.09, -128), {}),
            ("log", "Log", OpType.LOG, (0.02, -128), (0.03, 60), {}),
            ("sqrt_negative_inputs", "Sqrt", OpType.SQRT, Q_IN, (0.008, -128), {}),
            ("reciprocal", "Reciprocal", OpType.RECIPROCAL, Q_IN, (0.3, 0), {}),
            ("elu", "Elu", OpType.ELU, Q_IN, (0.02, -70), {"alpha": 0.8}),
            ("selu", "Selu", OpType.SELU, Q_IN, (0.025, -50), {}),
            ("softplus", "Softplus", OpType.SOFTPLUS, Q_IN, (0.014, -128), {}),
            ("softsign", "Softsign", OpType.SOFTSIGN, Q_IN, (1 / 128, 0), {}),
            ("erf", "Erf", OpType.ERF, Q_IN, (1 / 128, 0), {}),
            ("hard_sigmoid", "HardSigmoid", OpType.HARD_SIGMOID, Q_IN, (1 / 255, -128), {"alpha": 0.3, "beta": 0.4}),
            ("sign", "Sign", OpType.SIGN, Q_IN, (1 / 64, 0), {}),
            ("shrink", "Shrink", OpType.SHRINK, Q_IN, (0.02, 10), {"lambd": 0.6, "bias": 0.25}),
        ]
    ],
    Case("gelu", lambda: with_opset(qdq_unary("Gelu", (1, 4, 7, 6), Q_IN, (0.015, -100)), 20), (OpType.GELU,),
         quantized=True),
    Case("gelu_tanh", lambda: with_opset(qdq_unary("Gelu", (1, 4, 7, 6), Q_IN, (0.015, -100), approximate="tanh"), 20),
         (OpType.GELU,), quantized=True),
    Case("pow_square", lambda: qdq_unary("Pow", (1, 4, 7, 6), Q_IN, (0.05, -128), extra=[F32(2.0)]), (OpType.POW,),
         quantized=True),
    Case("silu", lambda: with_opset(qdq_unary("Swish", (1, 4, 7, 6), Q_IN, (0.015, -110)), 24), (OpType.SILU,),
         quantized=True),
    # float conversions
    Case(
        "quantize_dequantize",
        lambda: float_island((1, 3, 6, 5), Q_IN, (0.013, -60)),
        (OpType.QUANTIZE, OpType.DEQUANTIZE),
        quantized=True,
        band=False,
    ),
    Case(
        "quantize_dequantize_uint8",
        lambda: float_island((1, 3, 6, 5), Q_IN_U8, (0.013, 7), U8),
        (OpType.QUANTIZE, OpType.DEQUANTIZE),
        quantized=True,
        band=False,
    ),
]


# -- running a case ------------------------------------------------------------------------------


def built(case: Case, folder: Path) -> Compiled:
    from quantize import quantize_int8  # test/models, on sys.path via conftest

    model = case.build() if case.quantized else quantize_int8(case.build())
    c = compile_model(model, folder)
    present = {
        op.op_type
        for op in c.plan.ops
        if any(c.plan.tensors[t].dtype in (DType.I8, DType.U8) for t in (*op.inputs, *op.outputs))
    }
    assert set(case.ops) & present, (
        f"{case.name}: no int8 {[o.name for o in case.ops]} in the plan ({present})"
    )
    return c


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name if isinstance(c, Case) else c.values[0].name)
def test_op_is_bit_exact_with_the_interpreter(case: Case, tmp_path: Path) -> None:
    from runtime_ops import run_plan_ops  # test/support, on sys.path via conftest

    c = built(case, tmp_path)
    worst = 0
    for seed in (0, 1):
        floats, inputs = plan_inputs(c, seed)
        want = interpret(c, inputs)
        for sanitize in SANITIZE:
            got = run_plan_ops(c.plan_bytes, inputs, sanitize=sanitize)
            for w, g in zip(want, got, strict=True):
                assert g.dtype == w.dtype and g.shape == w.shape, f"{g.dtype}{g.shape} vs {w.dtype}{w.shape}"
                differ = int(np.count_nonzero(g != w))
                assert differ == 0, (
                    f"{case.name} (sanitize={sanitize}, seed {seed}): {differ} of {w.size} differ"
                )
        worst = max(worst, ort_lsb(c, floats, got))
    print(f"\n{case.name}: bit-exact with the interpreter; {worst} LSB from onnxruntime")
    assert worst <= 1, f"{case.name}: {worst} LSB from onnxruntime"


def test_flatten_only_a_dense_layer_reads_is_a_stored_order_copy(tmp_path: Path) -> None:
    """flatten -> gemm: the flatten copies the stored (NHWC) bytes and the weight is NK_HWC; a
    flatten something else reads (here: the model output) copies in model order."""
    for name, stored in (("flatten_gemm_nk_hwc", True), ("flatten_feature_map", False)):
        plan = built(case_named(name), tmp_path).plan
        (flatten,) = [op for op in plan.ops if op.op_type == OpType.FLATTEN]
        assert (OpFlag.STORED_ORDER in flatten.flags) == stored, name
        for op in plan.ops:
            if op.op_type == OpType.FULLY_CONN:
                weight = plan.tensors[op.inputs[1]].weight
                assert weight is not None and plan.weights[weight].layout == WeightLayout.NK_HWC


# -- bands ---------------------------------------------------------------------------------------


def _rows(plan: PlanFile, t: int) -> int | None:
    """Rows (model axis 2) of a rank >= 3 activation, None for anything else."""
    tensor = plan.tensors[t]
    return tensor.shape[2] if len(tensor.shape) >= 3 and tensor.weight is None else None


def input_rows(plan: PlanFile, op, operand: int, lo: int, hi: int) -> tuple[int, int] | None:
    """The rows of operand `operand` that output rows [lo, hi) of `op` read (None: all)."""
    t = op.inputs[operand]
    rows, out_rows = _rows(plan, t), _rows(plan, op.outputs[0])
    if rows is None:
        return None
    if op.op_type in (OpType.CONV, OpType.DEPTHWISE, OpType.CONV1D, OpType.MAX_POOL, OpType.AVG_POOL):
        taps = [
            o * op.stride_h - op.pad_top + k * op.dilation_h
            for o in range(lo, hi)
            for k in range(op.kernel_h)
        ]
    elif op.op_type == OpType.CONV_TRANSPOSE:
        taps = [
            (o + op.pad_top - k * op.dilation_h) // op.stride_h
            for o in range(lo, hi)
            for k in range(op.kernel_h)
            if (o + op.pad_top - k * op.dilation_h) % op.stride_h == 0 and o + op.pad_top >= k * op.dilation_h
        ]
    elif op.op_type == OpType.RESIZE:
        taps = [o // op.params[1] for o in range(lo, hi)]
    elif op.op_type == OpType.PAD:
        begin, end = op.params[1], op.params[len(op.params) // 2 + 1]
        mode = {0: "constant", 1: "reflect", 2: "edge"}[op.mode]
        source = np.pad(
            np.arange(rows),
            (begin, end),
            mode=mode,
            **({"constant_values": -1} if mode == "constant" else {}),
        )
        taps = [int(source[o]) for o in range(lo, hi)]
    elif op.op_type == OpType.CONCAT and op.axis == 1:
        offset = sum(_rows(plan, u) or 0 for u in op.inputs[:operand])
        taps = [o - offset for o in range(lo, hi)] or [0]
    elif rows == 1 and out_rows != 1:
        taps = [0]  # broadcast along the rows
    elif rows == out_rows and len(plan.tensors[t].shape) == len(plan.tensors[op.outputs[0]].shape):
        taps = list(range(lo, hi))
    else:
        return None
    inside = [i for i in taps if 0 <= i < rows]
    return (min(inside), max(inside) + 1) if inside else (0, 1)


def plan_bands(plan: PlanFile, out_band: tuple[int, int]) -> dict[int, tuple[int, int]]:
    """Bands of every tensor so that the model output's band is computed from exactly the rows
    it needs (walking the ops backwards); tensors read whole get no band."""
    bands = {plan.outputs[0]: out_band}
    full: set[int] = set()
    for op in reversed(plan.ops):
        band = bands.get(op.outputs[0])
        for operand, t in enumerate(op.inputs):
            if plan.tensors[t].weight is not None or _rows(plan, t) is None:
                continue
            need = None if band is None else input_rows(plan, op, operand, *band)
            if need is None:
                full.add(t)
            elif t in bands:
                bands[t] = (min(bands[t][0], need[0]), max(bands[t][1], need[1]))
            else:
                bands[t] = need
    return {t: b for t, b in bands.items() if t not in full}


@pytest.mark.parametrize("case", [c for c in CASES if isinstance(c, Case) and c.band], ids=lambda c: c.name)
def test_op_computes_its_output_band_from_its_input_bands(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a tiled stage: the output held as rows [h0, h1), every input as just the rows those
    need. The band equals the same rows of the whole run; an input band one row short fails
    with TIGRIS_KERNEL_ERR_BAND."""
    from runtime_ops import RunOpsError, run_plan_ops

    c = built(case, tmp_path)
    out = c.plan.outputs[0]
    rows = _rows(c.plan, out)
    assert rows is not None and c.plan.tensors[out].perm is None
    h0 = rows // 3
    out_band = (h0, min(rows, max(h0 + 2, 2 * rows // 3)))
    bands = plan_bands(c.plan, out_band)
    _, inputs = plan_inputs(c, 0)
    whole = interpret(c, inputs)[0]
    for sanitize in SANITIZE:
        got = run_plan_ops(c.plan_bytes, inputs, sanitize=sanitize, bands=bands)[0]
        np.testing.assert_array_equal(got, whole[:, :, out_band[0] : out_band[1]])
    first = c.plan.ops[0].inputs[0]
    if first in bands and bands[first][1] - bands[first][0] >= 2:
        monkeypatch.setenv(
            "ASAN_OPTIONS", "detect_leaks=0"
        )  # run_ops exits without freeing on a kernel error
        short = dict(bands)
        short[first] = (bands[first][0] + 1, bands[first][1])
        for sanitize in SANITIZE:
            with pytest.raises(RunOpsError, match="not resident") as info:
                run_plan_ops(c.plan_bytes, inputs, sanitize=sanitize, bands=short)
            assert info.value.returncode == 3


# -- 2-D tiles ------------------------------------------------------------------------------------

WINDOW_OP_TYPES = {"conv": (OpType.CONV, OpType.DEPTHWISE), "depthwise": (OpType.DEPTHWISE, OpType.CONV),
                   "max": (OpType.MAX_POOL,), "avg": (OpType.AVG_POOL,)}  # fmt: skip


def window_case(seed: int) -> Case:
    """A random int8 window op (kernel_windows.random_window_op). Convolutions alternate between
    the quantizer (per-channel weights, a bias, int8: the fast loops) and a hand QDQ graph with
    nonzero input, weight and output zero points (int8 or uint8 activations: uint8 takes the
    reference loops in either build); pools are hand QDQ, their output parameters the input's
    (a copy of values) or not (requantized)."""
    from kernel_windows import random_window_op  # test/support

    rng = np.random.default_rng(2000 + seed)
    kind = list(WINDOW_OP_TYPES)[seed % len(WINDOW_OP_TYPES)]
    op = random_window_op(rng, kind)
    onnx_op = {"max": "MaxPool", "avg": "AveragePool"}.get(kind, "Conv")
    name = f"{seed}_{kind}"
    if kind in ("conv", "depthwise") and seed % 8 < 4:
        return Case(name, lambda: conv(op.shape, op.out_ch, tuple(op.attrs["kernel_shape"]), group=op.group,  # type: ignore[arg-type]
                                       **{k: v for k, v in op.attrs.items() if k != "kernel_shape"}),
                    WINDOW_OP_TYPES[kind])  # fmt: skip
    storage = U8 if rng.integers(0, 2) else TensorProto.INT8
    low = 100 if storage == U8 else -20
    in_q = (0.025, int(rng.integers(low, low + 41)))
    out_q = in_q if kind == "max" and rng.integers(0, 2) else (0.03, int(rng.integers(low, low + 41)))
    w_zp = int(rng.integers(-9, 10))

    def body(g: Graph, xs: list[str]) -> str:
        if onnx_op != "Conv":
            return g.node(onnx_op, xs, "y", **op.attrs)
        w = g.weight("w", (op.out_ch, op.shape[1] // op.group, *op.attrs["kernel_shape"]))  # type: ignore[misc]
        scale, zp = g.const("s_w", np.float32(0.01)), g.const("z_w", np.int8(w_zp))
        wq = g.node("DequantizeLinear", [g.node("QuantizeLinear", [w, scale, zp], "w_q"), scale, zp], "w_dq")
        return g.node("Conv", [xs[0], wq], "y", group=op.group, **op.attrs)

    return Case(name, lambda: qdq([(op.shape, in_q)], body, out_q, storage), WINDOW_OP_TYPES[kind], quantized=True)


@pytest.mark.parametrize("seed", range(32))
def test_windows_match_the_whole_result(seed: int, tmp_path: Path) -> None:
    """2-D tiles of a random int8 conv, depthwise (depth multipliers), max or average pool: every
    checked output window computed alone from just the input pixels it reads equals the same
    pixels of the whole run, in the fast and the reference build, under ASan + UBSan; an input
    window one needed row or column short is TIGRIS_KERNEL_ERR_BAND (kernel_windows.check_windows)."""
    from kernel_windows import check_windows, the_op  # test/support

    c = built(window_case(seed), tmp_path)
    op = the_op(c.plan)
    assert c.plan.tensors[op.inputs[0]].dtype in (DType.I8, DType.U8), "the op did not run in int8"
    _, inputs = plan_inputs(c, seed)
    windows, _ = check_windows(c.plan_bytes, inputs[0], np.random.default_rng(seed))
    assert windows > 0


@pytest.mark.parametrize("kind", ["int8_conv", "uint8_conv", "max_pool"])
def test_an_input_window_one_column_short_is_refused(kind: str, tmp_path: Path) -> None:
    """A 3x3 window (pads 1, stride 1) on a 7x9 input: output columns [3, 6) read input columns
    [2, 7); holding [3, 7) or [2, 6) is TIGRIS_KERNEL_ERR_BAND in both builds (int8: the fast
    loops in the fast build; uint8 and pools: the reference loops), [2, 7) is enough."""
    from kernel_windows import assert_refused, builds, crop, run_tiles  # test/support

    attrs = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    model = {
        "int8_conv": lambda: qdq_conv((1, 3, 7, 9), 4, (3, 3), Q_IN, 0.01, (0.05, 3), w_zp=2, pads=[1, 1, 1, 1]),
        "uint8_conv": lambda: qdq_conv((1, 3, 7, 9), 4, (3, 3), Q_IN_U8, 0.01, (0.05, 120), U8, pads=[1, 1, 1, 1]),
        "max_pool": lambda: qdq_unary("MaxPool", (1, 3, 7, 9), Q_IN, (0.03, -5), **attrs),
    }[kind]
    c = built(Case(kind, model, (OpType.CONV, OpType.MAX_POOL), quantized=True), tmp_path)
    _, inputs = plan_inputs(c, 0)
    out, need = (2, 4, 3, 6), (1, 5, 2, 7)
    for binary in builds().values():
        whole, got = run_tiles(c.plan, inputs[0], [None, (need, out)], binary)
        assert got.tobytes() == np.ascontiguousarray(crop(whole, out)).tobytes()
        for short in ((1, 5, 3, 7), (1, 5, 2, 6)):
            assert_refused(c.plan, inputs[0], (short, out), binary)


# -- the int8 zoo end to end -----------------------------------------------------------------------

ZOO = ["mobilenet_v2", "resnet", "unet", "yolo", "conv1d", "dense_autoencoder", "pytorch_idioms", "silu_ops"]
@pytest.mark.parametrize("name", ZOO)
def test_int8_zoo_model_is_bit_exact_with_the_interpreter(
    name: str, model_zoo: dict[str, Path], tmp_path: Path
) -> None:
    from runtime_ops import run_plan_ops

    c = compile_model(onnx.load(str(model_zoo[f"{name}_int8"])), tmp_path)
    worst = 0
    for seed in (0, 1):
        floats, inputs = plan_inputs(c, seed)
        want = interpret(c, inputs)
        for sanitize in SANITIZE:
            got = run_plan_ops(c.plan_bytes, inputs, sanitize=sanitize)
            for w, g in zip(want, got, strict=True):
                assert g.dtype == w.dtype and g.shape == w.shape
                assert np.array_equal(g, w), (
                    f"{name} (sanitize={sanitize}, seed {seed}): {np.count_nonzero(g != w)} differ"
                )
        worst = max(worst, ort_lsb(c, floats, got))
    ops = sorted({op.op_type.name for op in c.plan.ops})
    print(
        f"\n{name}_int8: {len(c.plan.ops)} ops ({', '.join(ops)}) bit-exact with the interpreter; "
        f"{worst} LSB from onnxruntime"
    )
    assert worst <= ORT_INT8_STEPS.get(name, 1)


# -- plans the compiler does not write ----------------------------------------------------------


def case_named(name: str) -> Case:
    return next(c for c in CASES if isinstance(c, Case) and c.name == name)


def with_op(plan: PlanFile, op_type: OpType, **changes: object) -> PlanFile:
    """The plan with the (first) op of `op_type` changed."""
    import dataclasses

    index = next(i for i, op in enumerate(plan.ops) if op.op_type == op_type)
    ops = list(plan.ops)
    ops[index] = dataclasses.replace(ops[index], **changes)
    return dataclasses.replace(plan, ops=ops)


@pytest.mark.parametrize(
    ("case", "op_type", "changes", "message"),
    [
        ("sigmoid", OpType.SIGMOID, {"table": None}, "missing table"),
        ("conv3x3_pad1", OpType.CONV, {"requant_scales": (0.5,)}, "missing table, scales"),
        ("conv3x3_pad1", OpType.CONV, {"act_min": -200}, "missing table, scales"),
        ("conv3x3_pad1", OpType.CONV, {"input_zp": 200}, "missing table, scales"),
        ("resize_asymmetric_x2", OpType.RESIZE, {"coord_mode": 2}, "not implemented"),
        ("avgpool2x2", OpType.AVG_POOL, {"kernel_h": 3}, "shapes inconsistent"),
        ("slice_hw_negative_step", OpType.SLICE, {"params": (0, 3, 5, 0, 1, 2, -2, 1)}, "missing table, scales"),
        ("slice_hw_negative_step", OpType.SLICE, {"params": (0, 1, 5, 0, 1, 0, -2, 1)}, "missing table, scales"),
        ("slice_hw_negative_step", OpType.SLICE, {"params": (0, 1, 5, 0)}, "missing table, scales"),
        ("gather_channels", OpType.GATHER, {"params": (4, 0, 5, 1)}, "missing table, scales"),
        ("gather_channels", OpType.GATHER, {"params": (4, 0)}, "missing table, scales"),
        ("gather_channels", OpType.GATHER, {"axis": 2}, "shapes inconsistent"),
        ("tile_requant", OpType.TILE, {"params": (1, 1, 1, 1)}, "shapes inconsistent"),
        ("tile_requant", OpType.TILE, {"params": (2, -3, 2, 1)}, "missing table, scales"),
    ],
    ids=[
        "no_table",
        "too_few_scales",
        "act_range_outside_int8",
        "zero_point_out_of_range",
        "resize_align_corners_x2",
        "pool_wrong_output_size",
        "slice_reads_past_the_end",
        "slice_step_zero",
        "slice_too_few_params",
        "gather_index_out_of_range",
        "gather_too_few_indices",
        "gather_wrong_axis",
        "tile_repeats_disagree_with_shapes",
        "tile_negative_repeats",
    ],
)
def test_kernel_refuses_bad_parameters(
    case: str,
    op_type: OpType,
    changes: dict[str, object],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from runtime_ops import RunOpsError, run_plan_ops
    from tigris.emit.tgrs import write_plan

    c = built(case_named(case), tmp_path)
    data = write_plan(with_op(c.plan, op_type, **changes))
    _, inputs = plan_inputs(c, 0)
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=0")  # run_ops exits without freeing on a kernel error
    for sanitize in SANITIZE:
        with pytest.raises(RunOpsError, match=message) as info:
            run_plan_ops(data, inputs, sanitize=sanitize)
        assert info.value.returncode == 3


@pytest.mark.parametrize(
    "pads", [(0, -1, 1, 0, 0, 2, -1, 0), (0, 3, -2, 0, 0, -2, 4, 0), (0, -2, 0, 0, 0, -1, 0, 0)]
)
@pytest.mark.parametrize("mode", [0, 1, 2], ids=["constant", "reflect", "edge"])
def test_pad_with_negative_pads_crops_as_onnx(pads: tuple[int, ...], mode: int, tmp_path: Path) -> None:
    """The format allows cropping pads (the compiler does not emit them yet): the kernel crops
    first, then pads the kept part (kernels_resample.pad, numpy's modes)."""
    import dataclasses

    from runtime_ops import run_plan_ops
    from tigris.dialects.interpreter.kernels_resample import pad as reference_pad
    from tigris.emit.tgrs import write_plan

    c = built(case_named("pad_reflect_alone"), tmp_path)
    (op,) = c.plan.ops
    x_shape = c.plan.tensors[op.inputs[0]].shape  # [N, C, H, W]; pads are in runtime order [N, H, W, C]
    model_pads = [pads[0], pads[3], pads[1], pads[2], pads[4], pads[7], pads[5], pads[6]]
    out_shape = tuple(d + model_pads[a] + model_pads[4 + a] for a, d in enumerate(x_shape))
    tensors = list(c.plan.tensors)
    tensors[op.outputs[0]] = dataclasses.replace(tensors[op.outputs[0]], shape=out_shape)
    plan = dataclasses.replace(
        with_op(c.plan, OpType.PAD, params=pads, mode=mode, pad_value_q=-7), tensors=tensors
    )
    _, inputs = plan_inputs(c, 0)
    want = reference_pad(inputs[0], model_pads, {0: "constant", 1: "reflect", 2: "edge"}[mode], -7)
    for sanitize in SANITIZE:
        (got,) = run_plan_ops(write_plan(plan), inputs, sanitize=sanitize)
        np.testing.assert_array_equal(got, want)


# -- tiled stages through the executor -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "budget"),
    [
        ("mobilenet_v2", 12 << 10),
        ("unet", 8 << 10),
        ("yolo", 8 << 10),
        ("resnet", 8 << 10),
        ("pytorch_idioms", 8 << 10),
    ],
)
def test_int8_zoo_model_tiled_is_bit_exact(name: str, budget: int, model_zoo: dict[str, Path]) -> None:
    """The kernels inside tigris_run at a budget that tiles and chains stages: each op sees only
    bands of its tensors, and the outputs still equal the interpreter's."""
    from tigris.emit.tgrs import write_plan
    from tigris.emit.tgrs.from_ir import plan_file_from_module
    from tigris.tools.runtime_binding import run_plan

    path = model_zoo[f"{name}_int8"]
    module = import_model_file(path)
    TigrisCompilePass(budget=budget).apply(Context(), module)
    data = write_plan(plan_file_from_module(module, budget))
    c = Compiled(onnx.load(str(path)), data, read_plan(data), module)
    assert any(s.tile_plan is not None for s in c.plan.stages), "the budget should tile"
    _, inputs = plan_inputs(c, 0)
    result = run_plan(data, inputs, fast=budget, dequantize=False)
    for w, g in zip(interpret(c, inputs), result.outputs, strict=True):
        np.testing.assert_array_equal(g, w)
    print(
        f"\n{name}_int8 at {budget} bytes: {len(c.plan.stages)} stages, {result.stats['total_tiles']} tiles, bit-exact"
    )


FLOAT_ISLANDS = {
    "reduce_sum": (lambda: qdq_unary("ReduceSum", (1, 6, 5, 4), Q_IN, (0.05, 3), extra=[i64s(1)]),
                   OpType.REDUCE_SUM),
    "reduce_max": (lambda: qdq_unary("ReduceMax", (1, 6, 5, 4), Q_IN, (0.02, -5), axes=[1], keepdims=0),
                   OpType.REDUCE_MAX),
    "reduce_min": (lambda: qdq_unary("ReduceMin", (1, 6, 5, 4), Q_IN, (0.02, 5), axes=[3], keepdims=1),
                   OpType.REDUCE_MIN),
    "log_softmax": (lambda: qdq_unary("LogSoftmax", (1, 6, 5, 4), Q_IN, (0.05, 100), axis=1), OpType.LOG_SOFTMAX),
    "lrn": (lambda: qdq_unary("LRN", (1, 6, 5, 4), Q_IN, (0.02, 0), size=3, alpha=0.5), OpType.LRN),
    "layer_norm": (lambda: qdq_unary("LayerNormalization", (1, 6, 5, 4), Q_IN, (0.03, 0),
                                     extra=[np.linspace(0.5, 1.5, 4).astype(np.float32)]), OpType.LAYER_NORM),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FLOAT_ISLANDS))
def test_reductions_and_norms_run_as_float_islands(name: str, tmp_path: Path) -> None:
    """They have no int8 kernel: in a QDQ model they compute in float between a dequantize and a
    quantize, and so stay within 1 LSB of onnxruntime."""
    from runtime_ops import run_plan_ops  # test/support, on sys.path via conftest

    build, op_type = FLOAT_ISLANDS[name]
    c = compile_model(build(), tmp_path)
    (op,) = [op for op in c.plan.ops if op.op_type == op_type]
    assert all(c.plan.tensors[t].dtype == DType.F32 for t in (op.inputs[0], *op.outputs))
    assert {OpType.DEQUANTIZE, OpType.QUANTIZE} <= {o.op_type for o in c.plan.ops}
    for seed in (0, 1):
        floats, inputs = plan_inputs(c, seed)
        got = run_plan_ops(c.plan_bytes, inputs, sanitize=True)
        assert ort_lsb(c, floats, got) <= 1
