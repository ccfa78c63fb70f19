"""The seed corpus of the loader+executor fuzzer (runtime/tests/fuzz_plan.c), built from source.

Small graphs written here with the test models' GraphBuilder, compiled with `compile_bytes`:
together they hold every runtime op kind (float, and int8 with quantize/dequantize through
the QDQ version of two of them), normal, tiled and chained stages, stages in 2-D tiles, and
raw, LZ4 and XIP weights; and a plan written by hand in reduction tiles (`test_runtime_fuzz.py` checks that
coverage). Nothing binary is committed: the same sources give the same bytes. `field_table`
lists every record field for the fuzzer's -F, from emit/tgrs/records.py, the format's one
definition.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import onnx

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
if str(MODELS_DIR) not in sys.path:
    sys.path.insert(0, str(MODELS_DIR))
from graph_builder import GraphBuilder  # noqa: E402

from tigris.emit.tgrs import Op, PlanFile, Stage, Tensor, TilePlan, Weight, WeightBlock, write_plan  # noqa: E402
from tigris.emit.tgrs.enums import DType, OpType, WeightLayout  # noqa: E402
from geometries import GLOBAL, WINDOW  # noqa: E402 (test/support)

OP_BUDGET = 64 << 10  # the op graphs fit: one or two untiled stages
TILE_BUDGET = 6 << 10  # the tile graph does not: tiled stages (int8: a chain and a tiled stage)
CHAIN_BUDGET = 10 << 10  # float: two chains and a normal stage
WIDE_BUDGET = 1 << 10  # the wide graph's one-row bands do not fit: every stage in 2-D tiles
WIDE_INT8_BUDGET = 256  # the same for its int8 version


def _window() -> onnx.ModelProto:
    """conv, depthwise, pools, conv_transpose, pad, resize, global pools."""
    g = GraphBuilder("fuzz_window", 11)
    x = g.add_input("x", (1, 3, 10, 10))
    y = g.relu(g.conv(x, 6, 3))
    y = g.conv(y, 6, 3, groups=6)
    y = g.pool("MaxPool", y, 2, 2)  # 5x5
    a = g.op("AveragePool", [y], (1, 6, 5, 5), kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)
    w = g.init("tw", (g.rng.normal(0, 0.2, (6, 4, 3, 3))).astype(np.float32))
    t = g.op("ConvTranspose", [a, w], (1, 4, 10, 10), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
             output_padding=[1, 1])
    pads = g.init("pads", np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64))
    p = g.op("Pad", [t, pads], (1, 4, 13, 13), mode="reflect")
    u = g.upsample2x(p)
    return g.build({"gmax": g.op("GlobalMaxPool", [u], (1, 4, 1, 1)), "gavg": g.global_avg_pool(a)})


def _elementwise() -> onnx.ModelProto:
    """binary ops, activations, normalizations, softmax, concat, transpose."""
    g = GraphBuilder("fuzz_elementwise", 12)
    x = g.add_input("x", (1, 4, 6, 6))
    s = g.add_input("s", (1, 4, 6, 6))
    y = g.op("Sub", [g.add(x, s), s], (1, 4, 6, 6))
    y = g.op("Mul", [y, g.init("k", np.full((1, 4, 1, 1), 0.5, np.float32))], (1, 4, 6, 6))
    y = g.op("Div", [y, g.init("d", np.full((1, 4, 6, 6), 1.5, np.float32))], (1, 4, 6, 6))
    y = g.relu(g.unary("Sigmoid", y))
    y = g.clip(g.unary("Tanh", y), 0.0, 6.0)
    y = g.clip(g.unary("LeakyRelu", y, alpha=0.1), -0.5, 0.5)
    y = g.bn(g.unary("HardSwish", y))
    y = g.op("InstanceNormalization", [y, g.init("is", np.ones(4, np.float32)), g.init("ib", np.zeros(4, np.float32))],
             (1, 4, 6, 6), epsilon=1e-5)
    y = g.transpose(g.unary("Softmax", g.concat([y, s]), axis=1), (0, 2, 3, 1))  # (1, 6, 6, 8)
    # a full-size constant added after it pins the transpose (fold-layout-transposes would move
    # it through a relu into the model output)
    return g.build({"y": g.add(y, g.init("b", np.full((1, 6, 6, 8), 0.25, np.float32)))})


def _dense() -> onnx.ModelProto:
    """conv1d, reshapes, matmul, fully connected, reduce_mean."""
    g = GraphBuilder("fuzz_dense", 13)
    x = g.add_input("x", (1, 3, 12))
    y = g.pool("MaxPool", g.relu(g.conv(x, 4, 3)), 2, 2)  # (1, 4, 6)
    f = g.relu(g.flatten(y))  # (1, 24)
    f = g.gemm(f, 8)
    r = g.relu(g.op("Reshape", [f, g.init("shape", np.array([1, 2, 4], np.int64))], (1, 2, 4)))
    u = g.op("Unsqueeze", [r, g.init("axes", np.array([3], np.int64))], (1, 2, 4, 1))
    q = g.op("Squeeze", [g.relu(u), g.init("axes3", np.array([3], np.int64))], (1, 2, 4))
    m = g.op("MatMul", [q, g.init("m", g.rng.normal(0, 0.5, (4, 3)).astype(np.float32))], (1, 2, 3))
    mean = g.op("ReduceMean", [g.relu(m)], (1, 1, 3), axes=[1], keepdims=1)
    return g.build({"mean": mean})


def _reduce() -> onnx.ModelProto:
    """reduce_sum, reduce_max, reduce_min, log_softmax, lrn, layer_norm."""
    g = GraphBuilder("fuzz_reduce", 16)
    x = g.add_input("x", (1, 6, 5, 4))
    y = g.op("LRN", [g.relu(x)], (1, 6, 5, 4), size=3, alpha=1e-3, beta=0.75, bias=1.0)
    y = g.op("LayerNormalization", [y, g.init("ls", np.ones(4, np.float32)), g.init("lb", np.zeros(4, np.float32))],
             (1, 6, 5, 4), axis=-1, epsilon=1e-5)
    s = g.op("ReduceSum", [y, g.init("raxes", np.array([1], np.int64))], (1, 1, 5, 4), keepdims=1)
    m = g.op("ReduceMax", [g.relu(y)], (1, 6, 4), axes=[2], keepdims=0)
    n = g.op("ReduceMin", [g.relu(m)], (1, 6), axes=[2], keepdims=0)
    return g.build({"sum": g.unary("LogSoftmax", s, axis=3), "min": g.relu(n)})


def _binary() -> onnx.ModelProto:
    """prelu, max, min, pow with a tensor exponent, and Gemm of two activations (matmul, transpose)."""
    g = GraphBuilder("fuzz_binary", 17)
    x = g.add_input("x", (1, 4, 6, 6))
    s = g.add_input("s", (1, 4, 1, 6))
    y = g.binary("PRelu", x, g.init("slope", g.rng.uniform(-0.5, 0.5, (4, 1, 1)).astype(np.float32)))
    y = g.binary("Min", g.binary("Max", y, s), g.init("cap", np.full((1, 4, 6, 1), 0.75, np.float32)))
    a = g.op("Reshape", [y, g.init("rows", np.array([24, 6], np.int64))], (24, 6))
    b = g.op("Reshape", [g.relu(s), g.init("cols", np.array([4, 6], np.int64))], (4, 6))
    power = g.binary("Pow", g.unary("Abs", x), s)
    return g.build({"y": g.op("Gemm", [a, b], (24, 4), transB=1), "pow": power})


def _binary_qdq() -> onnx.ModelProto:
    """int8 max, min, prelu (a quantized slope): a QDQ graph by hand, as onnxruntime's quantizer
    leaves these ops in float."""
    g = GraphBuilder("fuzz_binary_int8", 18)
    x = g.add_input("x", (1, 4, 6, 6))
    s = g.add_input("s", (1, 4, 1, 6))

    def qdq(v: str, scale: float, zp: int) -> str:
        q = (g.init(g.unique("scale"), np.float32(scale)), g.init(g.unique("zp"), np.int8(zp)))
        return g.op("DequantizeLinear", [g.op("QuantizeLinear", [v, *q], g.shapes[v]), *q], g.shapes[v])

    xq, sq = qdq(x, 0.02, 3), qdq(s, 0.03, -5)
    y = qdq(g.binary("Max", xq, sq), 0.025, -10)
    y = qdq(g.binary("Min", y, qdq(g.init("cap", np.full((1, 4, 6, 1), 0.75, np.float32)), 0.01, 0)), 0.02, 0)
    slope = qdq(g.init("slope", g.rng.uniform(-0.5, 0.5, (4, 1, 1)).astype(np.float32)), 0.005, 0)
    return g.build({"y": qdq(g.binary("PRelu", y, slope), 0.015, 20)})


def _move() -> onnx.ModelProto:
    """slice (a negative step), gather (constant indices), tile, and Expand (reshape + tile)."""
    g = GraphBuilder("fuzz_move", 19)
    x = g.add_input("x", (1, 4, 6, 6))
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    y = g.op("Slice", [g.relu(x), g.init("s", i64(5, 0)), g.init("e", i64(-100, 6)), g.init("a", i64(2, 1)),
                       g.init("t", i64(-2, 2))], (1, 2, 3, 6))
    y = g.op("Gather", [g.relu(y), g.init("gi", i64(1, 0, 1))], (1, 3, 3, 6), axis=1)
    y = g.op("Tile", [g.relu(y), g.init("r", i64(1, 1, 2, 1))], (1, 3, 6, 6))
    b = g.op("Expand", [g.init("c", np.full((3, 1, 1), 0.5, np.float32)), g.init("shape", i64(1, 3, 6, 6))],
             (1, 3, 6, 6))
    return g.build({"y": g.add(y, b)})


def _move_qdq() -> onnx.ModelProto:
    """int8 slice, gather, tile: a QDQ graph by hand, each move requantizing."""
    g = GraphBuilder("fuzz_move_int8", 20)
    x = g.add_input("x", (1, 4, 6, 6))
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731

    def qdq(v: str, scale: float, zp: int) -> str:
        q = (g.init(g.unique("scale"), np.float32(scale)), g.init(g.unique("zp"), np.int8(zp)))
        return g.op("DequantizeLinear", [g.op("QuantizeLinear", [v, *q], g.shapes[v]), *q], g.shapes[v])

    y = g.op("Slice", [qdq(x, 0.02, 3), g.init("s", i64(1)), g.init("e", i64(6)), g.init("a", i64(3)),
                       g.init("t", i64(2))], (1, 4, 6, 3))
    y = g.op("Gather", [qdq(y, 0.025, -4), g.init("gi", i64(3, 3, 0))], (1, 3, 6, 3), axis=1)
    y = g.op("Tile", [qdq(y, 0.03, 1), g.init("r", i64(1, 2, 1, 1))], (1, 6, 6, 3))
    return g.build({"y": qdq(y, 0.02, 0)})


_MATH = (("Neg", {}), ("Abs", {}), ("Exp", {}), ("Log", {}), ("Sqrt", {}), ("Reciprocal", {}),
         ("Elu", {"alpha": 0.5}), ("Selu", {}), ("Softplus", {}), ("Softsign", {}), ("Erf", {}),
         ("Gelu", {"approximate": "tanh"}), ("HardSigmoid", {"alpha": 0.3}), ("Sign", {}),
         ("Shrink", {"lambd": 0.4, "bias": 0.1}), ("Pow", {}), ("Swish", {}))
"""Every element-wise math op (36..52) once; Pow's exponent is a constant input."""


