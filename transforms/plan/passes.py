"""The planning passes: each runs an analysis and writes typed `tgr.*` attributes.

    annotate-lifetimes        op: tgr.step, tgr.lifetime       (model inputs: in arg_attrs)
    memory-timeline{align}    @main: tgr.memory
    partition-temporal{..}    op: tgr.stage; @main: tgr.stages = [#tgr.stage<...>] (cuts=shortest|greedy)
    partition-spatial{..}     tile plans on over-budget tileable stages
    tile-chains{..}           chains of linked over-budget stages share one tile plan

Tensors in `#tgr.stage` inputs/outputs are numbered as the planner sees them: model
inputs first, then each op's results in program order. The attributes hold the whole plan
(strategies, tile plans with their band peaks); `written_plan` reads them back as a `Plan`
(the figures the runtime's statistics must match) without planning anything again.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntAttr, IntegerAttr, ModuleOp, NoneAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects.tgr.attributes import LifetimeAttr, MemoryAttr, StageAttr, Strategy, StrategyAttr, TilePlanAttr
from tigris.dialects.tgr.plan_attrs import MEMORY, STAGE, STAGES, MissingPlanError, stored_plan
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph, main_func
from tigris.transforms.plan.memory import lifetimes, timeline
from tigris.transforms.plan.planner import (
    CUTS, MAX_RECOMPUTE, Plan, StagePlan, assign_strategies, measure, partition, total_macs,
)
from tigris.transforms.plan.tiling import TilePlan
from tigris.transforms.plan.temporal import Stage, make_stage

DEFAULT_ALIGN = 32
"""The largest TIGRIS_TENSOR_ALIGN of spec/memory-model.md (x86_64): safe on every target."""


def _check(budget: int, align: int) -> None:
    if budget < 1:
        raise PassFailedException("the planning passes need budget=<bytes> (> 0)")
    if align < 1 or align & (align - 1):
        raise PassFailedException(f"align={align} is not a power of two")


@dataclass(frozen=True)
class AnnotateLifetimesPass(ModulePass):
    name = "annotate-lifetimes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graph = build_plan_graph(op)
        spans = lifetimes(graph)
        func = main_func(op)
        arg_attrs = []
        for t in graph.tensors:
            attr = LifetimeAttr(IntAttr(spans[t.index].birth), IntAttr(spans[t.index].death))
            if t.producer < 0:
                old = func.arg_attrs.data[t.index].data if func.arg_attrs else {}
                arg_attrs.append(DictionaryAttr({**old, "tgr.lifetime": attr}))
            else:
                step = graph.steps[t.producer]
                assert step.op is not None
                step.op.attributes["tgr.step"] = IntegerAttr(t.producer, i64)
                if t.index == step.outputs[0]:
                    step.op.attributes["tgr.lifetime"] = attr
        if arg_attrs:
            func.arg_attrs = ArrayAttr(arg_attrs)


@dataclass(frozen=True)
class MemoryTimelinePass(ModulePass):
    name = "memory-timeline"
    align: int = DEFAULT_ALIGN

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check(1, self.align)
        result = timeline(build_plan_graph(op), self.align)
        main_func(op).attributes[MEMORY] = MemoryAttr(IntAttr(result.peak), IntAttr(result.peak_step), IntAttr(self.align))


def plan_align(func: FuncOp) -> int:
    """The tensor alignment the plan was made with (memory-timeline records it)."""
    memory = stored_plan(func).memory
    return memory.align.data if memory is not None else DEFAULT_ALIGN


_TILE_FIELDS = TilePlanAttr._field_names()  # noqa: SLF001 (the attribute's own list)
"""The fields of the planner's `TilePlan` and of `#tgr.tile_plan`, in the attribute's order."""


def _tile_attr(tile: TilePlan) -> TilePlanAttr:
    return TilePlanAttr(*(IntAttr(getattr(tile, f)) for f in _TILE_FIELDS))


def _stage_attr(stage: Stage, plan: StagePlan | None = None) -> StageAttr:
    tile = plan.tile if plan is not None else None
    return StageAttr(
        IntAttr(stage.index),
        IntAttr(stage.first),
        IntAttr(stage.last),
        IntAttr(stage.peak),
        DenseArrayBase.from_list(i64, stage.inputs),
        DenseArrayBase.from_list(i64, stage.outputs),
        StrategyAttr(plan.strategy if plan is not None else Strategy.NORMAL),
        _tile_attr(tile) if tile is not None else NoneAttr(),
    )


def write_stages(module: ModuleOp, graph: PlanGraph, stages: list[Stage], plans: list[StagePlan] | None = None) -> None:
    for stage in stages:
        for step in graph.steps[stage.first : stage.last + 1]:
            assert step.op is not None
            step.op.attributes[STAGE] = IntegerAttr(stage.index, i64)
    attrs = [_stage_attr(s, plans[i] if plans else None) for i, s in enumerate(stages)]
    main_func(module).attributes[STAGES] = ArrayAttr(attrs)


def _stored_stages(module: ModuleOp) -> tuple[StageAttr, ...]:
    try:
        return stored_plan(main_func(module)).stages
    except MissingPlanError:
        raise PassFailedException("run partition-temporal first: @main has no tgr.stages") from None


def read_stages(module: ModuleOp, graph: PlanGraph, align: int) -> list[Stage]:
    """The stages partition-temporal cut, measured again at `align` (for re-planning them)."""
    return [
        make_stage(graph, a.index.data, a.first_step.data, a.last_step.data, align) for a in _stored_stages(module)
    ]


def _stage_plan(attr: StageAttr) -> StagePlan:
    """One `#tgr.stage` as the planner's `StagePlan`, every figure as stored."""
    stage = Stage(attr.index.data, attr.first_step.data, attr.last_step.data, attr.peak.data,
                  list(attr.input_tensors), list(attr.output_tensors))  # fmt: skip
    tile = attr.tile_plan
    if tile is None:
        return StagePlan(stage, attr.strategy.data)
    return StagePlan(stage, attr.strategy.data, TilePlan(**{f: getattr(tile, f).data for f in _TILE_FIELDS}))


