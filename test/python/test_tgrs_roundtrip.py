"""`.tgrs` write -> read round trips over varied plans, and the writer's own refusals.

The plans below are the fixtures of the `.tgrs` tests (test_tgrs_corruption.py loads
them too): float and int8 ops, per-tensor and per-channel quantization, lookup tables,
a spatial tile plan, a chain, reduction tiles and 2-D tiles, a model output permutation,
XIP, and weight blocks stored raw or as LZ4 block streams.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import fields, replace

import lz4.block
import numpy as np
import pytest

from tigris.emit.tgrs import (
    Op,
    PlanFile,
    QuantParam,
    Stage,
    Tensor,
    TilePlan,
    Weight,
    WeightBlock,
    read_plan,
    write_plan,
)
from tigris.emit.tgrs.enums import (
    Activation,
    BandGeometry,
    CoordMode,
    DType,
    FileFlag,
    OpFlag,
    OpType,
    PadMode,
    ResizeMode,
    VERSION_MAJOR,
    VERSION_MINOR,
    SectionKind,
    TileFlag,
    WeightLayout,
)
from tigris.emit.tgrs.records import HEADER, WEIGHT_BLOCK, WEIGHT_ENTRY
from geometries import GLOBAL, PAD, RESIZE, SAME, WINDOW  # test/support

F32, I8, I32 = DType.F32, DType.I8, DType.I32


def _w(rng: np.random.Generator, shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
    """Random weights; each builder seeds its own generator, so a plan is the same every time."""
    if dtype == "float32":
        return rng.standard_normal(shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, dtype=dtype)


def float_cnn() -> PlanFile:
    """conv+relu -> max_pool (tiled stage) -> flatten -> fc -> softmax; clip output with a perm;
    the input given channels-last (an input perm)."""
    rng = np.random.default_rng(1)
    t = [
        Tensor("x", F32, (1, 3, 16, 16), perm=(0, 2, 3, 1)),
        Tensor("conv1.w", F32, (8, 3, 3, 3), weight=0),  # stored OHWI: [O, KH, KW, I]
        Tensor("conv1.b", F32, (8,), weight=1),
        Tensor("conv1", F32, (1, 8, 16, 16)),
        Tensor("pool", F32, (1, 8, 8, 8)),
        Tensor("flat", F32, (1, 512)),
        Tensor("fc.w", F32, (10, 512), weight=2),
        Tensor("fc.b", F32, (10,), weight=3),
        Tensor("fc", F32, (1, 10)),
        Tensor("probs", F32, (1, 10)),
        Tensor("clipped", F32, (1, 8, 8, 8), perm=(0, 2, 3, 1)),
    ]
    pads = {"pad_top": 1, "pad_left": 1, "pad_bottom": 1, "pad_right": 1}
    ops = [
        Op(
            OpType.CONV,
            "conv1",
            (0, 1, 2),
            (3,),
            weight=1,
            bias=2,
            activation=Activation.RELU,
            kernel_h=3,
            kernel_w=3,
            **pads,
            **WINDOW,
        ),
        Op(
            OpType.MAX_POOL,
            "pool",
            (3,),
            (4,),
            kernel_h=2,
            kernel_w=2,
            stride_h=2,
            stride_w=2,
            dilation_w=2,
            flags=OpFlag.CEIL_MODE,
            **WINDOW,
        ),
        Op(OpType.FLATTEN, "flatten", (4,), (5,), axis=1, flags=OpFlag.STORED_ORDER),
        Op(OpType.FULLY_CONN, "fc", (5, 6, 7), (8,), weight=6, bias=7),
        Op(OpType.SOFTMAX, "softmax", (8,), (9,), axis=-1),
        Op(OpType.CLIP, "clip", (4,), (10,), clip_min=0.0, clip_max=6.0, **SAME),
    ]
    stages = [
        Stage((0, 1), (0,), (4,), peak=20480, tile_plan=0),
        Stage((2, 3, 4, 5), (4,), (9, 10), peak=4200),
    ]
    weights = [
        Weight(_w(rng, (8, 3, 3, 3)).transpose(0, 2, 3, 1), WeightLayout.OHWI),
        Weight(_w(rng, (8,))),
        Weight(_w(rng, (10, 512)), WeightLayout.NK_HWC),
        Weight(_w(rng, (10,))),
    ]
    tiles = [TilePlan(tile_h=4, num_tiles=2, halo=2, out_h=8, peak=9000)]
    return PlanFile("float_cnn", t, ops, stages, (0,), (9, 10), tiles, weights)


def int8_chain() -> PlanFile:
    """quantize -> conv (per-channel) -> depthwise -> add -> hard_swish/sigmoid (tables) -> dequantize."""
    rng = np.random.default_rng(2)
    q = [
        QuantParam((0.0078125,), (-1,)),
        QuantParam([0.001 * (c + 1) for c in range(8)], [0] * 8, axis=0),
        QuantParam((0.05,), (-5,)),
        QuantParam([0.0078125 * 0.001 * (c + 1) for c in range(8)], [0] * 8, axis=0),
        QuantParam([0.02 + 0.001 * c for c in range(8)], [0] * 8, axis=2),
        QuantParam((0.1,), (3,)),
        QuantParam((1 / 256,), (-128,)),
    ]
    act = (1, 16, 16)
    t = [
        Tensor("x", F32, (1, 3, 16, 16)),
        Tensor("xq", I8, (1, 3, 16, 16), quant=0),
        Tensor("conv.w", I8, (8, 3, 3, 3), quant=1, weight=0),
        Tensor("conv.b", I32, (8,), quant=3, weight=1),
        Tensor("conv", I8, (1, 8, *act[1:]), quant=2),
        Tensor("dw.w", I8, (3, 3, 8), quant=4, weight=2),
        Tensor("dw.b", I32, (8,), weight=3),
        Tensor("dw", I8, (1, 8, 16, 16), quant=2),
        Tensor("add", I8, (1, 8, 16, 16), quant=5),
        Tensor("hswish", I8, (1, 8, 16, 16), quant=5),
        Tensor("sig", I8, (1, 8, 16, 16), quant=6),
        Tensor("y", F32, (1, 8, 16, 16)),
        Tensor("padded", I8, (1, 8, 18, 18), quant=6),
    ]
    scales = [float(np.float32(0.0031 * (c + 1))) for c in range(8)]
    k3 = {"kernel_h": 3, "kernel_w": 3, "pad_top": 1, "pad_left": 1, "pad_bottom": 1, "pad_right": 1}
    ops = [
        Op(OpType.QUANTIZE, "quant", (0,), (1,), **SAME),
        Op(OpType.CONV, "conv", (1, 2, 3), (4,), weight=2, bias=3, activation=Activation.RELU6,
           requant_scales=scales, input_zp=-1, output_zp=-5, act_min=-5, act_max=115, **k3, **WINDOW),
        Op(OpType.DEPTHWISE, "dw", (4, 5, 6), (7,), weight=5, bias=6, requant_scales=scales[::-1],
           input_zp=-5, output_zp=-5, group=1, **k3, **WINDOW),
        Op(OpType.ADD, "add", (4, 7), (8,), input_zp=-5, input2_zp=-5, output_zp=3, **SAME),
        Op(OpType.HARD_SWISH, "hswish", (8,), (9,), table=0, input_zp=3, output_zp=3, **SAME),
        Op(OpType.SIGMOID, "sigmoid", (9,), (10,), table=1, input_zp=3, output_zp=-128, **SAME),
        Op(OpType.DEQUANTIZE, "dequant", (10,), (11,), **SAME),
        Op(OpType.PAD, "pad", (10,), (12,), params=(0, 1, 1, 0, 0, 1, 1, 0), pad_value_q=-128, **PAD),
    ]  # fmt: skip
    stages = [
        Stage((0, 1), (0,), (4,), peak=30000, tile_plan=0),
        Stage((2, 3), (4,), (8,), peak=30000, tile_plan=0),
        Stage((4, 5, 6, 7), (8,), (11, 12), peak=12000),
    ]
    weights = [
        Weight(_w(rng, (8, 3, 3, 3), "int8"), WeightLayout.OHWI),
        Weight(_w(rng, (8,), "int32")),
        Weight(_w(rng, (3, 3, 8), "int8"), WeightLayout.HWC),
        Weight(_w(rng, (8,), "int32")),
    ]
    tables = [np.arange(-128, 128, dtype=np.int8)[::-1].copy(), _w(rng, (256,), "int8")]
    tiles = [TilePlan(tile_h=5, num_tiles=4, halo=4, out_h=16, peak=7000, chain=0)]
    return PlanFile(
        "int8_chain", t, ops, stages, (0,), (11, 12), tiles, weights, [], q, tables, FileFlag.QUANTIZED
    )


def blocked() -> PlanFile:
    """Three conv stages, each with its own weight block; biases stay in the blob."""
    rng = np.random.default_rng(3)
    t = [Tensor("x", F32, (1, 4, 8, 8))]
    ops, stages, weights = [], [], []
    for i in range(3):
        base = len(t)
        t += [Tensor(f"w{i}", F32, (4, 4, 3, 3), weight=2 * i), Tensor(f"b{i}", F32, (4,), weight=2 * i + 1)]
        t.append(Tensor(f"y{i}", F32, (1, 4, 8, 8)))
        src = 0 if i == 0 else base - 1
        ops.append(
            Op(
                OpType.CONV,
                f"conv{i}",
                (src, base, base + 1),
                (base + 2,),
                weight=base,
                bias=base + 1,
                kernel_h=3,
                kernel_w=3,
                **WINDOW,
            )
        )
        stages.append(Stage((i,), (src,), (base + 2,), peak=2048, weight_block=i))
        compressible = np.repeat(_w(rng, (4, 4, 1, 1)), 9, axis=3).reshape(4, 3, 3, 4)
        weights += [Weight(compressible, WeightLayout.OHWI, block=i), Weight(_w(rng, (4,)))]
    return PlanFile("blocked", t, ops, stages, (0,), (len(t) - 1,), [], weights, [WeightBlock()] * 3)


def shape_ops() -> PlanFile:
    """Parameters through the pools: pad, resize, concat, transpose, reshape, reduce, norms; XIP."""
    rng = np.random.default_rng(4)
    t = [
        Tensor("in", F32, (1, 2, 4, 4)),
        Tensor("pad", F32, (1, 2, 6, 6)),
        Tensor("up", F32, (1, 2, 12, 12)),
        Tensor("bn.s", F32, (2,), weight=0),
        Tensor("bn.b", F32, (2,), weight=1),
        Tensor("bn.m", F32, (2,), weight=2),
        Tensor("bn.v", F32, (2,), weight=3),
        Tensor("bn", F32, (1, 2, 12, 12)),
        Tensor("leaky", F32, (1, 2, 12, 12)),
        Tensor("cat", F32, (1, 4, 12, 12)),
        Tensor("tr", F32, (1, 12, 12, 4)),
        Tensor("flat", F32, (1, 576)),
        Tensor("mean", F32, (1, 4, 1, 1)),
        Tensor("avg", F32, (1, 4, 6, 6)),
        Tensor("seq", F32, (1, 4, 36)),
        Tensor("c1.w", F32, (2, 5, 2), weight=4),
        Tensor("c1", F32, (1, 2, 28)),
    ]
    ops = [
        Op(
            OpType.PAD,
            "pad",
            (0,),
            (1,),
            params=(0, 0, 1, 1, 0, 0, 1, 1),
            mode=PadMode.REFLECT,
            pad_value=0.5,
            **PAD,
        ),
        Op(
            OpType.RESIZE,
            "up",
            (1,),
            (2,),
            params=(1, 2, 2, 1),
            mode=ResizeMode.LINEAR,
            coord_mode=CoordMode.ALIGN_CORNERS,
            **RESIZE,
        ),
        Op(OpType.BATCH_NORM, "bn", (2, 3, 4, 5, 6), (7,), epsilon=1e-3, **SAME),
        Op(OpType.HARD_SIGMOID, "leaky", (7,), (8,), alpha=0.2, beta=0.6, **SAME),  # alpha and beta (2.1)
        Op(OpType.CONCAT, "cat", (7, 8), (9,), axis=3, **SAME),  # along C: cut along H and W
        Op(OpType.TRANSPOSE, "tr", (9,), (10,), params=(0, 2, 3, 1)),
        Op(OpType.RESHAPE, "flat", (10,), (11,), params=(1, 576)),
        Op(OpType.REDUCE_MEAN, "mean", (9,), (12,), params=(1, 2), flags=OpFlag.KEEPDIMS),
        Op(
            OpType.AVG_POOL,
            "avg",
            (9,),
            (13,),
            kernel_h=2,
            kernel_w=2,
            stride_h=2,
            stride_w=2,
            flags=OpFlag.COUNT_INCLUDE_PAD,
            **WINDOW,
        ),
        Op(OpType.RESHAPE, "seq", (13,), (14,), params=(1, 4, 36)),
        Op(OpType.CONV1D, "c1", (14, 15), (16,), weight=15, kernel_h=5, dilation_h=2, group=2,
           geometry_h=BandGeometry.WINDOW, geometry_w=BandGeometry.SAME),  # no W: a window along L only
    ]
    weights = [Weight(_w(rng, (2,))) for _ in range(4)] + [Weight(_w(rng, (2, 5, 2)), WeightLayout.OKI)]
    stage = Stage(tuple(range(len(ops))), (0,), (11, 12, 16), peak=40000)
    return PlanFile("shape ops ünï", t, ops, [stage], (0,), (11, 12, 16), [], weights, flags=FileFlag.XIP)


def reduction_tiles() -> PlanFile:
    """Reduction tiles: relu -> global_avg (float) and quantize -> global_max (int8), each global
    pool accumulating over tiles of its input's rows (the max in blocks of 2 of its 5 channels);
    the relu is banded in the same stage."""
    q = [QuantParam((0.05,), (-3,)), QuantParam((0.04,), (7,))]
    t = [
        Tensor("x", F32, (1, 5, 7, 6)),
        Tensor("relu", F32, (1, 5, 7, 6)),
        Tensor("avg", F32, (1, 5, 1, 1)),
        Tensor("xq", I8, (1, 5, 7, 6), quant=0),
        Tensor("max", I8, (1, 5, 1, 1), quant=1),
    ]
    ops = [
        Op(OpType.RELU, "relu", (0,), (1,), **SAME),
        Op(OpType.GLOBAL_AVG, "avg", (1,), (2,), **GLOBAL),
        Op(OpType.QUANTIZE, "quant", (0,), (3,), **SAME),
        Op(OpType.GLOBAL_MAX, "max", (3,), (4,), **GLOBAL),
    ]
    stages = [
        Stage((0, 1), (0,), (2,), peak=1760, tile_plan=0),
        Stage((2,), (0,), (3,), peak=1088),
        Stage((3,), (3,), (4,), peak=256, tile_plan=1),
    ]
    # band peaks at TIGRIS_TENSOR_ALIGN 32: x and relu bands, the output, the accumulator
    tiles = [
        TilePlan(tile_h=3, num_tiles=3, halo=0, out_h=7, peak=384 + 384 + 32 + 64, reduce_op=1, acc_bytes=40),
        TilePlan(tile_h=2, num_tiles=4, halo=0, out_h=7, peak=64 + 32 + 32, reduce_op=3, acc_bytes=8, tile_c=2,
                 num_tiles_c=3),  # channel blocks: 2 channels of int32 max a block
    ]
    return PlanFile("reduction_tiles", t, ops, stages, (0,), (2, 4), tiles, quant_params=q,
                    flags=FileFlag.QUANTIZED)


def tiles_2d() -> PlanFile:
    """2-D tiles: conv 3x3 (pads 1) -> relu -> mul by a per-channel activation s [1, 4, 1, 1], in
    2 x 4 tiles of the 6 x 10 output (3 row bands of 3 column tiles: 4, 4, 2 columns)."""
    rng = np.random.default_rng(5)
    t = [
        Tensor("x", F32, (1, 3, 6, 10)),
        Tensor("s", F32, (1, 4, 1, 1)),
        Tensor("w", F32, (4, 3, 3, 3), weight=0),
        Tensor("conv", F32, (1, 4, 6, 10)),
        Tensor("relu", F32, (1, 4, 6, 10)),
        Tensor("y", F32, (1, 4, 6, 10)),
    ]
    pads = {"pad_top": 1, "pad_left": 1, "pad_bottom": 1, "pad_right": 1}
    ops = [
        Op(OpType.CONV, "conv", (0, 2), (3,), weight=2, kernel_h=3, kernel_w=3, **pads, **WINDOW),
        Op(OpType.RELU, "relu", (3,), (4,), **SAME),
        Op(OpType.MUL, "mul", (4, 1), (5,), **SAME),
    ]
    stage = Stage((0, 1, 2), (0, 1), (5,), peak=2880, tile_plan=0)
    tiles = [TilePlan(tile_h=2, num_tiles=3, halo=2, out_h=6, peak=608, tile_w=4, num_tiles_w=3, halo_w=2, out_w=10)]
    weights = [Weight(_w(rng, (4, 3, 3, 3)).transpose(0, 2, 3, 1), WeightLayout.OHWI)]
    return PlanFile("tiles_2d", t, ops, [stage], (0, 1), (5,), tiles, weights)


def dense_blocks() -> PlanFile:
    """Dense layers in blocks of output features: fc1 [1, 12] -> [1, 6] in reduction blocks (2
    blocks of 4 features, the 12 input features in 3 blocks of 5, 4 float partial sums), fc2
    [1, 6] -> [1, 3] in output-feature blocks of 2 (its input whole)."""
    rng = np.random.default_rng(7)
    t = [
        Tensor("x", F32, (1, 12)),
        Tensor("w1", F32, (6, 12), weight=0),
        Tensor("h", F32, (1, 6)),
        Tensor("w2", F32, (3, 6), weight=1),
        Tensor("y", F32, (1, 3)),
    ]
    ops = [Op(OpType.FULLY_CONN, "fc1", (0, 1), (2,), weight=1), Op(OpType.FULLY_CONN, "fc2", (2, 3), (4,), weight=3)]
    stages = [Stage((0,), (0,), (2,), peak=96, tile_plan=0), Stage((1,), (2,), (4,), peak=64, tile_plan=1)]
    weights = [Weight(_w(rng, (6, 12))), Weight(_w(rng, (3, 6)))]
    # peaks at TIGRIS_TENSOR_ALIGN 32: 5 inputs, 4 outputs and 4 sums; 6 inputs and 2 outputs
    tiles = [
        TilePlan(tile_h=5, num_tiles=3, halo=0, out_h=12, peak=96, reduce_op=0, acc_bytes=16, tile_c=4, num_tiles_c=2),
        TilePlan(tile_h=1, num_tiles=1, halo=0, out_h=1, peak=64, tile_c=2, num_tiles_c=2),
    ]
    return PlanFile("dense_blocks", t, ops, stages, (0,), (4,), tiles, weights)


def row_caches() -> PlanFile:
    """Row caches (docs/tgrs-format.md, "Row caches"): a chain of two conv 3x3 (pads 1) stages in
    tiles of 2 of the 6 output rows, x and a (rows of 4 x 2 x 4 = 32 bytes) in slots. By hand,
    tiles [0, 2), [2, 4), [4, 6) of y: a's bands [0, 3), [1, 5), [3, 6) (new rows [0, 3), [3, 5),
    [5, 6)), x's [0, 4), [2, 6), [4, 6) (new [0, 4), [4, 6), none): 4-row slots of 128 bytes
    each, 256 bytes; peak: the slots and y's 2-row band, 64 bytes."""
    rng = np.random.default_rng(11)
    t = [
        Tensor("x", F32, (1, 2, 6, 4)),
        Tensor("w0", F32, (2, 3, 3, 2), weight=0),
        Tensor("a", F32, (1, 2, 6, 4)),
        Tensor("w1", F32, (2, 3, 3, 2), weight=1),
        Tensor("y", F32, (1, 2, 6, 4)),
    ]
    pads = {"pad_top": 1, "pad_left": 1, "pad_bottom": 1, "pad_right": 1}
    ops = [
        Op(OpType.CONV, "conv0", (0, 1), (2,), weight=1, kernel_h=3, kernel_w=3, **pads, **WINDOW),
        Op(OpType.CONV, "conv1", (2, 3), (4,), weight=3, kernel_h=3, kernel_w=3, **pads, **WINDOW),
    ]
    stages = [Stage((0,), (0,), (2,), peak=384, tile_plan=0), Stage((1,), (2,), (4,), peak=384, tile_plan=0)]
    tiles = [TilePlan(tile_h=2, num_tiles=3, halo=4, out_h=6, peak=256 + 64, chain=0, acc_bytes=256,
                      flags=TileFlag.ROW_CACHE)]
    weights = [Weight(_w(rng, (2, 3, 3, 2)), WeightLayout.OHWI), Weight(_w(rng, (2, 3, 3, 2)), WeightLayout.OHWI)]
    return PlanFile("row_caches", t, ops, stages, (0,), (4,), tiles, weights)