def _math_chain(g: GraphBuilder, y: str, after: Callable[[str], str]) -> str:
    shape = g.shapes[y]
    for op_type, attrs in _MATH:
        inputs = [y, g.init("exponent", np.float32(2.0))] if op_type == "Pow" else [y]
        y = after(g.op(op_type, inputs, shape, **attrs))
    return y


def _unary() -> onnx.ModelProto:
    """neg ... silu in float (opset 24: Gelu, Swish)."""
    g = GraphBuilder("fuzz_unary", 21, opset=24)
    x = g.add_input("x", (1, 4, 6, 6))
    return g.build({"y": _math_chain(g, x, lambda v: v)})


def _unary_qdq() -> onnx.ModelProto:
    """neg ... silu in int8 (one table each): a QDQ graph by hand."""
    g = GraphBuilder("fuzz_unary_int8", 22, opset=24)
    x = g.add_input("x", (1, 4, 6, 6))

    def qdq(v: str) -> str:
        q = (g.init(g.unique("scale"), np.float32(0.03)), g.init(g.unique("zp"), np.int8(-20)))
        return g.op("DequantizeLinear", [g.op("QuantizeLinear", [v, *q], g.shapes[v]), *q], g.shapes[v])

    return g.build({"y": _math_chain(g, qdq(x), qdq)})


