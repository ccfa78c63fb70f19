"""Stage cuts by shortest path (transforms/plan/cuts.py) on random graphs (hypothesis, derandomized).

Checked, on the random graphs of test_planner_properties.py and random budgets/alignments:
  - the incremental scan of a stage (`StageScan`) has the untiled peak of an independent event
    sweep over the stage's intervals, and loads/spills exactly the tensors the stage rules say,
    for every stage [first, last] of the graph;
  - the search is optimal: no partition of the steps (all 2^(n-1) enumerated, none pruned) in
    which every stage of several steps fits the budget (untiled, or by a tile plan that fits)
    moves fewer bytes, or as few in fewer stages;
  - every stage it cuts that is not a lone step fits the budget;
  - bench/traffic.py prints the figures `tigris analyze --json` reports;
  - the planner's plan with shortest-path cuts never moves more bytes than with greedy cuts, never
    overflows more, and recomputes at most `max_recompute` of the model's MACs more than the
    greedy's plan;
  - chains through stages that fit (chain_runs) never move more bytes than the spec's chains of
    over-budget stages on the same stages, recompute at most the allowance more, and tile validly.

The stage facts (who is loaded and spilled, the peak) come from test_planner_properties's
references, recomputed from the IR; only the cost of a tiled stage is the planner's
(`group_traffic` of the tile plan `fitting_tile` picks): that search is tested on its own there.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
import zoo  # test/models, on sys.path via conftest
from hypothesis import given
from hypothesis import strategies as st

from tigris.transforms.plan.cuts import StageScan, fitting_tile, group_traffic, shortest_path_stages
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.memory import align_up, lifetimes
from tigris.transforms.plan.planner import MAX_RECOMPUTE, Plan, assign_strategies, measure, plan_memory, total_macs
from tigris.transforms.plan.temporal import make_stage


def _load_properties():  # type: ignore[no-untyped-def]
    """test_planner_properties.py, for its graph generator and references (test/ is no package)."""
    path = Path(__file__).with_name("test_planner_properties.py")
    spec = importlib.util.spec_from_file_location("planner_properties_support", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


props = _load_properties()
BENCH = Path(__file__).resolve().parents[2] / "bench"
Ref = props.Ref


def reloaded(ref: Ref, first: int, last: int) -> set[int]:
    """Tensors produced before the stage and read in it."""
    return {t for t in range(len(ref.nbytes))
            if ref.producer[t] < first and any(first <= c <= last for c in ref.consumers[t])}  # fmt: skip


def spilled(ref: Ref, first: int, last: int) -> set[int]:
    """Tensors produced in the stage that a later step or the host needs."""
    return {t for t in range(len(ref.nbytes)) if first <= ref.producer[t] <= last
            and (ref.is_output[t] or any(c > last for c in ref.consumers[t]))}  # fmt: skip


def untiled_bytes(ref: Ref, first: int, last: int) -> int:
    return sum(ref.nbytes[t] for t in reloaded(ref, first, last) | spilled(ref, first, last))


def stage_cost(g: PlanGraph, ref: Ref, first: int, last: int, budget: int, align: int) -> int | None:
    """Bytes the stage moves on its own; None if it is not allowed (several steps, no plan fits)."""
    if props.sweep(ref, first, last, align) <= budget:
        return untiled_bytes(ref, first, last)
    stage = make_stage(g, 0, first, last, align)
    tile = fitting_tile(g, stage, budget, align)
    if tile is not None:
        return sum(group_traffic(g, [stage], tile))
    return untiled_bytes(ref, first, last) if first == last else None


@props.deterministic(100)
@given(text=props.graph_texts(), align=props.ALIGNS)
def test_scan_matches_the_stage_rules(text: str, align: int) -> None:
    module = props.parse(text)
    g, ref = build_plan_graph(module), props.reference(module)
    sizes = [align_up(t.nbytes, align) for t in g.tensors]
    deaths = [span.death for span in lifetimes(g)]
    for first in range(ref.steps):
        scan = StageScan(g, first, sizes, deaths)
        for last in range(first, ref.steps):
            scan.extend()
            assert scan.last == last
            assert scan.peak == props.sweep(ref, first, last, align), (first, last)
            assert scan.loaded == sum(ref.nbytes[t] for t in reloaded(ref, first, last))
            assert scan.spilled == sum(ref.nbytes[t] for t in spilled(ref, first, last))


@props.deterministic(120)
@given(text=props.graph_texts(max_ops=6), align=props.ALIGNS, fraction=st.floats(0.05, 1.2))
def test_shortest_path_is_the_cheapest_partition(text: str, align: int, fraction: float) -> None:
    module = props.parse(text)
    g, ref = build_plan_graph(module), props.reference(module)
    n = ref.steps
    budget = max(1, int(props.sweep(ref, 0, n - 1, align) * fraction))
    costs = {(a, b): stage_cost(g, ref, a, b, budget, align) for a in range(n) for b in range(a, n)}
    best: tuple[int, int] | None = None
    for cuts in itertools.product([False, True], repeat=n - 1):
        starts = [0, *(k + 1 for k, cut in enumerate(cuts) if cut)]
        spans = list(zip(starts, [s - 1 for s in starts[1:]] + [n - 1]))
        if all(costs[s] is not None for s in spans):
            found = (sum(costs[s] for s in spans), len(spans))  # type: ignore[misc]
            best = found if best is None else min(best, found)
    stages = shortest_path_stages(g, budget, align)
    assert best is not None  # one step per stage is always a partition
    spans = [(s.first, s.last) for s in stages]
    assert all(costs[s] is not None for s in spans), "every stage of several steps fits"
    assert (sum(costs[s] for s in spans), len(spans)) == best  # type: ignore[misc]
    props.check_stages(ref, stages, budget, align)


@props.deterministic(150)
@given(text=props.graph_texts(), align=props.ALIGNS, fraction=st.floats(0.05, 1.2),
       max_recompute=st.sampled_from([0.0, 0.02, MAX_RECOMPUTE, 1.0]))
def test_never_more_traffic_than_greedy(text: str, align: int, fraction: float, max_recompute: float) -> None:
    module = props.parse(text)
    g, ref = build_plan_graph(module), props.reference(module)
    budget = max(1, int(props.sweep(ref, 0, ref.steps - 1, align) * fraction))
    greedy = plan_memory(g, budget, align, cuts="greedy")
    shortest = plan_memory(g, budget, align, max_recompute=max_recompute)
    moved = shortest.traffic.written + shortest.traffic.read
    assert moved <= greedy.traffic.written + greedy.traffic.read
    assert shortest.overflow <= greedy.overflow
    assert shortest.halo_macs <= greedy.halo_macs + max_recompute * total_macs(g)
    for sp in shortest.stages:
        if sp.stage.first != sp.stage.last:
            assert sp.scheduled_peak <= budget
    props.check_stages(ref, [sp.stage for sp in shortest.stages], budget, align)
    props.check_tiling(g, ref, shortest.stages, budget, align)


def test_unknown_cuts_are_refused() -> None:
    text = """func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
      %a = tgr.relu %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
      func.return %a : tensor<1x1x4x4xf32>
    }"""
    with pytest.raises(ValueError, match="cuts='best'"):
        plan_memory(build_plan_graph(props.parse(text)), 100, 32, cuts="best")


def test_traffic_bench_prints_what_analyze_reports(tmp_path: Path) -> None:
    """bench/traffic.py runs, and its shortest-path figures are `tigris analyze --json`'s."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / "traffic.py"), "--models", "yolo", "--budgets", "64K", "--upstream", "",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split()[:4] == ["model", "budget", "greedy", "shortest"]
    [row] = json.loads((tmp_path / "traffic.json").read_text())["rows"]
    model = zoo.build_zoo(tmp_path / "models", ["yolo"], float_only=True)["yolo"]
    run = subprocess.run(["tigris", "analyze", str(model), "-m", "64K", "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert row["shortest_bytes"] == report["slow_traffic_bytes"]["written"] + report["slow_traffic_bytes"]["read"]
    assert row["stages"] == report["stage_count"]
    assert row["shortest_bytes"] < row["greedy_bytes"]  # yolo at 64K: a better cut exists (bench table)


@props.deterministic(120)
@given(text=props.graph_texts(), align=props.ALIGNS, fraction=st.floats(0.05, 1.2),
       max_recompute=st.sampled_from([0.0, MAX_RECOMPUTE, 1.0]))
def test_chains_through_fitting_stages_never_cost_more(text: str, align: int, fraction: float,
                                                       max_recompute: float) -> None:
    """chain_runs regroups each run of linked stages: on the same stages, never more slow traffic
    than the spec's assignment (over-budget runs only), never more recompute than it plus the
    allowance; every group is a valid tiling of fitting bands (check_tiling)."""
    module = props.parse(text)
    g, ref = build_plan_graph(module), props.reference(module)
    budget = max(1, int(props.sweep(ref, 0, ref.steps - 1, align) * fraction))
    stages = [sp.stage for sp in plan_memory(g, budget, align, cuts="greedy").stages]
    allowance = int(max_recompute * total_macs(g))
    spec = Plan(g, budget, align, assign_strategies(g, stages, budget, align), 0, 0)
    runs = Plan(g, budget, align, assign_strategies(g, stages, budget, align, recompute_allowance=allowance), 0, 0)
    measure(spec)
    measure(runs)
    assert runs.traffic.written + runs.traffic.read <= spec.traffic.written + spec.traffic.read
    assert runs.halo_macs <= spec.halo_macs + allowance
    assert runs.overflow <= spec.overflow
    props.check_tiling(g, ref, runs.stages, budget, align)
