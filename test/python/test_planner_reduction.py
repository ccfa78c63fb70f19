"""Reduction tiles on random global poolings (hypothesis, derandomized).

Checked against references recomputed here from the shapes, not from the planner's helpers:
  - the tiles cut the pooled input's rows [0, H) into consecutive bands, each row exactly once;
  - a tile's arena (its input band, the whole output and the accumulator, each aligned) is the
    plan's band peak, which is <= the budget whenever the plan reports no overflow;
  - the tile height is the largest that fits (one more row would not); if not even one row
    fits, tiles of one row and the most columns that fit (one more column would not), which
    cover the columns exactly; if not even one pixel fits beside the whole accumulator, blocks
    of the most channels whose accumulator fits (one more would not), read once a block;
  - the input is read once (once a channel block) and the output written once;
  - no overflow exactly from `minimum_budget` up.
The accumulator per (batch, channel) is the runtime kernels' (float32 average: a Kahan sum and
its compensation, 8 bytes; float32 max and every int8 kind: 4 bytes).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.transforms.plan.bands import group_tile_ranges
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.planner import minimum_budget, plan_memory

CTX = make_context()
SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=250,
                    suppress_health_check=[HealthCheck.too_slow])


def aligned(size: int, align: int) -> int:
    return -(-size // align) * align


def pooling(op: str, shape: tuple[int, int, int, int], int8: bool) -> PlanGraph:
    element = "!tgr.quant<i8, 0.5:3>" if int8 else "f32"
    n, c = shape[:2]
    x = f"tensor<{'x'.join(map(str, shape))}x{element}>"
    y = f"tensor<{n}x{c}x1x1x{element}>"
    module = Parser(CTX, f"func.func @main(%x: {x}) -> {y} {{\n  %g = {op} %x : ({x}) -> {y}\n"
                         f"  func.return %g : {y}\n}}").parse_module()
    module.verify()
    return build_plan_graph(module)


CASES = st.tuples(
    st.sampled_from(["tgr.global_avg_pool", "tgr.global_max_pool"]),
    st.tuples(st.integers(1, 2), st.integers(1, 24), st.integers(2, 40), st.integers(1, 12)),
    st.booleans(),
    st.sampled_from([1, 4, 16, 32]),
    st.one_of(st.floats(0.0, 1.2), st.floats(0.0, 0.06)),  # small budgets: column tiles, channel blocks
)


@SETTINGS
@given(CASES)
def test_reduction_tiles_cover_fit_and_read_once(case: tuple[str, tuple[int, int, int, int], bool, int, float]) -> None:
    op, (n, c, h, w), int8, align, fraction = case
    g = pooling(op, (n, c, h, w), int8)
    elem = 1 if int8 else 4
    per_channel = 8 if (op == "tgr.global_avg_pool" and not int8) else 4
    acc, row, out = n * c * per_channel, n * c * w * elem, n * c * elem
    assert g.steps[0].acc_bytes == acc

    def tile_bytes(rows: int, cols: int = w, block: int = c) -> int:
        return aligned(rows * row // w * cols, align) + aligned(out, align) + aligned(n * block * per_channel, align)

    untiled = aligned(h * row, align) + aligned(out, align)
    assert minimum_budget(g, align) == min(untiled, tile_bytes(1, 1, 1))
    budget = max(1, int(fraction * untiled))
    plan = plan_memory(g, budget, align)
    assert (plan.overflow == 0) == (budget >= minimum_budget(g, align))
    tile = plan.stages[0].tile
    blocks = tile.num_tiles_c if tile is not None else 1
    assert (plan.traffic.read, plan.traffic.written) == (h * row * blocks, out)
    if budget >= untiled:
        assert tile is None
        return
    if tile is None:  # even one-pixel tiles of one channel do not fit: the stage runs whole and overflows
        assert tile_bytes(1, 1, 1) > budget and plan.overflow == untiled - budget
        return
    block = tile.tile_c or c
    assert tile.acc == n * block * per_channel and tile.out_h == h and tile.halo == 0 and tile.chain == -1
    if tile.tile_c:  # not even one pixel fits beside the whole accumulator: the most channels that do
        assert tile_bytes(1, 1) > budget and tile_bytes(1, 1, block) <= budget < tile_bytes(1, 1, block + 1)
        assert (blocks - 1) * block < c <= blocks * block
    else:
        assert blocks == 1
    if tile.is_2d:  # one row does not fit: one-row tiles of columns
        assert tile_bytes(1, w, block) > budget and (tile.tile_h, tile.num_tiles, tile.out_w, tile.halo_w) == (1, h, w, 0)
        assert tile.peak == tile_bytes(1, tile.tile_w, block) <= budget
        assert tile.tile_w < w and tile_bytes(1, tile.tile_w + 1, block) > budget
        assert (tile.num_tiles_w - 1) * tile.tile_w < w <= tile.num_tiles_w * tile.tile_w
    else:
        assert tile.peak == tile_bytes(tile.tile_h, w, block) <= budget
        assert tile.tile_h == h or tile_bytes(tile.tile_h + 1, w, block) > budget
    bands = group_tile_ranges(g, [plan.stages[0].stage], tile.tile_h, reduces=True)
    assert len(bands) == tile.num_tiles
    rows = [r for band in bands for r in range(*band[0])]
    assert rows == list(range(h))
    assert all(band[1] == (0, 1) for band in bands)
