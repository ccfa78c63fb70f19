"""The whole memory plan: stages, their strategies, and the figures `tigris analyze` reports.

Stages are cut by shortest path (`cuts.py`: the partition moving the fewest bytes to and from
slow memory), or by the spec's greedy (`temporal.py`); `plan_memory` says how the two are weighed.

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

from dataclasses import dataclass, field, replace

from tigris.dialects.tgr.attributes import Strategy
from tigris.transforms.plan.geometry import Axis, has_axis
from tigris.transforms.plan.graph import PlanGraph, PlanStep
from tigris.transforms.plan.memory import align_up, timeline
from tigris.transforms.plan.chain_runs import MAX_CHAIN, best_grouping, linked_runs
from tigris.transforms.plan.cuts import MAX_RECOMPUTE, fitting_tile, group_traffic, shortest_path_stages
from tigris.transforms.plan.temporal import Stage, make_stage, partition_temporal
from tigris.transforms.plan.tiling import (
    TilePlan, chain_links, is_tileable, plan_chain, tiles_peak, recompute_macs, recomputed_rows, is_tileable_2d, reduction_peak,
    reduction_step, tile_peak_2d, feature_block_peak, feature_block_step,
)


CUTS = ("shortest", "greedy")
"""How the planner cuts stages: the least slow-memory traffic (`cuts.shortest_path_stages`,
compared with the greedy's partition), or the spec's greedy (`temporal.partition_temporal`)."""


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


def plan_memory(
    graph: PlanGraph, budget: int, align: int, cuts: str = "shortest", max_recompute: float = MAX_RECOMPUTE
) -> Plan:
    """The plan at `budget`. With `cuts="shortest"`, the greedy's partition and the shortest
    path's (`cuts.py`), with fused stages (also with fused stages that recompute nothing: row
    caches only) and without, are planned (strategies, chains) and measured, and the best is
    kept: no overflow first, then the least slow-memory traffic, the least halo recompute, the
    fewest stages; the greedy's on a tie, and whenever the other recomputes more than
    `max_recompute` (a fraction, default `MAX_RECOMPUTE`) of the model's MACs beyond what the
    greedy's plan recomputes (`--max-recompute PCT`). The shortest path moves no more bytes
    than the greedy before chains (`cuts.py`), but chains may favour any of the partitions, so
    only comparing them guarantees the plan never moves more than the greedy's, nor more than
    the shortest path's without fused stages (the planner before them). The greedy's chains are
    edges of the search too, with their measured traffic. A partition whose chains recompute
    beyond the bound is planned again without chains (each over-budget stage on its own tiles)."""
    if cuts not in CUTS:
        raise ValueError(f"cuts={cuts!r}: expected one of {', '.join(CUTS)}")
    if not 0 <= max_recompute:
        raise ValueError(f"max_recompute={max_recompute!r}: expected a fraction >= 0")
    whole = timeline(graph, align)

    allowance = int(max_recompute * total_macs(graph))

    def planned(stages: list[Stage], chains: bool = True) -> Plan:
        plans = assign_strategies(graph, stages, budget, align, chains, recompute_allowance=allowance,
                                  max_recompute=max_recompute)
        plan = Plan(graph, budget, align, plans, whole.peak, whole.peak_step)
        measure(plan)
        return plan

    greedy = partition_temporal(graph, budget, align)
    best = planned(greedy)
    greedy_halo = best.halo_macs
    if cuts == "shortest":
        chains = _chain_groups(best)
        seen = [_spans(greedy)]
        for fused, bound in ((True, max_recompute), (True, 0.0), (False, max_recompute)):
            shortest = shortest_path_stages(graph, budget, align, greedy, chains, bound, fused)
            if _spans(shortest) in seen:
                continue
            seen.append(_spans(shortest))
            other = planned(shortest)
            bound_macs = greedy_halo + max_recompute * total_macs(graph)
            if other.halo_macs > bound_macs:
                # its chains recompute too much (a chain's halos can dwarf what its stages'
                # own tiles, row caches, recompute): every stage on its own tiles instead
                other = planned(shortest, chains=False)
            if other.halo_macs <= bound_macs:
                best = min(best, other, key=_preference)
    return best


def _spans(stages: list[Stage]) -> list[tuple[int, int]]:
    return [(s.first, s.last) for s in stages]


def _chain_groups(plan: Plan) -> list[tuple[list[Stage], int]]:
    """The plan's chains and every run of two or more of their consecutive stages whose chain
    fits, each with the slow-memory bytes it moves: edges of the cut search (a path may leave a
    chain early, for a cheaper stage after it). The sub-chains are the ones `chain_runs`
    weighed, remembered on the graph."""
    found = []
    for group in groups(plan):
        if group[0].strategy is not Strategy.CHAIN:
            continue
        stages = [sp.stage for sp in group]
        found.append((stages, sum(group_traffic(plan.graph, stages, group[0].tile))))
        for a in range(len(stages)):
            for b in range(a + 1, min(len(stages), a + MAX_CHAIN)):
                if (a, b) == (0, len(stages) - 1):
                    continue
                tile = _chain(plan.graph, stages[a : b + 1], plan.budget, plan.align, 0)
                if tile.peak <= plan.budget:
                    found.append((stages[a : b + 1], sum(group_traffic(plan.graph, stages[a : b + 1], tile))))
    return found


def _preference(plan: Plan) -> tuple[int, int, int, int]:
    return (plan.overflow, plan.traffic.written + plan.traffic.read, plan.halo_macs, len(plan.stages))


def partition(
    graph: PlanGraph, budget: int, align: int, cuts: str = "shortest", max_recompute: float = MAX_RECOMPUTE
) -> list[Stage]:
    """The stages `plan_memory` plans at `budget` (partition-temporal writes them)."""
    return [sp.stage for sp in plan_memory(graph, budget, align, cuts, max_recompute).stages]


def assign_strategies(
    graph: PlanGraph, stages: list[Stage], budget: int, align: int, chains: bool = True,
    recompute_allowance: int | None = None, max_recompute: float = MAX_RECOMPUTE,
) -> list[StagePlan]:
    """Each stage's strategy: over-budget stages linked in a row share a chain when its bands
    fit, other over-budget stages are tiled alone where they can be. With a
    `recompute_allowance` (halo MACs), runs of linked stages are then regrouped for the least
    slow traffic, chaining stages that fit untiled too (`chain_runs`). `max_recompute` bounds a
    fused stage's own recompute (`cuts.fitting_tile`)."""
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
        chain = _chain(graph, stages[i : j + 1], budget, align, chain_id) if j > i else None
        if chain is not None and chain.peak <= budget:
            chain_id += 1
            for k in range(i, j + 1):
                plans[k] = StagePlan(stages[k], Strategy.CHAIN, chain)
        else:
            plans[i : j + 1] = [_spatial_or_normal(graph, stages[k], budget, align, max_recompute) for k in range(i, j + 1)]
        i = j + 1
    if chains and recompute_allowance is not None:
        plans = _chain_fitting_runs(graph, plans, budget, align, recompute_allowance, max_recompute)
    return plans