def _tiles() -> onnx.ModelProto:
    """A conv stack too big for TILE_BUDGET untiled: tiled stages and chains."""
    g = GraphBuilder("fuzz_tiles", 14)
    x = g.add_input("x", (1, 3, 24, 24))
    y = g.relu(g.conv(x, 8, 3))
    y = g.relu(g.conv(y, 8, 3))
    y = g.pool("MaxPool", y, 2, 2)
    y = g.relu(g.conv(y, 8, 3))
    y = g.upsample2x(y)
    return g.build({"y": g.conv(y, 4, 3)})


def _mixed() -> onnx.ModelProto:
    """Quantized, a float segment in the middle (div, tanh: not quantized by onnxruntime's
    quantizer): dequantize before it, quantize after it."""
    g = GraphBuilder("fuzz_mixed", 15)
    x = g.add_input("x", (1, 3, 8, 8))
    y = g.relu(g.conv(x, 4, 3))
    y = g.op("Div", [y, g.init("d", np.full((1, 4, 1, 1), 2.0, np.float32))], (1, 4, 8, 8))
    y = g.unary("Tanh", y)
    return g.build({"y": g.conv(y, 4, 3)})


def _wide() -> onnx.ModelProto:
    """A map 40 columns wide: conv, max pool, mul by a per-channel activation, depthwise,
    sigmoid, average pool, each in 2-D tiles at WIDE_BUDGET."""
    g = GraphBuilder("fuzz_wide", 23)
    x = g.add_input("x", (1, 3, 8, 40))
    y = g.pool("MaxPool", g.relu(g.conv(x, 8, 3)), 2, 2)
    y = g.conv(g.binary("Mul", y, g.add_input("s", (1, 8, 1, 1))), 8, 3, groups=8)
    return g.build({"y": g.pool("AveragePool", g.unary("Sigmoid", y), 3, 1, pad=1)})


