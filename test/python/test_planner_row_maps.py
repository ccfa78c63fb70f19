"""Row mappings of non-window ops (pad, resize) and concat along H in the planner.

Each case is a bug the property tests found, pinned with ranges computed by hand.
"""

from __future__ import annotations

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects import make_context
from tigris.dialects.tgr.traits import TileKind
from tigris.transforms.plan.bands import band_ranges
from tigris.transforms.plan.geometry import Axis, input_extent, input_range
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.temporal import make_stage
from tigris.transforms.plan.tiling import (band_rows, is_tileable, is_tileable_2d, plan_spatial, tile_peak_2d,
                                           tiles_peak)




CTX = make_context()


def graph(body: str, args: str, result: str) -> PlanGraph:
    text = f"func.func @main({args}) -> {result} {{\n{body}\n}}"
    return build_plan_graph(Parser(CTX, text).parse_module())


def test_pad_along_h_shifts_rows_by_the_top_pad() -> None:
    # 8 rows padded 3 on top and 1 below -> 12 rows; output row r is input row r - 3.
    g = graph(
        "  %y = tgr.pad %x {pads = array<i64: 0, 0, 3, 0, 0, 0, 1, 0>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x12x8xf32>\n"
        "  func.return %y : tensor<1x2x12x8xf32>",
        "%x: tensor<1x2x8x8xf32>",
        "tensor<1x2x12x8xf32>",
    )
    stage = make_stage(g, 0, 0, 0, 16)
    assert band_ranges(g, [stage], (5, 10))[0] == (2, 7)  # rows 5..9 read input rows 2..6
    assert band_ranges(g, [stage], (10, 12))[0] == (7, 8)  # row 10 is input row 7, row 11 bottom pad
    assert band_ranges(g, [stage], (0, 3))[0][1] - band_ranges(g, [stage], (0, 3))[0][0] == 1  # all top pad


def test_linear_resize_reads_the_row_before_and_after() -> None:
    # x2 linear (half_pixel): output row i samples (i + 0.5) / 2 - 0.5, i.e. rows floor(.) and +1:
    # rows 8..15 sample 3.75 .. 7.25 -> input rows 3..7 (clamped at 7).
    g = graph(
        "  %y = tgr.resize %x {scales = array<i64: 1, 1, 2, 1>, mode = \"linear\"} : (tensor<1x2x8x4xf32>) -> tensor<1x2x16x4xf32>\n"
        "  func.return %y : tensor<1x2x16x4xf32>",
        "%x: tensor<1x2x8x4xf32>",
        "tensor<1x2x16x4xf32>",
    )
    stage = make_stage(g, 0, 0, 0, 16)
    assert band_ranges(g, [stage], (8, 16))[0] == (3, 8)
    assert band_ranges(g, [stage], (4, 8))[0] == (1, 5)  # 1.75 .. 3.25 blend rows 1..4
    # a band of 4 rows reads at most ceil(4 / 2) + 2 = 4 input rows (interior tiles read 4)
    assert band_rows(g, stage, 4)[0] == 4


def test_nearest_resize_reads_exactly_the_replicated_rows() -> None:
    g = graph(
        "  %y = tgr.resize %x {scales = array<i64: 1, 1, 2, 1>} : (tensor<1x2x8x4xf32>) -> tensor<1x2x16x4xf32>\n"
        "  func.return %y : tensor<1x2x16x4xf32>",
        "%x: tensor<1x2x8x4xf32>",
        "tensor<1x2x16x4xf32>",
    )
    stage = make_stage(g, 0, 0, 0, 16)
    assert band_ranges(g, [stage], (5, 9))[0] == (2, 5)  # rows 5..8 copy input rows 2, 3, 3, 4


@pytest.mark.parametrize(("axis", "layout", "kind"), [(2, "nchw", TileKind.STRUCTURAL), (1, "nhwc", TileKind.STRUCTURAL),
                                                      (1, "nchw", TileKind.CHANNELWISE), (3, "nhwc", TileKind.CHANNELWISE)])
