"""The memory planner's rules, each checked against numbers worked out by hand.

Graphs are written as `tgr` IR text and parsed, so op facts reach the planner through
the traits (`TileCategory`, `SpatialWindow`) as in the compiler. Sizes are f32 unless
said otherwise; "row" is one row along H (C * W * 4 bytes). The hand computation of
every expected number is in the comment next to it.
"""

from __future__ import annotations

import math

import pytest
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.tgr.traits import Window
from tigris.transforms.plan.bands import band_ranges, tile_ranges
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.memory import Lifetime, align_up, lifetimes, timeline
from tigris.transforms.plan.planner import minimum_budget, plan_memory, smallest_fitting_budget
from tigris.transforms.plan.temporal import make_stage, partition_temporal
from tigris.transforms.plan.tiling import (
    band_rows,
    chain_links,
    chain_rows,
    input_rows,
    is_tileable,
    is_tileable_2d,
    plan_spatial,
    receptive_field,
)




CTX = make_context()


def graph(text: str) -> PlanGraph:
    module = Parser(CTX, text).parse_module()
    module.verify()
    return build_plan_graph(module)


def t(shape: tuple[int, ...], element: str = "f32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def conv_text(
    x: tuple[int, int, int, int],
    kernel: int,
    stride: int = 1,
    dilation: int = 1,
    pad: int | None = None,
    cout: int | None = None,
    op: str = "tgr.conv",
    name: str = "%c",
    src: str = "%x",
) -> tuple[str, tuple[int, int, int, int]]:
    """One square conv line (same kernel/stride/dilation/pads on H and W) and its result shape."""
    n, c, h, w = x
    eff = dilation * (kernel - 1) + 1
    pad = (eff - 1) // 2 if pad is None else pad
    cout = c if cout is None or op == "tgr.depthwise_conv" else cout
    wshape = (cout, 1 if op == "tgr.depthwise_conv" else c, kernel, kernel)
    out = (n, cout, (h + 2 * pad - eff) // stride + 1, (w + 2 * pad - eff) // stride + 1)
    props = (
        f"strides = array<i64: {stride}, {stride}>, dilations = array<i64: {dilation}, {dilation}>, "
        f"pads = array<i64: {pad}, {pad}, {pad}, {pad}>"
    )
    lines = (
        f"{name}_w = tgr.weight dense<1.0> : {t(wshape)}\n"
        f"  {name} = {op} {src}, {name}_w {{{props}}} : ({t(x)}, {t(wshape)}) -> {t(out)}"
    )
    return lines, out


def one_op(x: tuple[int, int, int, int], kernel: int, stride: int = 1, dilation: int = 1) -> PlanGraph:
    line, out = conv_text(x, kernel, stride, dilation)
    return graph(f"func.func @main(%x: {t(x)}) -> {t(out)} {{\n  {line}\n  func.return %c : {t(out)}\n}}")


DIAMOND = """
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %a = tgr.relu %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %b = tgr.relu %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %c = tgr.sigmoid %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = tgr.add %b, %c : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %d : tensor<1x1x4x4xf32>
}
"""

RESIDUAL = """
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %y = tgr.add %c2, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
"""


# -- receptive field and halo: the table of spec/tiling.md -----------------------------------------

# (row of the table, windows in execution order, RF)
RF_TABLE = [
    ("3x3 Conv", [Window(3, 1, 1, 1, 1)], 3),
    ("5x5 Conv", [Window(5, 1, 1, 2, 2)], 5),
    ("3x3 Conv, stride 2", [Window(3, 2, 1, 1, 1)], 3),
    ("3x3 DWConv + 3x3 Conv", [Window(3, 1, 1, 1, 1), Window(3, 1, 1, 1, 1)], 5),
    ("3x3 dilated Conv (d=2)", [Window(3, 1, 2, 2, 2)], 5),
]


@pytest.mark.parametrize(("row", "windows", "rf"), RF_TABLE, ids=[r[0] for r in RF_TABLE])
def test_receptive_field_table(row: str, windows: list[Window], rf: int) -> None:
    assert receptive_field(windows) == rf
    assert receptive_field(windows) - 1 == rf - 1  # halo column


def test_receptive_field_walks_in_reverse_with_cumulative_stride() -> None:
    # RF = 1; reverse order: each op adds (eff_kernel - 1) * (product of the strides after it).
    s1, s2 = Window(3, 1, 1, 1, 1), Window(3, 2, 1, 1, 1)
    # conv s2 then conv s1: 1 + 2 * 1 (conv s1) + 2 * 1 (conv s2, nothing strided after it) = 5
    assert receptive_field([s2, s1]) == 5
    # conv s1 then conv s2: 1 + 2 * 1 (conv s2) + 2 * 2 (conv s1, after a stride 2) = 7
    assert receptive_field([s1, s2]) == 7
    # conv s1, conv s2, conv s1: 1 + 2 + 2 + 2 * 2 = 9
    assert receptive_field([s1, s2, s1]) == 9
    # max_pool 2 stride 2 then 3x3 conv: 1 + 2 + 1 * 1 = 4
    assert receptive_field([Window(2, 2, 1, 0, 0), s1]) == 4
    assert receptive_field([]) == 1


# The same rows through a full plan. f32 1x2x16x8 input: 1024 bytes, 64 per row.
# Stride 1 ops keep the shape, so {input, output} = 2048; the stride-2 op gives 1x2x8x4
# (256 bytes): {input, output} = 1280. Budget 1000 puts every one of them over.
@pytest.mark.parametrize(
    ("kernel", "stride", "dilation", "halo"),
    [(3, 1, 1, 2), (5, 1, 1, 4), (3, 2, 1, 2), (3, 1, 2, 4)],
    ids=["3x3 Conv", "5x5 Conv", "3x3 Conv, stride 2", "3x3 dilated Conv (d=2)"],
)
def test_receptive_field_table_in_a_plan(kernel: int, stride: int, dilation: int, halo: int) -> None:
    g = one_op((1, 2, 16, 8), kernel, stride, dilation)
    plan = plan_memory(g, 1000, 16)
    [stage] = plan.stages
    assert stage.strategy == "tiled"
    assert stage.tile is not None and stage.tile.halo == halo and stage.tile.chain == -1


def test_receptive_field_table_dw_plus_conv_in_a_plan() -> None:
    # 3x3 depthwise then 3x3 conv, 1x2x16x8 each (1024 bytes): one-op stages of 2048 > 1500,
    # linked (the depthwise output only feeds the conv): one chain, RF 5, halo 4.
    # Rows of a tile with output rows [s, e): conv out e - s, dw out one more each side, x two
    # more, clamped to [0, 16), 64 bytes each; the bound (every tile interior) would be
    # 2h + 6 rows for stage 0, but from h = 8 there are two tiles, both at an edge:
    #   h = 10: tile [0, 10): dw [0, 11), x [0, 12): stage 0 11 + 12 = 23 rows = 1472 <= 1500
    #           (tile [10, 16): dw [9, 16), x [8, 16): 15 rows);
    #   h = 11: tile [0, 11): 12 + 13 = 25 rows = 1600 > 1500 -> tile_h 10, 2 tiles.
    dw, shape = conv_text((1, 2, 16, 8), 3, op="tgr.depthwise_conv", name="%d")
    conv, out = conv_text(shape, 3, name="%c", src="%d")
    body = f"{dw}\n  {conv}\n  func.return %c : {t(out)}"
    g = graph(f"func.func @main(%x: {t((1, 2, 16, 8))}) -> {t(out)} {{\n  {body}\n}}")
    plan = plan_memory(g, 1500, 16, cuts="greedy")
    assert [s.strategy for s in plan.stages] == ["chain", "chain"]
    tile = plan.stages[0].tile
    assert tile is not None
    assert (tile.halo, tile.tile_h, tile.num_tiles, tile.peak, tile.chain) == (4, 10, 2, 1472, 0)
    # The shortest path fuses the two ops into one stage with row caches: x (read by the
    # depthwise) and dw (read by the conv) keep their rows in slots across the tiles. tile_h 6:
    # tile 0: c [0, 6), dw [0, 7), x [0, 8); tile 1: c [6, 12), dw [5, 13) (new [7, 13)),
    # x [6, 14) (new [8, 14)); tile 2: c [12, 16), dw [11, 16), x [12, 16). Slots of 8 rows
    # each, 1024 bytes, plus c's 6-row band 384: 1408 <= 1500 (tile_h 7: slots of 9 rows, 1152,
    # plus 448: 1600). x is read once (16 rows; the chain reads [0, 12) and [8, 16): 20) and
    # nothing is recomputed (the chain recomputes dw's overlap).
    fused = plan_memory(g, 1500, 16)
    assert [(s.stage.first, s.stage.last, s.strategy) for s in fused.stages] == [(0, 1, "tiled")]
    tile = fused.stages[0].tile
    assert tile is not None
    assert (tile.halo, tile.tile_h, tile.num_tiles, tile.peak, tile.chain, tile.cache) == (4, 6, 3, 1408, -1, 1024)
    assert (fused.traffic.read, plan.traffic.read) == (16 * 64, 20 * 64)
    assert fused.halo_macs == 0 < plan.halo_macs


# -- row back-propagation: the spec's formula and band_rows ----------------------------------------
#
# Output rows [r0, r0 + n) of a window op (kernel k, stride s, dilation d, pad p) read input
# rows r0*s - p + j*d for j < k, i.e. from r0*s - p to (r0 + n - 1)*s - p + (k - 1)*d:
#     exact count = (n - 1) * s + (k - 1) * d + 1 = (n - 1) * s + eff_kernel      (input_rows)
# spec/tiling.md's chain formula is   n * s + (k - 1) * d  = exact + (s - 1):
# the same at stride 1, one row per extra stride step more otherwise (it counts the gap
# after the last window). band_rows uses the exact count (clamped to the tensor's H), so its
# bands are never larger than the spec's; bands.py's ranges have exactly these lengths.


def spec_rows(out: int, kernel: int, stride: int, dilation: int) -> int:
    return out * stride + (kernel - 1) * dilation


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
@pytest.mark.parametrize(
    ("kernel", "stride", "dilation"), [(3, 1, 1), (3, 2, 1), (5, 1, 1), (3, 1, 2), (2, 2, 1), (5, 3, 2)]
)
def test_input_rows_is_the_spec_formula_minus_stride_gap(
    n: int, kernel: int, stride: int, dilation: int
) -> None:
    g = one_op((1, 1, 64, 1), kernel, stride, dilation)
    step = g.steps[0]
    exact = input_rows(step, n, g.tensors[0])
    assert exact == (n - 1) * stride + (kernel - 1) * dilation + 1
    assert spec_rows(n, kernel, stride, dilation) - exact == stride - 1
    # and it is what the exact ranges of an interior band need
    r0 = 5
    assert band_ranges(g, [make_stage(g, 0, 0, 0, 1)], (r0, r0 + n))[0] == (
        r0 * stride - step.window.pad_begin,  # type: ignore[union-attr]
        r0 * stride - step.window.pad_begin + exact,  # type: ignore[union-attr]
    )


STRIDE_CHAIN = """
func.func @main(%x: tensor<1x1x64x4xf32>) -> tensor<1x1x32x4xf32> {
  %w = tgr.weight dense<1.0> : tensor<1x1x3x3xf32>
  %c1 = tgr.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x64x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x64x4xf32>
  %c2 = tgr.conv %c1, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x64x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x32x4xf32>
  %c3 = tgr.conv %c2, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x32x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x32x4xf32>
  func.return %c3 : tensor<1x1x32x4xf32>
}
"""


def test_chain_back_propagation_worked_example() -> None:
    # conv3x3 s1 -> conv3x3 s2 -> conv3x3 s1, output tile of 4 rows (H large: no clamping).
    #   c3: 4
    #   c2 (read by conv3, s1): exact (4 - 1) * 1 + 3 = 6      spec 4 * 1 + 2 = 6
    #   c1 (read by conv2, s2): exact (6 - 1) * 2 + 3 = 13     spec 6 * 2 + 2 = 14
    #   x  (read by conv1, s1): exact (13 - 1) * 1 + 3 = 15    spec 14 * 1 + 2 = 16
    g = graph(STRIDE_CHAIN)
    x, c1, c2, c3 = 0, 1, 2, 3
    stages = [make_stage(g, i, i, i, 1) for i in range(3)]
    assert all(chain_links(g, a, b) for a, b in zip(stages, stages[1:]))
    rows = chain_rows(g, stages, 4)
    assert rows[2] == {c3: 4, c2: 6}
    assert rows[1] == {c2: 6, c1: 13}
    assert rows[0] == {c1: 13, x: 15}
    spec = [4]
    for stride in (1, 2, 1):
        spec.append(spec_rows(spec[-1], 3, stride, 1))
    assert spec == [4, 6, 14, 16]
    # An interior tile's exact ranges have exactly these lengths: output rows [8, 12) of c3
    # read c2 [7, 13), which read c1 [13, 26), which read x [12, 27).
    ranges = band_ranges(g, stages, (8, 12))
    assert ranges == {c3: (8, 12), c2: (7, 13), c1: (13, 26), x: (12, 27)}
    # Near the edges the ranges are clamped (first tile) and so shorter than the bound.
    assert band_ranges(g, stages, (0, 4)) == {c3: (0, 4), c2: (0, 5), c1: (0, 10), x: (0, 11)}


def test_band_rows_clamps_to_the_tensor_height() -> None:
    # Same chain, output tile 31 of 32 rows: c2 min(33, 32) = 32, c1 min((32 - 1) * 2 + 3, 64) = 64,
    # x min(66, 64) = 64.
    g = graph(STRIDE_CHAIN)
    stages = [make_stage(g, i, i, i, 1) for i in range(3)]
    rows = chain_rows(g, stages, 31)
    assert (rows[2][2], rows[1][1], rows[0][0]) == (32, 64, 64)


# -- lifetimes ---------------------------------------------------------------------------------------


def test_lifetimes_diamond() -> None:
    # tensors x, a, b, c, d; steps a 0, b 1, c 2, d 3
    # x [-1, 0]; a used by b, c -> [0, 2]; b, c used by d -> [1, 3], [2, 3]; d output -> [3, 3]
    g = graph(DIAMOND)
    assert lifetimes(g) == [Lifetime(-1, 0), Lifetime(0, 2), Lifetime(1, 3), Lifetime(2, 3), Lifetime(3, 3)]


def test_lifetimes_residual() -> None:
    # tensors x, c1, c2, y; x is read by c1 (0) and by the skip add (2) -> [-1, 2]
    g = graph(RESIDUAL)
    assert lifetimes(g) == [Lifetime(-1, 2), Lifetime(0, 1), Lifetime(1, 2), Lifetime(2, 2)]
    assert [s.name for s in g.steps] == ["tgr.conv", "tgr.conv", "tgr.add"]  # weights are not steps


# -- memory timeline -------------------------------------------------------------------------------


def test_timeline_with_align_padding() -> None:
    # f32 1x1x3x3 = 36 bytes per tensor; the diamond's live sets per step:
    #   {x, a}, {a, b}, {a, b, c}, {b, c, d}
    #   align 4:  72, 72, 108, 108  -> peak 108 at step 2
    #   align 32: 36 -> 64: 128, 128, 192, 192 -> peak 192 at step 2
    #   align 64: same 64 per tensor: 192
    #   align 128: 128 per tensor: 256, 256, 384, 384
    g = graph(DIAMOND.replace("1x1x4x4", "1x1x3x3"))
    assert g.tensors[0].nbytes == 36
    expected = {
        4: (72, 72, 108, 108),
        32: (128, 128, 192, 192),
        64: (128, 128, 192, 192),
        128: (256, 256, 384, 384),
    }
    for align, live in expected.items():
        tl = timeline(g, align)
        assert tl.live == live
        assert (tl.peak, tl.peak_step) == (max(live), 2)


def test_timeline_residual_keeps_the_skip_input_alive() -> None:
    # f32 1x2x4x4 = 128 bytes: {x, c1} 256, {x, c1, c2} 384, {x, c2, y} 384 -> peak 384 at step 1
    tl = timeline(graph(RESIDUAL), 32)
    assert (tl.live, tl.peak, tl.peak_step) == ((256, 384, 384), 384, 1)


def test_align_up() -> None:
    assert [align_up(n, 32) for n in (0, 1, 31, 32, 33, 100)] == [0, 32, 32, 32, 64, 128]
    assert align_up(36, 1) == 36


# -- temporal partition -----------------------------------------------------------------------------


def stages_of(g: PlanGraph, budget: int, align: int) -> list[tuple[int, int, int, list[int], list[int]]]:
    return [(s.first, s.last, s.peak, s.inputs, s.outputs) for s in partition_temporal(g, budget, align)]


def test_temporal_partition_diamond() -> None:
    # 64 bytes per tensor (1x1x4x4 f32). Budget 150:
    #   [0, 1]: {x, a} 128, {a, b} 128 (a, b spilled); adding c: {a, b, c} 192 > 150 -> cut
    #   [2, 2]: {a, c} 128; adding d: {b, c, d} 192 > 150 -> cut
    #   [3, 3]: {b, c, d} 192, over the budget but alone
    g = graph(DIAMOND)
    three = [(0, 1, 128, [0], [1, 2]), (2, 2, 128, [1], [3]), (3, 3, 192, [2, 3], [4])]
    assert stages_of(g, 150, 32) == three
    # Budget 192 (the whole-model peak): one stage.
    assert stages_of(g, 192, 32) == [(0, 3, 192, [0], [4])]
    # Budget 191: [0, 1] as above; [2, 3]: {a, c} 128, {b, c, d} 192 > 191 -> cut before d.
    assert stages_of(g, 191, 32) == three
    # Budget 127: every op alone is 128 (x+a, a+b, a+c... each step holds two tensors at
    # least) -> one stage per op; a is spilled once and reloaded by both b and c.
    assert stages_of(g, 127, 32) == [
        (0, 0, 128, [0], [1]),
        (1, 1, 128, [1], [2]),
        (2, 2, 128, [1], [3]),
        (3, 3, 192, [2, 3], [4]),
    ]


def test_temporal_partition_residual() -> None:
    # 128 bytes per tensor. Budget 300: [0, 1] {x, c1} 256, {c1, c2} 256 (x is not kept:
    # its other use is in a later stage, which reloads it); adding y makes x live across
    # step 1: 384 > 300 -> cut. [2, 2] {x, c2, y} = 384 alone.
    g = graph(RESIDUAL)
    assert stages_of(g, 300, 32) == [(0, 1, 256, [0], [2]), (2, 2, 384, [0, 2], [3])]
    assert stages_of(g, 384, 32) == [(0, 2, 384, [0], [3])]


# -- minimum budget ------------------------------------------------------------------------------------


def test_minimum_budget_one_conv() -> None:
    # 3x3 conv (pads 1) on 1x2x8x8: 512 bytes per tensor, 64 per row, 8 per pixel.
    # Untiled the op needs 512 + 512 = 1024; tiled to one-row bands it needs
    # 3 input rows + 1 output row = 192 + 64 = 256 (align 16); as 1 x 1 tiles it needs
    # 3 x 3 input pixels + 1 output pixel = 72 -> 80 + 8 -> 16 = 96.
    g = one_op((1, 2, 8, 8), 3)
    assert minimum_budget(g, 16) == 96
    # align 256: every band rounds up to 256: strips and 1 x 1 tiles both 512 (untiled 1024)
    assert minimum_budget(g, 256) == 512
    # at 256 full-width one-row strips fit (peak 256): they are preferred to 2-D tiles
    plan = plan_memory(g, 256, 16)
    tile = plan.stages[0].tile
    assert plan.overflow == 0 and tile is not None and (tile.tile_h, tile.num_tiles, tile.peak) == (1, 8, 256)
    assert not tile.is_2d
    # one byte less: 2-D tiles. The widest tiles that fit 255 for each tile height h tried (the
    # smallest giving each number of row bands: 1 2 3 4 8), the input E(h) x E(w) pixels and the
    # output h x w, E(t) the most input indices a tile of t outputs reads along an axis of 8:
    # t + 2 with an interior tile (3+ tiles), max(t + 1, 9 - t) with two tiles, 8 with one
    # (E(1..8) = 3 4 5 5 6 7 8 8); each tensor aligned to 16: h 1 -> w 6 (168 -> 176 + 48),
    # h 2 -> w 4 (160 + 64 = 224), h 3 -> w 2 (160 + 48), h 4 -> w 2 (160 + 64); h 8 needs
    # 192 + 64 = 256. Slow-memory reads (input rows summed over row bands x columns over column
    # bands x 8; sums 22 14 12 10 for t = 1 2 3 4, 10 for t = 6): h1 w6 22 x 10; h2 w4 14 x 10 =
    # 140; h3 w2 12 x 14; h4 w2 10 x 14 = 140, a tie with h 2 on reads and on tiles (4 x 2 = 2 x 4):
    # the first, h 2, is kept.
    low = plan_memory(g, 255, 16)
    tile = low.stages[0].tile
    assert low.overflow == 0 and low.stages[0].strategy == "tiled" and tile is not None
    assert (tile.tile_h, tile.num_tiles, tile.tile_w, tile.num_tiles_w, tile.halo_w, tile.out_w, tile.peak) == (
        2, 4, 4, 2, 2, 8, 224)
    assert low.traffic.read == 14 * 10 * 8 and low.traffic.written == 512
    # below 96 nothing fits: the stage runs untiled and overflows by its whole excess
    lowest = plan_memory(g, 95, 16)
    assert lowest.stages[0].strategy == "normal" and lowest.overflow == 1024 - 95


CONV_CHAIN = """
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c3 = tgr.conv %c2, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  func.return %c3 : tensor<1x2x8x8xf32>
}
"""


def test_minimum_budget_conv_chain_and_the_chain_fallback() -> None:
    # Three 3x3 convs on 1x2x8x8 (64 bytes per row), one-op stages of 1024, all linked.
    # Each conv alone at one-row bands: 3 + 1 rows = 256; in 2-D tiles 96.
    # The chain's one-row band is larger: the last conv's 1 row needs 3 rows of c2, 5 of c1,
    # 7 of x; stage 0 holds c1 5 + x 7 = 12 rows = 768. Below 768 the planner tiles the
    # stages one by one (each fits); at 768 the chain of all three fits, but a chain of the
    # first two plus the third alone moves fewer bytes (chain_runs regroups the run).
    g = graph(CONV_CHAIN)
    assert minimum_budget(g, 16) == 96  # each conv alone in 1 x 1 tiles (test_minimum_budget_one_conv)
    assert smallest_fitting_budget(g, 16) == 96
    # alone: tile_h = max(1, floor(budget * 8 / 1024) - 2); band (tile_h + 2) + tile_h rows
    for budget, tile_h, peak in [(256, 1, 256), (600, 2, 384), (767, 3, 512)]:
        plan = plan_memory(g, budget, 16, cuts="greedy")
        assert plan.overflow == 0
        tiles = [(s.strategy, s.tile.tile_h, s.tile.peak, s.tile.chain) for s in plan.stages if s.tile]
        assert tiles == [("tiled", tile_h, peak, -1)] * 3
    # 768, the chain of all three: h = 1 (768; h = 2 needs c1 6 + x 8 rows = 896): c3 row r reads
    # x rows [r - 3, r + 4) clamped, 4 + 5 + 6 + 7 + 7 + 6 + 5 + 4 = 44 rows = 2816 read, c3 512
    # written: 3328 bytes. Chain [c1, c2] at h = 4: tile [0, 4) holds c1 [0, 5) and x [0, 6),
    # 11 rows = 704 (h = 5: 6 + 7 = 13 rows = 832 > 768), 2 tiles reading 6 + 6 rows of x (768)
    # and writing c2 (512); c3 alone: tile_h = floor(768 * 8 / 1024) - 2 = 4, a band of c2 5
    # rows + c3 4 = 576, 2 tiles reading 5 + 5 rows of c2 (640), writing c3 (512): 2432 bytes.
    plan = plan_memory(g, 768, 16, cuts="greedy")
    tiles = [(s.strategy, s.tile.tile_h, s.tile.peak, s.tile.halo) for s in plan.stages if s.tile]
    assert tiles == [("chain", 4, 704, 4)] * 2 + [("tiled", 4, 576, 2)]
    assert (plan.traffic.written, plan.traffic.read) == (1024, 1408)


def test_minimum_budget_untileable_op() -> None:
    # flatten is structural: it needs its whole input and output, 512 + 512.
    g = graph(
        "func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x128xf32> {\n"
        "  %f = tgr.flatten %x : (tensor<1x2x8x8xf32>) -> tensor<1x128xf32>\n"
        "  func.return %f : tensor<1x128xf32>\n}"
    )
    assert minimum_budget(g, 16) == 1024


# -- spatial tile height -----------------------------------------------------------------------------


def test_spatial_tile_height_formula_then_lowered() -> None:
    # 3x3 conv on 1x2x8x8 (64 bytes per row), stage peak 1024, halo 2.
    # budget 600: formula floor(600 * 8 / 1024) - 2 = 2; band 4 + 2 rows = 384 <= 600.
    g = one_op((1, 2, 8, 8), 3)
    stage = make_stage(g, 0, 0, 0, 16)
    tile = plan_spatial(g, stage, 600, 16)
    assert tile is not None and (tile.tile_h, tile.num_tiles, tile.halo, tile.peak) == (2, 4, 2, 384)
    # The spec's estimate: tiled_peak ~ peak * (tile_h + halo) / H = 1024 * 4 / 8 = 512 >= 384.
    assert tile.peak <= 1024 * (tile.tile_h + tile.halo) / 8
    # budget 900, align 256: formula floor(900 * 8 / 1024) - 2 = 5; band(5) = 7 rows (448 -> 512)
    # + 5 rows (320 -> 512) = 1024 > 900; band(4) = 6 rows (384 -> 512) + 4 rows (256) = 768.
    tile = plan_spatial(g, make_stage(g, 0, 0, 0, 256), 900, 256)
    assert tile is not None and (tile.tile_h, tile.num_tiles, tile.peak) == (4, 2, 768)


def test_tileability_rules() -> None:
    # two spatial ops in a stage: tileable (a fused stage) in output rows, not in 2-D tiles;
    # one spatial op plus pointwise: tileable both ways
    g = graph(RESIDUAL)
    assert is_tileable(g, make_stage(g, 0, 0, 1, 16)) and not is_tileable_2d(g, make_stage(g, 0, 0, 1, 16))
    assert is_tileable(g, make_stage(g, 0, 1, 2, 16)) and is_tileable_2d(g, make_stage(g, 0, 1, 2, 16))
    assert is_tileable(g, make_stage(g, 0, 0, 0, 16))
    # the whole residual block as one stage: 1 output row needs c2 1, c1 3 (the second conv),
    # x 5 (the first conv; the add's own row is inside that), clamped to its 4 rows
    assert band_rows(g, make_stage(g, 0, 0, 2, 16), 1) == {3: 1, 2: 1, 1: 3, 0: 4}
    # the residual's stage 1 -> 2 does not link: stage 2 also reads x
    s0, s1, s2 = (make_stage(g, i, i, i, 16) for i in range(3))
    assert chain_links(g, s0, s1) and not chain_links(g, s1, s2)
    # band rows of the tileable stage [1, 2] (conv, add) for 1 output row: y 1, c2 1,
    # x 1 (the add), c1 3 (the conv)
    assert band_rows(g, make_stage(g, 0, 1, 2, 16), 1) == {3: 1, 2: 1, 0: 1, 1: 3}


def test_tile_ranges_single_conv() -> None:
    # 3x3 conv, pads 1, H 8, tile_h 3: outputs [0,3) [3,6) [6,8); inputs [s - 1, e + 1)
    # clamped: [0,4) [2,7) [5,8). Consecutive inputs overlap by eff_kernel - stride = 2 rows.
    g = one_op((1, 2, 8, 8), 3)
    tiles = tile_ranges(g, [make_stage(g, 0, 0, 0, 16)], 3)
    assert [r[1] for r in tiles] == [(0, 3), (3, 6), (6, 8)]
    assert [r[0] for r in tiles] == [(0, 4), (2, 7), (5, 8)]
    assert math.ceil(8 / 3) == len(tiles)


# -- reduction tiles --------------------------------------------------------------------------------


def gap_graph(op: str = "tgr.global_avg_pool", element: str = "f32") -> PlanGraph:
    x, y = (1, 8, 10, 10), (1, 8, 1, 1)
    return graph(
        f"func.func @main(%x: {t(x, element)}) -> {t(y, element)} {{\n"
        f"  %g = {op} %x : ({t(x, element)}) -> {t(y, element)}\n"
        f"  func.return %g : {t(y, element)}\n}}"
    )


def test_reduction_tiles_height_and_peak() -> None:
    # GAP on 1x8x10x10 f32: a row of the input is 8 * 10 * 4 = 320 bytes, the output 32 bytes,
    # the accumulator 8 channels x (sum, compensation) x 4 = 64 bytes. Untiled: 3200 + 32.
    # A tile of r rows: 320r + 32 + 64 (align 16). Budget 1000: r = 2 (736); r = 3 is 1056.
    g = gap_graph()
    assert g.steps[0].acc_bytes == 64
    plan = plan_memory(g, 1000, 16)
    tile = plan.stages[0].tile
    assert plan.overflow == 0 and plan.stages[0].strategy == "tiled"
    assert tile is not None and (tile.tile_h, tile.num_tiles, tile.halo, tile.out_h, tile.peak, tile.acc) == (
        2, 5, 0, 10, 736, 64)
    # the input is read once whatever the tile height, the output written once
    assert (plan.traffic.read, plan.traffic.written) == (3200, 32)
    # one-row tiles: 320 + 96 = 416; below it one-row tiles of c columns, 32c + 96: at 415,
    # c = 9 (384), 2 tiles a row (one row tall: the sum keeps its row-major order)
    assert plan_memory(g, 416, 16).stages[0].tile.tile_h == 1  # type: ignore[union-attr]
    assert plan_memory(g, 416, 16).stages[0].tile.tile_w == 0  # type: ignore[union-attr]
    cols = plan_memory(g, 415, 16).stages[0].tile
    assert cols is not None and (cols.tile_h, cols.num_tiles, cols.tile_w, cols.num_tiles_w, cols.out_w, cols.peak) == (
        1, 10, 9, 2, 10, 384)
    # one-pixel tiles: 32 + 96 = 128; below it channel blocks (test_reduction_tiles_in_channel_blocks)
    assert plan_memory(g, 128, 16).stages[0].tile.tile_c == 0  # type: ignore[union-attr]


def test_reduction_tiles_in_channel_blocks() -> None:
    # The same GAP at budget 100 (align 16): one pixel (8 channels x 4 = 32 bytes) + output 32 +
    # the whole accumulator 64 = 128 > 100. Blocks of b channels keep 8b accumulator bytes:
    # 32 + 32 + align(8b) <= 100 -> b = 4 (96), 2 blocks; at b = 4 a row (320 + 64) does not fit,
    # one column does: 1 x 1 tiles, 10 a row. Each block reads the whole input: 2 x 3200.
    g = gap_graph()
    plan = plan_memory(g, 100, 16)
    tile = plan.stages[0].tile
    assert plan.overflow == 0 and tile is not None
    assert (tile.tile_c, tile.num_tiles_c, tile.acc, tile.peak) == (4, 2, 32, 96)
    assert (tile.tile_h, tile.num_tiles, tile.tile_w, tile.num_tiles_w, tile.out_w) == (1, 10, 1, 10, 10)
    assert (plan.traffic.read, plan.traffic.written) == (6400, 32)
    # the smallest arena: one pixel, output, one channel's accumulator (8 -> 16): 80, where
    # blocks of 2 channels (16 bytes) fit as well: the fewest blocks, 4
    assert minimum_budget(g, 16) == 80
    small = plan_memory(g, 80, 16).stages[0].tile
    assert small is not None and (small.tile_c, small.num_tiles_c, small.peak) == (2, 4, 80)
    low = plan_memory(g, 79, 16)
    assert low.stages[0].strategy == "normal" and low.overflow == 3232 - 79


def test_reduction_tiles_accumulator_per_kind() -> None:
    # max pooling keeps one float per channel; int8 keeps an int32 per channel, both kinds
    assert gap_graph("tgr.global_max_pool").steps[0].acc_bytes == 8 * 4
    q = "!tgr.quant<i8, 0.5:3>"
    assert gap_graph(element=q).steps[0].acc_bytes == 8 * 4
    assert gap_graph("tgr.global_max_pool", q).steps[0].acc_bytes == 8 * 4
    # int8 at budget 300, align 16: a row is 80 bytes, output 8 -> 16, acc 32: 3 rows = 288
    tile = plan_memory(gap_graph(element=q), 300, 16).stages[0].tile
    assert tile is not None and (tile.tile_h, tile.num_tiles, tile.peak) == (3, 4, 288)


def test_reduction_tiles_only_for_a_lone_accumulating_op() -> None:
    # a stage that is not one global pooling op gets no reduction tiles: here a flatten
    # (structural) over budget stays normal, and a GAP over a one-row map has nothing to cut
    g = graph(
        "func.func @main(%x: tensor<1x8x1x10xf32>) -> tensor<1x8x1x1xf32> {\n"
        "  %g = tgr.global_avg_pool %x : (tensor<1x8x1x10xf32>) -> tensor<1x8x1x1xf32>\n"
        "  func.return %g : tensor<1x8x1x1xf32>\n}"
    )
    assert plan_memory(g, 100, 16).stages[0].strategy == "normal"
