"""`analyze`: import, normalize and plan a model at a budget, and collect what the user
needs to size the memories: the verdict, peaks, stages, slow-memory use, flash, a sweep.

The plan at the budget is the one `tigris compile` would write: `tigris-plan` runs on (a copy
of) the normalized module and the report describes the annotated module, reading the plan
back from its attributes (`written_plan`); nothing plans it a second way. The flash figure is
the size of the compiled file (flash.py). Questions about other budgets (the sweep, the
smallest budgets that fit) ask the planner (`transforms/plan/planner.py`), memoized per budget.
`render_text` and `to_json` print an `AnalysisReport`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tigris.dialects.tgr.attributes import Strategy
from tigris.tools.report.facts import TensorInfo, model_dtype, model_inputs, model_outputs, weights
from tigris.tools.report.flash import Flash, compiled_flash
from tigris.tools.report.slow_memory import needs_slow_memory, slow_peak
from tigris.tools.report.sram_only import SramOnly, smallest_sram_only, sram_only_plan
from tigris.transforms.plan.graph import PlanStep, main_func
from tigris.transforms.plan.passes import DEFAULT_ALIGN, TigrisPlanPass, written_plan
from tigris.transforms.plan.tiling import feature_block_step, spatial_ops
from tigris.transforms.plan.planner import (
    Plan,
    groups,
    minimum_budget,
    minimum_budget_step,
    plan_memory,
    recomputed_rows_of,
    smallest_fitting_budget,
    total_macs,
)


class Verdict(Enum):
    FITS = "fits"  # every stage runs untiled within the budget (one stage or several)
    FITS_TILED = "fits tiled"  # within the budget because some stages are tiled or chained
    OVERFLOWS = "overflows"  # some stage's scheduled peak exceeds the budget (>= the minimum)
    CANNOT_RUN = "cannot run"  # the budget is below `minimum_budget`: some op cannot be held

    @property
    def key(self) -> str:
        """The JSON spelling: `fits`, `fits_tiled`, `overflows`, `cannot_run`."""
        return self.value.replace(" ", "_")


def _op_of(step: PlanStep | None) -> tuple[str, str] | None:
    """(node name, tgr op name) of a step."""
    return None if step is None or step.op is None else (step.name, step.op.name)


def verdict_of(plan: Plan, min_budget: int) -> Verdict:
    if plan.budget < min_budget:
        return Verdict.CANNOT_RUN
    if plan.overflow > 0:
        return Verdict.OVERFLOWS
    if any(sp.strategy is not Strategy.NORMAL for sp in plan.stages):
        return Verdict.FITS_TILED
    return Verdict.FITS


@dataclass(frozen=True)
class TileInfo:
    tile_h: int
    halo: int
    tiles: int
    chain: int  # -1 for a spatially tiled stage
    acc: int = 0  # reduction tiles (tile_h rows of the input each): the accumulator's bytes
    tile_w: int = 0  # 2-D tiles: output columns per tile (0: full-width rows)
    halo_w: int = 0
    tile_c: int = 0  # channel blocks (reduction tiles: channels; a dense op: output features) per block
    dense: bool = False  # a dense op in blocks of output features (reduction blocks: tile_h input features a tile)
    windows: int = 0  # spatial ops in the stage: more than one, a fused stage (`tiling.spatial_ops`)
    cache: int = 0  # row caches: bytes of the group's slots (`row_cache.py`); 0: none


@dataclass(frozen=True)
class StageRow:
    index: int
    first_op: str
    last_op: str
    op_count: int
    untiled_peak: int
    scheduled_peak: int  # a chain's stages share the chain's band peak
    inputs: tuple[str, ...]  # tensors loaded from slow memory
    outputs: tuple[str, ...]  # tensors spilled to slow memory
    strategy: Strategy
    tile: TileInfo | None


@dataclass(frozen=True)
class SweepPoint:
    budget: int
    stage_count: int
    tiled_stages: int
    chains: int
    scheduled_peak: int
    verdict: Verdict


@dataclass(frozen=True)
class SramOnlyReport:
    """`-m T+0` (no PSRAM, `sram_only.py`): the plan chosen for T (None: none fits T) and the
    smallest SRAM-only budget the search finds."""

    budget: int
    plan: SramOnly | None
    smallest: SramOnly | None  # None: not searched (`tigris compile` found a plan)

    @property
    def fits(self) -> bool:
        return self.plan is not None


@dataclass(frozen=True)
class AnalysisReport:
    model: str
    name: str
    dtype: str
    op_count: int
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    budget: int
    slow_budget: int | None
    flash_budget: int | None
    align: int
    verdict: Verdict
    unscheduled_peak: int
    largest_tensor: tuple[str, int] | None
    scheduled_peak: int
    overflow_stages: tuple[tuple[int, int], ...]  # (stage index, bytes over the budget)
    min_budget: int
    min_budget_op: tuple[str, str] | None  # (node name, tgr op) of the op that sets min_budget
    smallest_fitting_budget: int
    smallest_pow2_budget: int
    stage_count: int
    tiled_stages: int
    chained_stages: int
    chains: int
    slow_peak: int
    needs_slow_memory: bool
    traffic_written: int
    traffic_read: int
    halo_macs: int
    total_macs: int
    weight_count: int
    weight_bytes: int
    flash: Flash
    sweep: tuple[SweepPoint, ...]
    stages: tuple[StageRow, ...]
    max_recompute: float = 10.0
    """The bound on the halo recompute the cuts may add (`--max-recompute`, percent of the MACs)."""
    row_cache_bytes: int = 0
    """The largest row-cache region of any stage group (the runtime's `row_cache_bytes`); 0: none."""
    row_cache_groups: int = 0
    """Stage groups run with row caches."""
    recomputed_rows: int = 0
    """Rows the tiles compute more than once per inference (the runtime's `recomputed_rows`)."""
    sram_only: SramOnlyReport | None = None
    """`-m T+0`: the SRAM-only search; `budget` is then the budget its plan is compiled at (T when none fits)."""

    @property
    def fits(self) -> bool:
        fits = self.verdict in (Verdict.FITS, Verdict.FITS_TILED)
        return fits and (self.sram_only is None or self.sram_only.fits)

    @property
    def headroom(self) -> int:
        """Budget minus scheduled peak; negative by the overflow amount."""
        return self.budget - self.scheduled_peak

    @property
    def halo_overhead_pct(self) -> float:
        return 100.0 * self.halo_macs / self.total_macs if self.total_macs else 0.0

    @property
    def slow_fits(self) -> bool | None:
        """None without a PSRAM size, and without PSRAM (`sram_only` says whether the plan fits)."""
        if self.slow_budget is None or self.sram_only is not None:
            return None
        return self.slow_peak <= self.slow_budget

    @property
    def flash_fits(self) -> bool | None:
        if self.flash_budget is None or self.flash.total is None:
            return None
        return self.flash.total <= self.flash_budget


class PlanCache:
    """The plan per budget, computed once: the sweep and the power-of-two search ask for
    overlapping budgets. `plan` is the one the IR holds, at its budget; the planner answers
    for the others."""

    def __init__(self, plan: Plan, max_recompute: float = 10.0, cuts: str = "shortest") -> None:
        self.graph, self.align, self.max_recompute, self.cuts = plan.graph, plan.align, max_recompute, cuts
        self._plans: dict[int, Plan] = {plan.budget: plan}

    def at(self, budget: int) -> Plan:
        if budget not in self._plans:
            self._plans[budget] = plan_memory(self.graph, budget, self.align, self.cuts, self.max_recompute / 100)
        return self._plans[budget]


def sram_only_search(plans: PlanCache, budget: int, floor: int, smallest: bool = True) -> SramOnlyReport:
    """`-m budget+0` (no PSRAM): the plan `sram_only.py` chooses for `budget` and the smallest
    SRAM-only budget, both planned through `plans` on a grid from `floor` (the model's
    `smallest_fitting_budget`); `smallest=False` searches the smallest only when no plan fits
    (what `tigris compile` needs to know)."""
    plan = sram_only_plan(plans.at, budget, floor, plans.align)
    low = smallest_sram_only(plans.at, floor, plans.align) if smallest or plan is None else None
    return SramOnlyReport(budget, plan, low)


def sram_only_arena(
    module: ModuleOp, budget: int, align: int, max_recompute: float = 10.0, cuts: str = "shortest"
) -> SramOnlyReport:
    """`tigris compile -m budget+0`: the SRAM-only search on a normalized module (left as it is);
    the plan to write is the one at `.plan.budget` (None: no plan fits `budget`)."""
    _, plan = planned(module, budget, align, max_recompute, cuts)
    plans = PlanCache(plan, max_recompute, cuts)
    return sram_only_search(plans, budget, smallest_fitting_budget(plan.graph, align), smallest=False)


def smallest_pow2_budget(plans: PlanCache, min_budget: int, unscheduled_peak: int) -> int:
    """Walk powers of two up from the minimum: at the unscheduled peak one stage fits."""
    budget = 1 << max(0, (max(min_budget, 1) - 1).bit_length())
    while plans.at(budget).overflow > 0 and budget < unscheduled_peak:
        budget *= 2
    return budget


def sweep(plans: PlanCache, budget: int, min_budget: int) -> tuple[SweepPoint, ...]:
    """The plan at budget/4, /2, x1, x2, x4."""
    budgets = sorted({b for b in (budget // 4, budget // 2, budget, budget * 2, budget * 4) if b >= 1})
    points = []
    for b in budgets:
        plan = plans.at(b)
        tiled = sum(sp.strategy is Strategy.TILED for sp in plan.stages)
        verdict = verdict_of(plan, min_budget)
        points.append(SweepPoint(b, len(plan.stages), tiled, plan.chains, plan.scheduled_peak, verdict))
    return tuple(points)


def stage_rows(plan: Plan) -> tuple[StageRow, ...]:
    g = plan.graph
    rows = []
    for sp in plan.stages:
        s, tile = sp.stage, sp.tile
        rows.append(
            StageRow(
                s.index,
                g.steps[s.first].name,
                g.steps[s.last].name,
                s.last - s.first + 1,
                s.peak,
                sp.scheduled_peak,
                tuple(g.tensors[t].name for t in s.inputs),
                tuple(g.tensors[t].name for t in s.outputs),
                sp.strategy,
                TileInfo(tile.tile_h, tile.halo, tile.total_tiles, tile.chain, tile.acc, tile.tile_w, tile.halo_w,
                         tile.tile_c, feature_block_step(g, s) is not None and tile.tile_c > 0, spatial_ops(g, [s]),
                         tile.cache)
                if tile is not None else None,
            )
        )
    return tuple(rows)


def normalized_module(
    path: str | Path,
    input_shapes: Mapping[str, list[int]] | None = None,
    phase: Callable[[str], None] | None = None,
    *,
    verify_each: bool = True,
) -> ModuleOp:
    """Import an ONNX model (binary or text) and run `tigris-normalize`: the module every
    report and figure starts from. `phase` is told `import` and `normalize` as each starts
    (a progress display). `verify_each=False` (`tigris analyze`): the module is verified after
    import and after normalization instead of after every pass (`run_passes`). User mistakes
    raise `DiagnosticException`s."""
    from tigris.dialects.onnx.importer import import_model_file
    from tigris.transforms.pipelines import NORMALIZE, run_passes

    if phase is not None:
        phase("import")
    module = import_model_file(path, input_shapes)
    if not verify_each:
        module.verify()
    if phase is not None:
        phase("normalize")
    run_passes(NORMALIZE, Context(), module, verify_each=verify_each)
    if not verify_each:
        module.verify()
    return module


def planned(
    module: ModuleOp, budget: int, align: int, max_recompute: float = 10.0, cuts: str = "shortest"
) -> tuple[ModuleOp, Plan]:
    """A copy of the normalized `module` annotated by `tigris-plan` at `budget`, and the plan
    read back from it (as `tigris compile` plans it: the module itself is left as it is)."""
    annotated = module.clone()
    TigrisPlanPass(budget, align, cuts=cuts, max_recompute=max_recompute).apply(Context(), annotated)
    return annotated, dataclasses.replace(written_plan(annotated), budget=budget)


def analyze(
    path: str | Path,
    budget: int,
    *,
    slow_budget: int | None = None,
    flash_budget: int | None = None,
    align: int = DEFAULT_ALIGN,
    input_shapes: Mapping[str, list[int]] | None = None,
) -> AnalysisReport:
    """Import an ONNX model (binary or text), run `tigris-normalize`, plan and report.
    User mistakes raise `DiagnosticException`s (OnnxImportError, PassFailedException)."""
    module = normalized_module(path, input_shapes)
    return analyze_module(
        module, str(path), budget, slow_budget=slow_budget, flash_budget=flash_budget, align=align
    )


def analyze_module(
    module: ModuleOp,
    model: str,
    budget: int,
    *,
    slow_budget: int | None = None,
    flash_budget: int | None = None,
    align: int = DEFAULT_ALIGN,
    verify_each: bool = True,
    max_recompute: float = 10.0,
    cuts: str = "shortest",
) -> AnalysisReport:
    """The report for an already normalized (`tgr`) module (left as it is); `verify_each` as for
    the flash figure's compile (`compiled_flash`); `max_recompute` as `--max-recompute` (percent),
    `cuts` as `--cuts`. `slow_budget=0` (`-m T+0`, no PSRAM) searches the SRAM-only plan
    (`sram_only.py`) and reports the plan at the arena it chose."""
    if budget < 1 or align < 1 or align & (align - 1):
        raise ValueError(f"need budget >= 1 and a power-of-two align (got {budget}, {align})")
    annotated, plan = planned(module, budget, align, max_recompute, cuts)
    graph, plans = plan.graph, PlanCache(plan, max_recompute, cuts)
    floor = smallest_fitting_budget(graph, align)
    sram_only = None
    if slow_budget == 0:
        sram_only = sram_only_search(plans, budget, floor)
        if sram_only.plan is not None and sram_only.plan.budget != budget:
            budget = sram_only.plan.budget
            annotated, plan = planned(module, budget, align, max_recompute, cuts)
    min_budget = minimum_budget(graph, align)
    weight_count, weight_bytes = weights(module)
    largest = max(graph.tensors, key=lambda t: t.nbytes, default=None)
    name_attr = main_func(module).attributes.get("tgr.name")
    return AnalysisReport(
        model=model,
        name=getattr(name_attr, "data", Path(model).stem),
        dtype=model_dtype(module),
        op_count=len(graph.steps),
        inputs=tuple(model_inputs(module)),
        outputs=tuple(model_outputs(module)),
        budget=budget,
        slow_budget=slow_budget,
        flash_budget=flash_budget,
        align=align,
        verdict=verdict_of(plan, min_budget),
        unscheduled_peak=plan.unscheduled_peak,
        largest_tensor=(largest.name, largest.nbytes) if largest is not None else None,
        scheduled_peak=plan.scheduled_peak,
        overflow_stages=tuple(
            (sp.stage.index, sp.scheduled_peak - budget) for sp in plan.stages if sp.scheduled_peak > budget
        ),
        min_budget=min_budget,
        min_budget_op=_op_of(minimum_budget_step(graph, align)),
        smallest_fitting_budget=floor,
        smallest_pow2_budget=smallest_pow2_budget(plans, min_budget, plan.unscheduled_peak),
        stage_count=len(plan.stages),
        tiled_stages=sum(sp.strategy is Strategy.TILED for sp in plan.stages),
        chained_stages=sum(sp.strategy is Strategy.CHAIN for sp in plan.stages),
        chains=plan.chains,
        slow_peak=slow_peak(plan),
        needs_slow_memory=needs_slow_memory(plan),
        traffic_written=plan.traffic.written,
        traffic_read=plan.traffic.read,
        halo_macs=plan.halo_macs,
        total_macs=total_macs(graph),
        max_recompute=max_recompute,
        row_cache_bytes=max((g[0].tile.cache for g in groups(plan) if g[0].tile is not None), default=0),
        row_cache_groups=sum(1 for g in groups(plan) if g[0].tile is not None and g[0].tile.row_cache),
        recomputed_rows=recomputed_rows_of(plan),
        sram_only=sram_only,
        weight_count=weight_count,
        weight_bytes=weight_bytes,
        flash=compiled_flash(annotated, budget, align, verify_each=verify_each),
        sweep=sweep(plans, budget, min_budget),
        stages=stage_rows(plan),
    )