def _int8(build: Callable[[], onnx.ModelProto]) -> Callable[[], onnx.ModelProto]:
    def quantized() -> onnx.ModelProto:
        from quantize import quantize_int8

        return quantize_int8(build())

    return quantized


GRAPHS: dict[str, tuple[Callable[[], onnx.ModelProto], int, tuple[str, ...]]] = {
    "window": (_window, OP_BUDGET, ("none", "lz4", "xip")),
    "elementwise": (_elementwise, OP_BUDGET, ("none",)),
    "dense": (_dense, OP_BUDGET, ("none", "xip")),
    "reduce": (_reduce, OP_BUDGET, ("none",)),
    "binary": (_binary, OP_BUDGET, ("none",)),
    "binary_int8": (_binary_qdq, OP_BUDGET, ("none",)),
    "move": (_move, OP_BUDGET, ("none",)),
    "move_int8": (_move_qdq, OP_BUDGET, ("none",)),
    "unary": (_unary, OP_BUDGET, ("none",)),
    "unary_int8": (_unary_qdq, OP_BUDGET, ("none",)),
    "tiles": (_tiles, TILE_BUDGET, ("lz4",)),
    "chains": (_tiles, CHAIN_BUDGET, ("none", "xip", "greedy")),
    "window_int8": (_int8(_window), OP_BUDGET, ("none", "lz4")),
    "tiles_int8": (_int8(_tiles), TILE_BUDGET, ("xip",)),
    "mixed_int8": (_int8(_mixed), OP_BUDGET, ("none",)),
    "wide": (_wide, WIDE_BUDGET, ("none",)),
    "wide_int8": (_int8(_wide), WIDE_INT8_BUDGET, ("none",)),
}
"""name -> (graph, budget, weight storage variants of tgrs_zoo.VARIANTS)."""