def minimal() -> PlanFile:
    """One relu, no weights, an empty name: every optional section is absent."""
    t = [Tensor("x", DType.U8, (4,)), Tensor("y", DType.U8, (4,))]
    return PlanFile(
        "", t, [Op(OpType.RELU, "relu", (0,), (1,))], [Stage((0,), (0,), (1,), peak=8)], (0,), (1,)
    )


PLANS: dict[str, Callable[[], PlanFile]] = {
    f.__name__: f
    for f in (float_cnn, int8_chain, blocked, shape_ops, reduction_tiles, tiles_2d, dense_blocks, row_caches, minimal)
}
CASES = [(n, c) for n in PLANS for c in ("none", "lz4") if not (n == "shape_ops" and c == "lz4")]


def expected(plan: PlanFile, compress: str) -> PlanFile:
    """What the reader gives back: the plan, with the LZ4 flag saying how blocks were stored."""
    flags = plan.flags | FileFlag.LZ4 if compress == "lz4" else plan.flags
    return replace(plan, flags=flags)


def test_the_plans_exercise_every_field() -> None:
    """A field that keeps its default in every plan would not be tested by the round trip."""
    plans = [make() for make in PLANS.values()]
    objects = {
        Op: [op for p in plans for op in p.ops],
        Tensor: [t for p in plans for t in p.tensors],
        Stage: [s for p in plans for s in p.stages],
        TilePlan: [t for p in plans for t in p.tile_plans],
        QuantParam: [q for p in plans for q in p.quant_params],
        Weight: [w for p in plans for w in p.weights],
    }
    for cls, items in objects.items():
        for f in fields(cls):
            values = {repr(getattr(item, f.name)) for item in items}
            assert len(values) > 1, f"{cls.__name__}.{f.name} is the same in every plan"


