"""Live memory step by step and the tile bands: the data behind `tigris analyze --plot`.

The figures need series the text report does not print: the bytes live in the arena
at every step, once for the whole model held at once (no partitioning) and once as the
plan runs it (stage by stage, a tiled stage one band at a time), and, per tiled stage
or chain, the rows each tile reads and writes. They come from the planner's own
functions (`timeline`, `group_band_sizes`, `group_tile_ranges`) applied to the plan the
report describes (`planned`: tigris-plan, read back from the IR), so the curve peaks
exactly at the scheduled peaks the report prints. Kept apart from plot.py so they can
be computed and tested without matplotlib.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tigris.dialects.tgr.attributes import Strategy
from tigris.tools.report.analysis import planned
from tigris.transforms.plan.bands import group_tile_ranges
from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.memory import align_up, timeline
from tigris.transforms.plan.planner import Plan, StagePlan, groups
from tigris.transforms.plan.tiling import group_band_sizes

Rows = tuple[int, int]


@dataclass(frozen=True)
class StageSpan:
    index: int
    first: int  # steps first..last, inclusive
    last: int
    strategy: Strategy
    chain: int  # the chain's id; -1 unless chained
    scheduled_peak: int


@dataclass(frozen=True)
class Spill:
    """A tensor written to slow memory for a later stage (model outputs are not spills)."""

    step: int  # the last step of the stage (or chain) that writes it
    tensor: str
    nbytes: int


@dataclass(frozen=True)
class TileBand:
    out_rows: Rows  # [start, end) of the group's output
    in_rows: Rows  # [start, end) of its input: wider by the halo


@dataclass(frozen=True)
class TiledGroup:
    """One tiled stage, or one chain of stages sharing a tile plan."""

    stages: tuple[int, ...]
    strategy: Strategy  # tiled or chain
    tile_h: int
    halo: int
    input_name: str
    input_height: int
    output_name: str
    output_height: int
    bands: tuple[TileBand, ...]

    @property
    def label(self) -> str:
        first, last = self.stages[0], self.stages[-1]
        return f"stage {first}" if first == last else f"stages {first}-{last} (chain)"


@dataclass(frozen=True)
class MemoryProfile:
    model: str
    budget: int
    align: int
    steps: tuple[str, ...]  # op names, in execution order
    unscheduled: tuple[int, ...]  # bytes live per step, whole model, no partitioning
    planned: tuple[int, ...]  # bytes live per step as the plan runs it (a tiled stage: one band)
    stages: tuple[StageSpan, ...]
    spills: tuple[Spill, ...]
    tiled: tuple[TiledGroup, ...]

    @property
    def scheduled_peak(self) -> int:
        return max(self.planned, default=0)

    @property
    def unscheduled_peak(self) -> int:
        return max(self.unscheduled, default=0)


def memory_profile(
    module: ModuleOp, model: str, budget: int, align: int, max_recompute: float = 10.0, cuts: str = "shortest"
) -> MemoryProfile:
    """The profile of a normalized (`tgr`) module planned at `budget` as `tigris analyze` plans it
    (`max_recompute` percent, `cuts`); the module is left as it is."""
    _, plan = planned(module, budget, align, max_recompute, cuts)
    graph = plan.graph
    return MemoryProfile(
        model=model,
        budget=budget,
        align=align,
        steps=tuple(s.name for s in graph.steps),
        unscheduled=timeline(graph, align).live,
        planned=tuple(live for run in groups(plan) for live in _group_live(plan, run)),
        stages=tuple(
            StageSpan(sp.stage.index, sp.stage.first, sp.stage.last, sp.strategy,
                      sp.tile.chain if sp.tile is not None else -1, sp.scheduled_peak)
            for sp in plan.stages
        ),
        spills=tuple(_spills(plan)),
        tiled=tuple(_tiled_group(graph, run) for run in groups(plan) if run[0].tile is not None),
    )


def _group_live(plan: Plan, run: list[StagePlan]) -> list[int]:
    """Bytes live per step of one stage group; a tiled group's tensors cut to one band."""
    graph, tile = plan.graph, run[0].tile
    stages = [sp.stage for sp in run]
    sizes_per_stage: list[dict[int, int] | None] = [None]
    if tile is not None:
        sizes_per_stage = list(group_band_sizes(graph, stages, tile, plan.align))
    acc = align_up(tile.acc, plan.align) + tile.cache if tile is not None else 0
    live: list[int] = []
    for stage, sizes in zip(stages, sizes_per_stage):
        live += [bytes_ + acc for bytes_ in timeline(graph, plan.align, stage.first, stage.last, sizes).live]
    return live


def _spills(plan: Plan) -> list[Spill]:
    graph = plan.graph
    out = []
    for run in groups(plan):
        last = run[-1].stage
        for t in (graph.tensors[i] for i in last.outputs):
            if not t.is_output:
                out.append(Spill(last.last, t.name, t.nbytes))
    return out


def _tiled_group(graph: PlanGraph, run: list[StagePlan]) -> TiledGroup:
    tile = run[0].tile
    assert tile is not None
    stages = [sp.stage for sp in run]
    out_t = graph.tensors[stages[-1].outputs[0]]
    in_t = max((graph.tensors[i] for i in stages[0].inputs), key=lambda t: t.height, default=out_t)
    bands = tuple(
        TileBand(r[out_t.index], r.get(in_t.index, r[out_t.index]))
        for r in group_tile_ranges(graph, stages, tile.tile_h, tile.reduces)
    )
    return TiledGroup(
        tuple(s.index for s in stages), run[0].strategy, tile.tile_h, tile.halo,
        in_t.name, in_t.height, out_t.name, out_t.height, bands,
    )
