"""The planning passes: each runs an analysis and writes typed `tgr.*` attributes.

    annotate-lifetimes        op: tgr.step, tgr.lifetime       (model inputs: in arg_attrs)
    memory-timeline{align}    @main: tgr.memory
    partition-temporal{..}    op: tgr.stage; @main: tgr.stages = [#tgr.stage<...>]
    partition-spatial{..}     tile plans on over-budget tileable stages
    tile-chains{..}           chains of linked over-budget stages share one tile plan

Tensors in `#tgr.stage` inputs/outputs are numbered as the planner sees them: model
inputs first, then each op's results in program order. `written_plan` reads the
attributes back as a `Plan` (the figures the runtime's statistics must match).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntAttr, IntegerAttr, ModuleOp, NoneAttr, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects.tgr.attributes import LifetimeAttr, MemoryAttr, StageAttr, TilePlanAttr
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph, main_func
from tigris.transforms.plan.memory import lifetimes, timeline
from tigris.transforms.plan.planner import Plan, StagePlan, assign_strategies, measure, tile_peak
from tigris.transforms.plan.tiling import TilePlan
from tigris.transforms.plan.temporal import Stage, make_stage, partition_temporal

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
        main_func(op).attributes["tgr.memory"] = MemoryAttr(IntAttr(result.peak), IntAttr(result.peak_step), IntAttr(self.align))


def _stage_attr(stage: Stage, plan: StagePlan | None = None) -> StageAttr:
    tile = plan.tile if plan is not None else None
    tile_attr = (
        TilePlanAttr(*(IntAttr(v) for v in (tile.tile_h, tile.num_tiles, tile.halo, tile.out_h, tile.chain)))
        if tile is not None
        else NoneAttr()
    )
    return StageAttr(
        IntAttr(stage.index),
        IntAttr(stage.first),
        IntAttr(stage.last),
        IntAttr(stage.peak),
        DenseArrayBase.from_list(i64, stage.inputs),
        DenseArrayBase.from_list(i64, stage.outputs),
        tile_attr,
    )


def write_stages(module: ModuleOp, graph: PlanGraph, stages: list[Stage], plans: list[StagePlan] | None = None) -> None:
    for stage in stages:
        for step in graph.steps[stage.first : stage.last + 1]:
            assert step.op is not None
            step.op.attributes["tgr.stage"] = IntegerAttr(stage.index, i64)
    attrs = [_stage_attr(s, plans[i] if plans else None) for i, s in enumerate(stages)]
    main_func(module).attributes["tgr.stages"] = ArrayAttr(attrs)


def read_stages(module: ModuleOp, graph: PlanGraph, align: int) -> list[Stage]:
    stages = main_func(module).attributes.get("tgr.stages")
    if not isinstance(stages, ArrayAttr):
        raise PassFailedException("run partition-temporal first: @main has no tgr.stages")
    out: list[Stage] = []
    for attr in stages.data:
        assert isinstance(attr, StageAttr)
        out.append(make_stage(graph, attr.index.data, attr.first_step.data, attr.last_step.data, align))
    return out


def written_plan(module: ModuleOp) -> Plan:
    """The plan the passes wrote into `module` (`tgr.stages`, `tgr.memory`; the budget from
    tigris-compile's `tgr.budget`, else 0), as the `Plan` the report's figures come from.
    Unlike planning again at a budget, this is the plan a `.tgrs` of the module runs, also
    when tigris-compile re-planned it for LZ4: what the runtime's statistics must match.
    A tile plan's band peak is not stored; it is recomputed from its height (`tile_peak`)."""
    func = main_func(module)
    memory = func.attributes.get("tgr.memory")
    align = memory.align.data if isinstance(memory, MemoryAttr) else DEFAULT_ALIGN
    budget_attr = func.attributes.get("tgr.budget")
    budget = budget_attr.value.data if isinstance(budget_attr, IntegerAttr) else 0
    graph = build_plan_graph(module)
    stages = read_stages(module, graph, align)
    attrs = func.attributes["tgr.stages"]
    assert isinstance(attrs, ArrayAttr)
    plans: list[StagePlan] = []
    for attr, stage in zip(attrs.data, stages, strict=True):
        assert isinstance(attr, StageAttr)
        tile = attr.tile
        if not isinstance(tile, TilePlanAttr):
            plans.append(StagePlan(stage, "normal"))
            continue
        members = [s for a, s in zip(attrs.data, stages) if isinstance(a, StageAttr) and a.tile == tile]
        chain = tile.chain.data
        peak = tile_peak(graph, members if chain >= 0 else [stage], tile.tile_h.data, align)
        fields = (tile.tile_h.data, tile.num_tiles.data, tile.halo.data, tile.out_h.data)
        plans.append(StagePlan(stage, "chain" if chain >= 0 else "tiled", TilePlan(*fields, peak, chain)))
    whole = timeline(graph, align)
    plan = Plan(graph, budget, align, plans, whole.peak, whole.peak_step)
    measure(plan)
    return plan


@dataclass(frozen=True)
class PartitionTemporalPass(ModulePass):
    name = "partition-temporal"
    budget: int = 0
    align: int = DEFAULT_ALIGN

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check(self.budget, self.align)
        graph = build_plan_graph(op)
        write_stages(op, graph, partition_temporal(graph, self.budget, self.align))


def _tile_stages(op: ModuleOp, budget: int, align: int, chains: bool) -> None:
    """Re-plan the stages partition-temporal wrote, with or without chain tiling."""
    _check(budget, align)
    graph = build_plan_graph(op)
    stages = read_stages(op, graph, align)
    write_stages(op, graph, stages, assign_strategies(graph, stages, budget, align, chains=chains))


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
    """Chain tiling over linked over-budget stages; the others keep their spatial plans."""

    name = "tile-chains"
    budget: int = 0
    align: int = DEFAULT_ALIGN

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _tile_stages(op, self.budget, self.align, chains=True)


@dataclass(frozen=True)
class TigrisPlanPass(ModulePass):
    """annotate-lifetimes, memory-timeline, partition-temporal, partition-spatial, tile-chains."""

    name = "tigris-plan"
    budget: int = 0
    align: int = DEFAULT_ALIGN

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        AnnotateLifetimesPass().apply(ctx, op)
        MemoryTimelinePass(self.align).apply(ctx, op)
        for pass_ in (PartitionTemporalPass, PartitionSpatialPass, TileChainsPass):
            pass_(self.budget, self.align).apply(ctx, op)