def sections_of(data: bytes) -> dict[SectionKind, tuple[int, int, int]]:
    """(offset, size, count) per section, straight from the bytes."""
    n = struct.unpack_from("<H", data, HEADER.offsets["num_sections"])[0]
    out = {}
    for i in range(n):
        kind, _, offset, size, count = struct.unpack_from("<HHIII", data, HEADER.size + 16 * i)
        out[SectionKind(kind)] = (offset, size, count)
    return out


def section_bytes(data: bytes, kind: SectionKind) -> bytes:
    offset, size, _ = sections_of(data)[kind]
    return data[offset : offset + size]


@pytest.mark.parametrize(("name", "compress"), CASES)
def test_round_trip_gives_back_every_record(name: str, compress: str) -> None:
    plan = PLANS[name]()
    data = write_plan(plan, compress)
    back = read_plan(data)
    want = expected(plan, compress)
    for key in ("name", "flags", "inputs", "outputs"):
        assert getattr(back, key) == getattr(want, key), key
    for key in ("tensors", "ops", "stages", "tile_plans", "quant_params", "tables", "weight_blocks"):
        got, exp = getattr(back, key), getattr(want, key)
        assert len(got) == len(exp), key
        for i, (g, e) in enumerate(zip(got, exp)):
            assert g == e, f"{key}[{i}]"
    assert [w.data for w in back.weights] == [w.data for w in plan.weights]
    assert [(w.layout, w.block) for w in back.weights] == [(w.layout, w.block) for w in plan.weights]
    assert back == want