def _chain_fitting_runs(
    graph: PlanGraph, plans: list[StagePlan], budget: int, align: int, allowance: int, max_recompute: float
) -> list[StagePlan]:
    """Regroup every run of linked stages by `chain_runs.best_grouping` (chains may now hold
    stages that fit untiled), then number the chains in order."""
    stages = [sp.stage for sp in plans]
    out = list(plans)
    for i, j in linked_runs(graph, stages):
        run = stages[i : j + 1]

        def single(k: int) -> tuple[Strategy, TilePlan | None]:
            stage = run[k]
            if stage.peak <= budget:
                return Strategy.NORMAL, None
            own = _spatial_or_normal(graph, stage, budget, align, max_recompute)
            return own.strategy, own.tile

        def chain(a: int, b: int) -> TilePlan | None:
            tile = _chain(graph, run[a : b + 1], budget, align, 0)
            return tile if tile.peak <= budget else None

        current, k = [], 0
        while k < len(run):  # the run's groups as assign_strategies left them
            end = k
            while plans[i + k].strategy is Strategy.CHAIN and end + 1 < len(run) and plans[i + end + 1].tile is plans[i + k].tile:
                end += 1
            current.append((k, end))
            k = end + 1
        for a, b in best_grouping(graph, run, single, chain, allowance, current):
            if a == b:
                strategy, tile = single(a)
                out[i + a] = StagePlan(run[a], strategy, tile)
            else:
                tile = chain(a, b)
                out[i + a : i + b + 1] = [StagePlan(run[k], Strategy.CHAIN, tile) for k in range(a, b + 1)]
    chain_id, numbered, seen = 0, [], {}
    for sp in out:
        if sp.strategy is Strategy.CHAIN and sp.tile is not None:
            key = id(sp.tile)
            if key not in seen:
                seen[key] = replace(sp.tile, chain=chain_id)
                chain_id += 1
            sp = StagePlan(sp.stage, Strategy.CHAIN, seen[key])
        numbered.append(sp)
    return numbered


def _chain(graph: PlanGraph, stages: list[Stage], budget: int, align: int, chain_id: int) -> TilePlan:
    """`tiling.plan_chain`, remembered on the graph per (stages, budget, align): both partitions
    `plan_memory` compares often hold the same chains."""
    key = ("chain", tuple((s.first, s.last) for s in stages), budget, align)
    if key not in graph.memo:
        graph.memo[key] = plan_chain(graph, stages, budget, align, 0)
    return replace(graph.memo[key], chain=chain_id)  # type: ignore[type-var]


def _spatial_or_normal(
    graph: PlanGraph, stage: Stage, budget: int, align: int, max_recompute: float = MAX_RECOMPUTE
) -> StagePlan:
    """An over-budget stage: tiled (output-row bands, or reduction tiles over the input of a
    global pooling) if its bands fit the budget, else normal (it overflows)."""
    tile = fitting_tile(graph, stage, budget, align, max_recompute)
    if tile is not None:
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
        tile = group[0].tile
        written, read = group_traffic(g, stages, tile)
        plan.traffic.written += written
        plan.traffic.read += read
        if tile is not None:
            plan.halo_macs += recompute_macs(g, stages, tile)


def recomputed_rows_of(plan: Plan) -> int:
    """Rows the plan's tiles compute more than once per inference (`tiling.recomputed_rows`):
    what the runtime's `--stats` reports as `recomputed_rows`. Asked by reports, not measured
    for every candidate plan."""
    return sum(recomputed_rows(plan.graph, [sp.stage for sp in group], group[0].tile)
               for group in groups(plan) if group[0].tile is not None)


def total_macs(graph: PlanGraph) -> int:
    return sum(s.macs for s in graph.steps)


def op_needs(graph: PlanGraph, align: int) -> list[int]:
    """Per step, the smallest arena in which that op runs on its own, tiled to one-row bands (of
    its output, or of its input for a reduction) or 1 x 1 tiles (of its output, or of its
    input for a reduction, in blocks of one channel), or one output feature from one input
    feature at a time (a dense op in reduction blocks), where it can be."""
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
        dense = feature_block_step(graph, stage)
        if dense is not None:
            need = min(need, feature_block_peak(graph, stage, dense, 1, align, inputs=1))
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