def test_concat_along_h_is_not_tileable(axis: int, layout: str, kind: TileKind) -> None:
    # NCHW axis 2 and NHWC axis 1 are both H: a band of the output is not a band of each input.
    out = "tensor<1x2x8x8xf32>" if axis in (2,) or (layout == "nhwc" and axis == 1) else "tensor<1x4x4x8xf32>"
    g = graph(
        f"  %y = tgr.concat %a, %b {{axis = {axis} : i64, layout = \"{layout}\"}} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> {out}\n"
        f"  func.return %y : {out}",
        "%a: tensor<1x2x4x8xf32>, %b: tensor<1x2x4x8xf32>",
        out,
    )
    assert g.steps[0].kind is kind
    assert is_tileable(g, make_stage(g, 0, 0, 0, 16)) == (kind is TileKind.CHANNELWISE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %x : tensor<2xf32>\n}", "needs a func.func @main"),
        ("func.func @main(%x: i32) -> i32 {\n  func.return %x : i32\n}", "'x' has type i32"),
        ("func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {\n  func.return %x : tensor<?x2xf32>\n}", "statically shaped"),
    ],
)
def test_unplannable_modules_are_pass_errors(text: str, message: str) -> None:
    with pytest.raises(PassFailedException, match=message):
        build_plan_graph(Parser(CTX, text).parse_module())


def _resize_then_relu(coord: str = "half_pixel") -> PlanGraph:
    """A x2 nearest resize of a 1x8x16x16 map feeding a relu: one stage, 32 x 32 output."""
    return graph(
        f"  %r = tgr.resize %x {{scales = array<i64: 1, 1, 2, 2>, coordinate_transformation_mode = \"{coord}\"}} : "
        "(tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>\n"
        "  %y = tgr.relu %r : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>\n"
        "  func.return %y : tensor<1x8x32x32xf32>",
        "%x: tensor<1x8x16x16xf32>",
        "tensor<1x8x32x32xf32>",
    )


def test_resize_columns_follow_the_row_rule() -> None:
    # along W as along H: nearest x2 reads [s // 2, ceil(e / 2)); linear one more each side
    g = _resize_then_relu()
    stage = make_stage(g, 0, 0, 1, 16)
    step = g.steps[0]
    x = g.tensors[step.inputs[0]]
    assert input_range(step, Axis.W, (5, 9), x) == (2, 5)
    assert input_range(step, Axis.W, (0, 1), x) == (0, 1)
    assert input_range(step, Axis.W, (31, 32), x) == (15, 16)
    assert input_extent(step, Axis.W, 5, x) == 4  # ceil(5 / 2) + 1: a band not aligned to 2
    assert band_rows(g, stage, 4, axis=Axis.W)[step.inputs[0]] == 3


def test_pad_columns_shift_by_the_left_pad() -> None:
    g = graph(
        "  %y = tgr.pad %x {pads = array<i64: 0, 0, 1, 3, 0, 0, 0, 2>} : "
        "(tensor<1x2x8x8xf32>) -> tensor<1x2x9x13xf32>\n"
        "  func.return %y : tensor<1x2x9x13xf32>",
        "%x: tensor<1x2x8x8xf32>",
        "tensor<1x2x9x13xf32>",
    )
    step, x = g.steps[0], g.tensors[g.steps[0].inputs[0]]
    assert input_range(step, Axis.W, (4, 7), x) == (1, 4)
    assert input_range(step, Axis.W, (0, 2), x) == (0, 1)  # all left pad: still one column
    assert input_range(step, Axis.W, (11, 13), x) == (7, 8)  # all right pad
    assert input_range(step, Axis.H, (4, 7), x) == (3, 6)  # rows: by the top pad


def test_stage_with_a_resize_is_cut_in_2d_when_one_row_does_not_fit() -> None:
    g = _resize_then_relu()
    stage = make_stage(g, 0, 0, 1, 16)
    assert is_tileable_2d(g, stage)
    one_row = tiles_peak(g, [stage], 1, 16)
    plan = plan_spatial(g, stage, one_row - 1, 16)
    assert plan is not None and plan.tile_w is not None and 0 < plan.tile_w < 32
    assert plan.peak <= one_row - 1
    assert plan.peak == tile_peak_2d(g, stage, plan.tile_h, plan.tile_w, 16)