@pytest.mark.parametrize(("name", "compress"), CASES)
def test_writing_is_deterministic(name: str, compress: str) -> None:
    first = write_plan(PLANS[name](), compress)
    assert write_plan(PLANS[name](), compress) == first
    assert write_plan(read_plan(first), compress) == first


@pytest.mark.parametrize(("name", "compress"), CASES)
def test_layout_is_aligned(name: str, compress: str) -> None:
    data = write_plan(PLANS[name](), compress)
    assert data[:4] == b"TGRS"
    assert struct.unpack_from("<HHII", data, 4) == (VERSION_MAJOR, VERSION_MINOR, 64, len(data))
    for kind, (offset, _, _) in sections_of(data).items():
        assert offset % 16 == 0, kind
    entries = (
        WEIGHT_ENTRY.unpack_all(section_bytes(data, SectionKind.WEIGHT_ENTRIES))
        if PLANS[name]().weights
        else []
    )
    blob_offset = sections_of(data).get(SectionKind.WEIGHT_BLOB, (0, 0, 0))[0]
    for e in entries:
        assert e["offset"] % 16 == 0 and (e["block"] != 0xFFFF or (blob_offset + e["offset"]) % 16 == 0)


@pytest.mark.parametrize("compress", ["none", "lz4"])
def test_blocks_hold_exactly_their_weights(compress: str) -> None:
    plan = blocked()
    data = write_plan(plan, compress)
    store = section_bytes(data, SectionKind.WEIGHT_BLOCK_DATA)
    records = WEIGHT_BLOCK.unpack_all(section_bytes(data, SectionKind.WEIGHT_BLOCKS))
    assert len(records) == 3
    for b, rec in enumerate(records):
        raw = b""
        for w in plan.weights:
            if w.block == b:
                raw += bytes(-len(raw) % 16) + w.data
        stored = store[rec["offset"] : rec["offset"] + rec["size"]]
        if compress == "lz4":
            assert stored == lz4.block.compress(raw, store_size=False)
            assert lz4.block.decompress(stored, uncompressed_size=rec["raw_size"]) == raw
            assert rec["size"] < rec["raw_size"]
        else:
            assert stored == raw
        assert rec["raw_size"] == len(raw)
    fast_reserved = struct.unpack_from("<I", data, HEADER.offsets["fast_reserved"])[0]
    assert fast_reserved == (max(r["raw_size"] for r in records) if compress == "lz4" else 0)
    assert all(r["offset"] % 16 == 0 for r in records)
    assert (struct.unpack_from("<I", data, HEADER.offsets["flags"])[0] & FileFlag.LZ4 != 0) == (
        compress == "lz4"
    )