def conv_pool_plan(tile_h: int | None) -> PlanFile:
    """A conv whose weights are one block (LZ4 when written so), then a global average, in one
    stage: in reduction tiles of `tile_h` of the conv's 7 rows (None: untiled). The block is
    decompressed into the reserved prefix and the accumulator lies right after it; if the two
    overlapped, a tile after the first would convolve with weights the accumulator overwrote.
    By hand: whether the planner picks reduction tiles depends on its budget. Also used by
    test_runtime_executor.py."""
    rng = np.random.default_rng(23)
    f32 = DType.F32
    t = [Tensor("x", f32, (1, 3, 7, 6)), Tensor("y", f32, (1, 5, 1, 1)), Tensor("conv", f32, (1, 5, 7, 6)),
         Tensor("w", f32, (5, 3, 3, 3), weight=0), Tensor("b", f32, (5,), weight=1)]
    ops = [Op(OpType.CONV, "conv", (0, 3, 4), (2,), weight=3, bias=4, kernel_h=3, kernel_w=3, pad_top=1,
              pad_left=1, pad_bottom=1, pad_right=1, **WINDOW),
           Op(OpType.GLOBAL_AVG, "gap", (2,), (1,), **GLOBAL)]
    weights = [Weight(rng.normal(0, 0.3, (5, 3, 3, 3)).astype(np.float32), WeightLayout.OHWI, block=0),
               Weight(rng.normal(0, 0.1, 5).astype(np.float32), block=0)]
    if tile_h is None:
        stage = Stage((0, 1), (0,), (1,), peak=1760, weight_block=0)
        return PlanFile("conv_pool", t, ops, [stage], (0,), (1,), [], weights, [WeightBlock()])
    # aligned to TIGRIS_TENSOR_ALIGN (32 on x86_64): the accumulator (a Kahan pair per channel),
    # x's band (a row of halo each side), the conv's band, y
    peak = sum(-(-n // 32) * 32 for n in (5 * 8, 3 * 6 * 4 * (tile_h + 2), 5 * 6 * 4 * tile_h, 5 * 4))
    tiles = [TilePlan(tile_h, -(-7 // tile_h), 2, 7, peak, reduce_op=1, acc_bytes=5 * 8)]
    stage = Stage((0, 1), (0,), (1,), peak=1760, tile_plan=0, weight_block=0)
    return PlanFile("conv_pool", t, ops, [stage], (0,), (1,), tiles, weights, [WeightBlock()])


@cache
def seed_plans() -> dict[str, bytes]:
    """Every seed plan, `<graph>_<variant>` -> bytes (compiled once per process)."""
    from tgrs_zoo import VARIANTS

    from tigris.tools.cli import compile_bytes

    plans = {}
    with tempfile.TemporaryDirectory(prefix="fuzz_seeds_") as tmp:
        for name, (build, budget, variants) in GRAPHS.items():
            path = Path(tmp) / f"{name}.onnx"
            onnx.save(build(), str(path))
            for variant in variants:
                plans[f"{name}_{variant}"] = compile_bytes(str(path), budget, **VARIANTS[variant])  # type: ignore[arg-type]
    plans["reduction_lz4"] = write_plan(conv_pool_plan(2), "lz4")
    return plans


def write_seeds(folder: Path) -> list[Path]:
    paths = []
    for name, data in seed_plans().items():
        paths.append(folder / f"{name}.tgrs")
        paths[-1].write_bytes(data)
    return paths


def field_table() -> str:
    """The fuzzer's -F table: "KIND RECORD_SIZE OFFSET SIZE" per field of the header (kind 0)
    and of every record section, from the format's definition."""
    from tigris.emit.tgrs.enums import SectionKind as K
    from tigris.emit.tgrs.records import HEADER, OP, QUANT_PARAM, STAGE, TENSOR, TILE_PLAN, WEIGHT_BLOCK, WEIGHT_ENTRY

    records = ((0, HEADER), (K.TENSORS, TENSOR), (K.OPS, OP), (K.STAGES, STAGE), (K.TILE_PLANS, TILE_PLAN),
               (K.WEIGHT_ENTRIES, WEIGHT_ENTRY), (K.WEIGHT_BLOCKS, WEIGHT_BLOCK), (K.QUANT_PARAMS, QUANT_PARAM))
    lines = []
    for kind, rec in records:
        for f in rec.fields:
            if f.ctype != "char":  # the magic: a string, mutated byte-wise
                lines.append(f"{int(kind)} {rec.size} {rec.offsets[f.name]} {f.size}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # DIR/seeds/*.tgrs and DIR/fields.txt for a libFuzzer run (docs/runtime.md)
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "fuzz_seeds")
    (out / "seeds").mkdir(parents=True, exist_ok=True)
    write_seeds(out / "seeds")
    (out / "fields.txt").write_text(field_table())
    print(f"{len(seed_plans())} seeds in {out / 'seeds'}, fields in {out / 'fields.txt'}")
