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
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.temporal import make_stage
from tigris.transforms.plan.tiling import band_rows, is_tileable




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