@pytest.mark.parametrize(("name", "compress"), [("float_cnn", "lz4"), ("blocked", "none")])
def test_fast_reserved_is_zero_without_lz4_blocks(name: str, compress: str) -> None:
    data = write_plan(PLANS[name](), compress)
    assert struct.unpack_from("<I", data, HEADER.offsets["fast_reserved"])[0] == 0


def test_xip_plans_may_group_weights_in_raw_blocks() -> None:
    plan = replace(blocked(), flags=FileFlag.XIP)
    assert read_plan(write_plan(plan)) == plan


def test_numpy_weights_are_stored_as_their_little_endian_bytes() -> None:
    plan = float_cnn()
    big = np.arange(10, dtype=">f4")
    plan.weights[3] = Weight(big)
    assert read_plan(write_plan(plan)).weights[3].data == np.arange(10, dtype="<f4").tobytes()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda p: setattr(p, "flags", FileFlag.XIP),
            "XIP plan reads weights in place: it cannot be compressed",
        ),
        (lambda p: p.weights.__setitem__(0, replace(p.weights[0], block=7)), "weight 0 block: 7 is not one"),
        (lambda p: p.weight_blocks.append(WeightBlock()), "weight block 3 holds no weights"),
        (
            lambda p: p.ops.__setitem__(0, replace(p.ops[0], kernel_h=70000)),
            "op 0 .conv0. kernel_h: 70000 does not fit uint16_t",
        ),
        (lambda p: p.stages.__setitem__(0, replace(p.stages[0], ops=(-1,))), "stage 0 ops: -1 does not fit"),
        (lambda p: p.tables.append(b"\0" * 255), "table 0: 255 bytes"),
    ],
)
def test_writer_refuses_what_it_cannot_encode(mutate: Callable[[PlanFile], None], message: str) -> None:
    plan = blocked()
    mutate(plan)
    with pytest.raises(ValueError, match=message):
        write_plan(plan, "lz4")