def _pad(mode: str) -> PlanGraph:
    """A 1x2x8x8 map padded 2 on top, 3 left, 1 below and 2 right in `mode`: 11 x 13."""
    return graph(
        f"  %y = tgr.pad %x {{pads = array<i64: 0, 0, 2, 3, 0, 0, 1, 2>, mode = \"{mode}\"}} : "
        "(tensor<1x2x8x8xf32>) -> tensor<1x2x11x13xf32>\n"
        "  func.return %y : tensor<1x2x11x13xf32>",
        "%x: tensor<1x2x8x8xf32>",
        "tensor<1x2x11x13xf32>",
    )


@pytest.mark.parametrize(
    ("mode", "cols", "rows"),
    [
        # columns [0, 2) are kept indices -3, -2: reflect reads their mirror 3, 2; edge clamps to 0;
        # columns [11, 13) are 8, 9: reflect reads 6, 5, edge 7; rows [0, 1) are -2: rows 2 and 0
        ("reflect", {(0, 2): (2, 4), (0, 5): (0, 4), (11, 13): (5, 7), (2, 6): (0, 3)}, {(0, 1): (2, 3)}),
        ("edge", {(0, 2): (0, 1), (0, 5): (0, 2), (11, 13): (7, 8), (2, 6): (0, 3)}, {(0, 1): (0, 1)}),
        ("constant", {(0, 2): (0, 1), (0, 5): (0, 2), (11, 13): (7, 8), (2, 6): (0, 3)}, {(0, 1): (0, 1)}),
    ],
)
def test_reflect_and_edge_pads_read_what_fills_their_padding(
    mode: str, cols: dict[tuple[int, int], tuple[int, int]], rows: dict[tuple[int, int], tuple[int, int]]
) -> None:
    # the band's input is the hull of the indices its pixels copy, the padding's included (it
    # used to be the shifted range alone: an edge band of a reflect pad missed its mirror)
    g = _pad(mode)
    step, x = g.steps[0], g.tensors[g.steps[0].inputs[0]]
    assert {out: input_range(step, Axis.W, out, x) for out in cols} == cols
    assert {out: input_range(step, Axis.H, out, x) for out in rows} == rows
    assert is_tileable_2d(g, make_stage(g, 0, 0, 0, 16))
    for count in range(1, 14):  # the planner's band sizes bound every band's
        ranges = [input_range(step, Axis.W, (s, s + count), x) for s in range(14 - count)]
        most = max(b - a for a, b in ranges)
        assert most <= input_extent(step, Axis.W, count, x)


def test_align_corners_resize_reads_its_own_coordinates() -> None:
    # x4 linear align_corners of 10 rows: output row j samples j * 9 / 39, so rows 38, 39 blend
    # input rows 8, 9 (8.77) and 9; the half_pixel rule would start at row 9 (38.5 / 4 - 0.5)
    g = graph(
        "  %y = tgr.resize %x {scales = array<i64: 1, 1, 4, 4>, mode = \"linear\", "
        "coordinate_transformation_mode = \"align_corners\"} : "
        "(tensor<1x1x10x10xf32>) -> tensor<1x1x40x40xf32>\n"
        "  func.return %y : tensor<1x1x40x40xf32>",
        "%x: tensor<1x1x10x10xf32>",
        "tensor<1x1x40x40xf32>",
    )
    step, x = g.steps[0], g.tensors[g.steps[0].inputs[0]]
    for axis in (Axis.H, Axis.W):
        assert input_range(step, axis, (38, 40), x) == (8, 10)
        assert input_range(step, axis, (0, 5), x) == (0, 2)  # 0 .. 0.92: rows 0 and 1
    assert is_tileable_2d(g, make_stage(g, 0, 0, 0, 16))
