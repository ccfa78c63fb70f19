"""Exact row ranges of every tensor for each tile: where traffic and halo recompute come from.

`band_rows` (tiling.py) bounds a band's size for memory; here the ranges themselves are
propagated backwards (a window maps output rows [s, e) to input rows
[s*stride - pad, (e-1)*stride - pad + eff_kernel), clamped to the tensor), so the
first tile starts at row 0, the last ends at H, and overlaps are the halo.
"""

from __future__ import annotations

from tigris.transforms.plan.geometry import Axis, Range, extent, input_range
from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.temporal import Stage, span_key


def band_ranges(graph: PlanGraph, stages: list[Stage], out: Range, axis: Axis = Axis.H) -> dict[int, Range]:
    """Row (column, along W) range of every tensor the stages touch, for output rows `out` of
    the last stage."""
    ranges: dict[int, Range] = {t: out for t in stages[-1].outputs}
    for stage in reversed(stages):
        for step in reversed(graph.steps[stage.first : stage.last + 1]):
            produced = [ranges[o] for o in step.outputs if o in ranges]
            if not produced:
                continue
            r_out = (min(r[0] for r in produced), max(r[1] for r in produced))
            for i in step.inputs:
                r_in = input_range(step, axis, r_out, graph.tensors[i])
                old = ranges.get(i)
                ranges[i] = r_in if old is None else (min(old[0], r_in[0]), max(old[1], r_in[1]))
    return ranges


def tile_ranges(graph: PlanGraph, stages: list[Stage], tile_h: int) -> list[dict[int, Range]]:
    """Per tile, the row range of every tensor, tiles covering the output rows in order."""
    return axis_tile_ranges(graph, stages, tile_h, Axis.H)


def axis_tile_ranges(graph: PlanGraph, stages: list[Stage], size: int, axis: Axis) -> list[dict[int, Range]]:
    """Per band of `size` output rows (columns) along `axis`, the range of every tensor. A 2-D
    tile's window is the product of its row band's and its column band's ranges."""
    total = extent(graph.tensors[stages[-1].outputs[0]], axis)
    return [band_ranges(graph, stages, (s, min(s + size, total)), axis) for s in range(0, total, size)]


def group_tile_ranges(graph: PlanGraph, stages: list[Stage], tile_h: int, reduces: bool) -> list[dict[int, Range]]:
    """`tile_ranges`, or for reduction tiles (a lone global pooling) the input's rows per tile,
    each output whole."""
    if not reduces:
        return tile_ranges(graph, stages, tile_h)
    step = graph.steps[stages[0].last]
    height = graph.tensors[step.inputs[0]].height
    outputs = {t: (0, graph.tensors[t].height) for t in step.outputs}
    return [{step.inputs[0]: (s, min(s + tile_h, height)), **outputs} for s in range(0, height, tile_h)]


def distinct_extents(graph: PlanGraph, stages: list[Stage], size: int, axis: Axis) -> list[dict[int, int]]:
    """The different per-tensor extents (end - start) among the bands of `size` outputs along
    `axis` (`axis_tile_ranges`): what a band's memory depends on. A handful per call (edge and
    interior bands), remembered on the graph: the planner's searches ask for the same stage and
    size many times (every column width tried with one tile height)."""
    key = ("distinct_extents", span_key(stages), size, int(axis))
    found = graph.memo.get(key)
    if found is None:
        seen: dict[tuple[tuple[int, int], ...], dict[int, int]] = {}
        for band in axis_tile_ranges(graph, stages, size, axis):
            extents = {t: end - start for t, (start, end) in band.items()}
            seen.setdefault(tuple(sorted(extents.items())), extents)
        found = graph.memo[key] = list(seen.values())
    return found  # type: ignore[return-value]
