"""partition-spatial and chain tiling (spec/tiling.md).

A stage is cut into horizontal bands of its output. `band_rows` walks the stage
backwards and says how many rows of every tensor one band of `tile_h` output rows
needs (spatial ops widen it by their window, resampling narrows it); a band's memory
is the stage's timeline with each tensor cut to those rows. The spec's formula picks
a first tile height, which is lowered until that computed peak really fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tigris.dialects.tgr.traits import TileKind, Window
from tigris.transforms.plan.graph import PlanGraph, PlanStep, PlanTensor
from tigris.transforms.plan.memory import timeline
from tigris.transforms.plan.temporal import Stage


@dataclass(frozen=True)
class TilePlan:
    tile_h: int
    num_tiles: int
    halo: int
    out_h: int
    peak: int  # computed peak of one band (of the whole chain, for chains)
    chain: int = -1


def receptive_field(windows: list[Window]) -> int:
    """spec/tiling.md: walk spatial ops in reverse, RF += (eff_kernel - 1) * cumulative stride."""
    rf, stride = 1, 1
    for w in reversed(windows):
        rf += (w.effective_kernel - 1) * stride
        stride *= w.stride
    return rf


def stage_windows(graph: PlanGraph, stages: list[Stage]) -> list[Window]:
    return [s.window for st in stages for s in graph.steps[st.first : st.last + 1] if s.window is not None]


def is_tileable(graph: PlanGraph, stage: Stage) -> bool:
    """No structural/dense op, at most one spatial op, and outputs that have rows to cut."""
    steps = graph.steps[stage.first : stage.last + 1]
    if any(not s.kind.tileable for s in steps) or sum(s.kind is TileKind.SPATIAL for s in steps) > 1:
        return False
    heights = {graph.tensors[t].height for t in stage.outputs}
    return len(heights) == 1 and heights.pop() > 1 and all(len(graph.tensors[t].shape) >= 3 for t in stage.outputs)


def input_rows(step: PlanStep, out_rows: int, tensor: PlanTensor) -> int:
    """Rows of `tensor` that `out_rows` output rows of `step` read."""
    if tensor.height == 1 or len(tensor.shape) < 3:
        return tensor.height
    if step.window is not None:
        need = (out_rows - 1) * step.window.stride + step.window.effective_kernel
    elif step.row_map is not None and step.op is not None:
        need = step.row_map.rows_needed(step.op, out_rows, tensor.height)
    else:
        need = out_rows
    return max(1, min(tensor.height, need))


def band_rows(graph: PlanGraph, stage: Stage, out_rows: int, demand: dict[int, int] | None = None) -> dict[int, int]:
    """Rows per tensor for one band; `demand` gives rows already required of stage outputs."""
    rows = {t: min(graph.tensors[t].height, out_rows) for t in stage.outputs}
    for t, r in (demand or {}).items():
        rows[t] = max(rows.get(t, 0), r)
    for step in reversed(graph.steps[stage.first : stage.last + 1]):
        produced = [rows[o] for o in step.outputs if o in rows]
        r_out = max(produced) if produced else out_rows
        for o in step.outputs:
            rows.setdefault(o, r_out)
        for i in step.inputs:
            rows[i] = max(rows.get(i, 0), input_rows(step, r_out, graph.tensors[i]))
    return rows


def band_peak(graph: PlanGraph, stage: Stage, rows: dict[int, int], align: int) -> int:
    sizes = {t: graph.tensors[t].row_bytes * r for t, r in rows.items()}
    return timeline(graph, align, stage.first, stage.last, sizes).peak


def out_height(graph: PlanGraph, stage: Stage) -> int:
    return graph.tensors[stage.outputs[0]].height


def plan_spatial(graph: PlanGraph, stage: Stage, budget: int, align: int) -> TilePlan | None:
    """The spec's tile height, lowered until the band fits; None if the stage is not tileable.
    If even one-row bands do not fit, the plan keeps tile_h 1 and its peak exceeds the
    budget: the planner then runs the stage normally instead (`planner.assign_strategies`)."""
    if not is_tileable(graph, stage):
        return None
    height = out_height(graph, stage)
    halo = receptive_field(stage_windows(graph, [stage])) - 1
    tile_h = min(height, max(1, budget * height // max(stage.peak, 1) - halo))
    peak = band_peak(graph, stage, band_rows(graph, stage, tile_h), align)
    while tile_h > 1 and peak > budget:
        tile_h -= 1
        peak = band_peak(graph, stage, band_rows(graph, stage, tile_h), align)
    return TilePlan(tile_h, math.ceil(height / tile_h), halo, height, peak)


def chain_links(graph: PlanGraph, a: Stage, b: Stage) -> bool:
    """spec/tiling.md chain detection: both tileable, `a` has one output, consumed only by `b`
    (no fan-out), which is `b`'s only input, and it is a feature map (has rows)."""
    if not (is_tileable(graph, a) and is_tileable(graph, b)) or len(a.outputs) != 1:
        return False
    t = graph.tensors[a.outputs[0]]
    inside_b = all(b.first <= c <= b.last for c in t.consumers)
    return inside_b and not t.is_output and b.inputs == [t.index] and len(t.shape) == 4 and t.height > 1


def chain_rows(graph: PlanGraph, stages: list[Stage], out_rows: int) -> list[dict[int, int]]:
    """Band rows for every stage of a chain, back-propagated from the last stage's output."""
    per_stage: list[dict[int, int]] = [{} for _ in stages]
    demand: dict[int, int] = {}
    rows_out = out_rows
    for k in reversed(range(len(stages))):
        rows = band_rows(graph, stages[k], rows_out, demand)
        per_stage[k] = rows
        if k > 0:
            link = stages[k - 1].outputs[0]
            demand = {link: rows[link]}
            rows_out = rows[link]
    return per_stage


def plan_chain(graph: PlanGraph, stages: list[Stage], budget: int, align: int, chain: int) -> TilePlan:
    """Largest output tile height whose bands fit in every stage of the chain (binary search)."""
    height = out_height(graph, stages[-1])

    def peak(rows_out: int) -> int:
        return max(band_peak(graph, st, r, align) for st, r in zip(stages, chain_rows(graph, stages, rows_out)))

    low, high = 1, height
    while low < high:
        mid = (low + high + 1) // 2
        if peak(mid) <= budget:
            low = mid
        else:
            high = mid - 1
    halo = receptive_field(stage_windows(graph, stages)) - 1
    return TilePlan(low, math.ceil(height / low), halo, height, peak(low), chain)
