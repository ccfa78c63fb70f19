"""Exact row ranges of every tensor for each tile: where traffic and halo recompute come from.

`band_rows` (tiling.py) bounds a band's size for memory; here the ranges themselves are
propagated backwards (a window maps output rows [s, e) to input rows
[s*stride - pad, (e-1)*stride - pad + eff_kernel), clamped to the tensor), so the
first tile starts at row 0, the last ends at H, and overlaps are the halo.
"""

from __future__ import annotations

from tigris.transforms.plan.graph import PlanGraph, PlanStep, PlanTensor
from tigris.transforms.plan.temporal import Stage

Range = tuple[int, int]


def _input_range(step: PlanStep, out: Range, tensor: PlanTensor) -> Range:
    if tensor.height == 1 or len(tensor.shape) < 3:
        return (0, tensor.height)
    start, end = out
    if step.window is not None:
        w = step.window
        start, end = start * w.stride - w.pad_begin, (end - 1) * w.stride - w.pad_begin + w.effective_kernel
    elif step.row_map is not None and step.op is not None:
        return step.row_map.input_range(step.op, start, end, tensor.height)
    start, end = max(0, start), min(tensor.height, end)
    return (min(start, tensor.height - 1), max(end, min(start, tensor.height - 1) + 1))


def band_ranges(graph: PlanGraph, stages: list[Stage], out: Range) -> dict[int, Range]:
    """Row range of every tensor the stages touch, for output rows `out` of the last stage."""
    ranges: dict[int, Range] = {t: out for t in stages[-1].outputs}
    for stage in reversed(stages):
        for step in reversed(graph.steps[stage.first : stage.last + 1]):
            produced = [ranges[o] for o in step.outputs if o in ranges]
            if not produced:
                continue
            r_out = (min(r[0] for r in produced), max(r[1] for r in produced))
            for i in step.inputs:
                r_in = _input_range(step, r_out, graph.tensors[i])
                old = ranges.get(i)
                ranges[i] = r_in if old is None else (min(old[0], r_in[0]), max(old[1], r_in[1]))
    return ranges


def tile_ranges(graph: PlanGraph, stages: list[Stage], tile_h: int) -> list[dict[int, Range]]:
    """Per tile, the row range of every tensor, tiles covering the output rows in order."""
    height = graph.tensors[stages[-1].outputs[0]].height
    return [band_ranges(graph, stages, (s, min(s + tile_h, height))) for s in range(0, height, tile_h)]