def written_plan(module: ModuleOp) -> Plan:
    """The plan the passes wrote into `module` (`tgr.stages`, `tgr.memory`; the budget from
    tigris-compile's `tgr.budget`, else 0), as the `Plan` the reports' figures come from.
    Unlike planning again at a budget, this is the plan a `.tgrs` of the module runs, also
    when tigris-compile re-planned it for LZ4: what the runtime's statistics must match.
    Every figure is read as stored; only the traffic and halo figures are measured on it."""
    func = main_func(module)
    stored = stored_plan(func)
    if stored.memory is None:
        raise MissingPlanError("@main has no tgr.memory: run tigris-plan first")
    memory = stored.memory
    plans = [_stage_plan(attr) for attr in stored.stages]
    graph = build_plan_graph(module)
    plan = Plan(graph, stored.budget or 0, memory.align.data, plans, memory.peak.data, memory.step.data)
    measure(plan)
    return plan


def _check_cuts(cuts: str, max_recompute: float = 10.0) -> None:
    if cuts not in CUTS:
        raise PassFailedException(f"cuts={cuts} is not one of {', '.join(CUTS)}")
    if not 0 <= max_recompute <= 100:
        raise PassFailedException(f"max_recompute={max_recompute} is not a percentage in [0, 100]")


@dataclass(frozen=True)
class PartitionTemporalPass(ModulePass):
    """Stage cuts: `cuts=shortest` (default) the partition of least slow-memory traffic
    (`planner.plan_memory`), `cuts=greedy` the spec's greedy. `max_recompute` (percent of the
    model's MACs, default 10) bounds the halo recompute the shortest path may add over the
    greedy's plan."""

    name = "partition-temporal"
    budget: int = 0
    align: int = DEFAULT_ALIGN
    cuts: str = "shortest"
    max_recompute: int | float = 100 * MAX_RECOMPUTE

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check(self.budget, self.align)
        _check_cuts(self.cuts, self.max_recompute)
        graph = build_plan_graph(op)
        write_stages(op, graph, partition(graph, self.budget, self.align, self.cuts, self.max_recompute / 100))


def _tile_stages(op: ModuleOp, budget: int, align: int, chains: bool, max_recompute: float | None = None) -> None:
    """Re-plan the stages partition-temporal wrote, with or without chain tiling; with
    `max_recompute` (percent), chains may hold stages that fit too (`planner.assign_strategies`)."""
    _check(budget, align)
    graph = build_plan_graph(op)
    stages = read_stages(op, graph, align)
    allowance = None if max_recompute is None else int(max_recompute / 100 * total_macs(graph))
    fraction = MAX_RECOMPUTE if max_recompute is None else max_recompute / 100
    plans = assign_strategies(graph, stages, budget, align, chains=chains, recompute_allowance=allowance,
                              max_recompute=fraction)
    write_stages(op, graph, stages, plans)


@dataclass(frozen=True)
class PartitionSpatialPass(ModulePass):
    """Spatial tiling only (each over-budget tileable stage on its own)."""

    name = "partition-spatial"
    budget: int = 0
    align: int = DEFAULT_ALIGN

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _tile_stages(op, self.budget, self.align, chains=False)


@dataclass(frozen=True)
class TileChainsPass(ModulePass):
    """Chain tiling over linked over-budget stages: re-plans every stage partition-temporal cut
    (whatever partition-spatial wrote), chains where they fit, each other stage as
    partition-spatial would."""

    name = "tile-chains"
    budget: int = 0
    align: int = DEFAULT_ALIGN
    max_recompute: int | float = 100 * MAX_RECOMPUTE

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_cuts("shortest", self.max_recompute)
        _tile_stages(op, self.budget, self.align, chains=True, max_recompute=self.max_recompute)


@dataclass(frozen=True)
class TigrisPlanPass(ModulePass):
    """annotate-lifetimes, memory-timeline, partition-temporal, partition-spatial, tile-chains."""

    name = "tigris-plan"
    budget: int = 0
    align: int = DEFAULT_ALIGN
    cuts: str = "shortest"
    max_recompute: int | float = 100 * MAX_RECOMPUTE

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_cuts(self.cuts, self.max_recompute)
        AnnotateLifetimesPass().apply(ctx, op)
        MemoryTimelinePass(self.align).apply(ctx, op)
        PartitionTemporalPass(self.budget, self.align, self.cuts, self.max_recompute).apply(ctx, op)
        PartitionSpatialPass(self.budget, self.align).apply(ctx, op)
        TileChainsPass(self.budget, self.align, self.max_recompute).apply(ctx, op)
