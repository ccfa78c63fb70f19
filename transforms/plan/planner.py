"""The whole memory plan: stages, their strategies, and the figures `tigris analyze` reports.

Strategy per stage, simplest first (spec/tiling.md): a stage within the budget runs
normally; consecutive over-budget stages that link (see `chain_links`) are chain-tiled
if the chain's bands fit the budget; any other over-budget tileable stage is spatially
tiled if its bands fit; the rest run normally and overflow to slow memory. A tile plan
is never larger than the budget: the runtime refuses tiles that do not fit its arena
(TIGRIS_EXEC_ERR_TILE) but lets a normal stage overflow, so a stage whose one-row bands
exceed the budget falls back to normal execution (spec/tiling.md: "fall back to normal
execution with slow-memory overflow").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tigris.dialects.tgr.attributes import Strategy
from tigris.transforms.plan.geometry import Axis, has_axis
from tigris.transforms.plan.graph import PlanGraph, PlanStep
from tigris.transforms.plan.memory import align_up, timeline
from tigris.transforms.plan.temporal import Stage, make_stage, partition_temporal
from tigris.transforms.plan.tiling import (
    TilePlan, chain_links, is_tileable, plan_chain, plan_reduction, plan_spatial, tiles_peak,
    computed_elements, is_tileable_2d, reduction_peak, reduction_step, tile_peak_2d, tile_reads,
)


@dataclass
class StagePlan:
    stage: Stage
    strategy: Strategy
    tile: TilePlan | None = None

    @property
    def scheduled_peak(self) -> int:
        return self.tile.peak if self.tile is not None else self.stage.peak


@dataclass
class Traffic:
    written: int = 0  # bytes spilled fast -> slow
    read: int = 0  # bytes loaded slow -> fast


@dataclass
class Plan:
    graph: PlanGraph
    budget: int
    align: int
    stages: list[StagePlan]
    unscheduled_peak: int
    peak_step: int
    traffic: Traffic = field(default_factory=Traffic)
    halo_macs: int = 0

    @property
    def scheduled_peak(self) -> int:
        return max((s.scheduled_peak for s in self.stages), default=0)

    @property
    def overflow(self) -> int:
        return max(0, self.scheduled_peak - self.budget)

    @property
    def chains(self) -> int:
        return len({s.tile.chain for s in self.stages if s.tile is not None and s.tile.chain >= 0})


def plan_memory(graph: PlanGraph, budget: int, align: int) -> Plan:
    whole = timeline(graph, align)
    stages = partition_temporal(graph, budget, align)
    plans = assign_strategies(graph, stages, budget, align)
    plan = Plan(graph, budget, align, plans, whole.peak, whole.peak_step)
    measure(plan)
    return plan


def assign_strategies(
    graph: PlanGraph, stages: list[Stage], budget: int, align: int, chains: bool = True
) -> list[StagePlan]:
    plans = [StagePlan(s, Strategy.NORMAL) for s in stages]
    chain_id = 0
    i = 0
    while i < len(stages):
        if stages[i].peak <= budget:
            i += 1
            continue
        j = i
        while chains and j + 1 < len(stages) and stages[j + 1].peak > budget and chain_links(graph, stages[j], stages[j + 1]):
            j += 1
        chain = plan_chain(graph, stages[i : j + 1], budget, align, chain_id) if j > i else None
        if chain is not None and chain.peak <= budget:
            chain_id += 1
            for k in range(i, j + 1):
                plans[k] = StagePlan(stages[k], Strategy.CHAIN, chain)
        else:
            plans[i : j + 1] = [_spatial_or_normal(graph, stages[k], budget, align) for k in range(i, j + 1)]
        i = j + 1
    return plans


def _spatial_or_normal(graph: PlanGraph, stage: Stage, budget: int, align: int) -> StagePlan:
    """An over-budget stage: tiled (output-row bands, or reduction tiles over the input of a
    global pooling) if its bands fit the budget, else normal (it overflows)."""
    tile = plan_spatial(graph, stage, budget, align) or plan_reduction(graph, stage, budget, align)
    if tile is not None and tile.peak <= budget:
        return StagePlan(stage, Strategy.TILED, tile)
    return StagePlan(stage, Strategy.NORMAL)


def groups(plan: Plan) -> list[list[StagePlan]]:
    """Stages as the runtime runs them: each chain is one group, every other stage its own."""
    out: list[list[StagePlan]] = []
    for sp in plan.stages:
        chained = sp.strategy is Strategy.CHAIN
        if out and chained and out[-1][0].strategy is Strategy.CHAIN and out[-1][0].tile == sp.tile:
            out[-1].append(sp)
        else:
            out.append([sp])
    return out


def measure(plan: Plan) -> None:
    """Slow-memory traffic per inference and MACs recomputed in halos."""
    g = plan.graph
    for group in groups(plan):
        stages = [sp.stage for sp in group]
        first, last = stages[0], stages[-1]
        plan.traffic.written += sum(g.tensors[t].nbytes for t in last.outputs)
        tile = group[0].tile
        if tile is None or tile.reduces:  # reduction tiles read each input row once a channel block
            plan.traffic.read += sum(g.tensors[t].nbytes for t in first.inputs) * (tile.num_tiles_c if tile else 1)
            continue
        plan.traffic.read += tile_reads(g, stages, tile)
        for step, (computed, total) in computed_elements(g, stages, tile).items():
            if computed > total and total:
                plan.halo_macs += g.steps[step].macs * (computed - total) // total


def total_macs(graph: PlanGraph) -> int:
    return sum(s.macs for s in graph.steps)


def op_needs(graph: PlanGraph, align: int) -> list[int]:
    """Per step, the smallest arena in which that op runs on its own, tiled to one-row bands (of
    its output, or of its input for a reduction) or 1 x 1 tiles (of its output, or of its
    input for a reduction, in blocks of one channel) where it can be."""
    needs = []
    for step in graph.steps:
        stage = make_stage(graph, 0, step.index, step.index, align)
        need = stage.peak
        if is_tileable(graph, stage):
            need = min(need, tiles_peak(graph, [stage], 1, align))
        if is_tileable_2d(graph, stage):
            need = min(need, tile_peak_2d(graph, stage, 1, 1, align))
        if reduction_step(graph, stage) is not None:
            one_pixel = 1 if has_axis(graph.tensors[step.inputs[0]], Axis.W) else None
            need = min(need, reduction_peak(graph, stage, step, 1, align, one_pixel, channels=1))
        needs.append(need)
    return needs


def minimum_budget(graph: PlanGraph, align: int) -> int:
    """The smallest arena in which every single op runs (`op_needs`): below it, even the best plan
    cannot hold an op's inputs and outputs."""
    return max(op_needs(graph, align), default=0)


def minimum_budget_step(graph: PlanGraph, align: int) -> PlanStep | None:
    """The op that sets `minimum_budget` (the first of the largest need), None without ops: the
    one a user has to change (or the planner to tile further) for a smaller arena."""
    needs = op_needs(graph, align)
    return graph.steps[needs.index(max(needs))] if needs else None


def smallest_fitting_budget(graph: PlanGraph, align: int) -> int:
    """The smallest budget (to the alignment) at which the plan needs no slow-memory overflow."""
    low, high = minimum_budget(graph, align), max(timeline(graph, align).peak, align)
    if plan_memory(graph, low, align).overflow == 0:
        return low
    while high - low > align:
        mid = align_up((low + high) // 2, align)
        if mid >= high:
            break
        if plan_memory(graph, mid, align).overflow == 0:
            high = mid
        else:
            low = mid
    return high