def test_writer_names_the_first_value_that_does_not_fit() -> None:
    """Scales are packed and pool values range-checked a whole list at a time; a bad list
    still names its first bad value (float32 tops out near 3.4e38; index pools are uint16)."""
    plan = int8_chain()
    plan.quant_params[1] = QuantParam([0.001, 1e39, 2e39] + [0.001] * 5, [0] * 8, axis=0)
    with pytest.raises(ValueError, match=r"^quant param 1: scale 1e\+39 does not fit a float32$"):
        write_plan(plan)
    plan = int8_chain()
    plan.ops[0] = replace(plan.ops[0], requant_scales=(0.5, -4e38, 5e38))
    with pytest.raises(ValueError, match=r"^op 0 scales: scale -4e\+38 does not fit a float32$"):
        write_plan(plan)
    plan = int8_chain()
    plan.stages[0] = replace(plan.stages[0], ops=(0, 70000, 80000, -1))
    with pytest.raises(ValueError, match=r"^stage 0 ops: 70000 does not fit the pool's \[0, 65534\]$"):
        write_plan(plan)


def test_writer_refuses_an_unknown_compression() -> None:
    with pytest.raises(ValueError, match="compress must be one of none, lz4"):
        write_plan(minimal(), "zstd")


def test_writer_checks_the_plan_as_the_loader_would() -> None:
    plan = minimal()
    plan.ops[0] = replace(plan.ops[0], inputs=(5,))
    with pytest.raises(ValueError, match=r"op 0 \(relu\) inputs\[0\]: index 5 >= num_tensors 2"):
        write_plan(plan)


def test_records_round_float_sequences_to_float32_and_keep_the_rest() -> None:
    """The one-pass normalization of float sequences (model.f32s) rounds each value as float32
    does (numpy is the oracle), leaves a value too large for float32 as it is, and keeps ints
    and mixed or numpy sequences as the element-wise rule does."""
    values = [0.1, 1 / 3, -2.5e-8, 1e30, 0.0]
    q = QuantParam(scales=values, zero_points=[np.int8(3), 4, np.int64(-5), 0, 1], axis=0)
    assert q.scales == tuple(float(np.float32(v)) for v in values)
    assert all(type(s) is float for s in q.scales)
    assert q.zero_points == (3, 4, -5, 0, 1) and all(type(z) is int for z in q.zero_points)
    assert QuantParam(scales=[1e39, 0.1], zero_points=[0, 0], axis=0).scales == (1e39, float(np.float32(0.1)))
    assert QuantParam(scales=np.array([0.1, 0.2]), zero_points=(0, 0), axis=0).scales == (
        float(np.float32(0.1)), float(np.float32(0.2)))
    op = Op(OpType.RELU, "r", [0], [1], requant_scales=[0.1, np.float32(0.3)], params=[1, 2])
    assert op.requant_scales == (float(np.float32(0.1)), float(np.float32(0.3))) and op.params == (1, 2)
