"""The long end-to-end sweep: every model at many budgets, seeds and modes, run by the C runtime.

Usage: python bench/e2e_sweep.py [--models KEY ...] [--budgets 4K,16K,...] [--steps N]
                                 [--seeds 0,1] [--modes none,lz4,xip]

The opt-in big sibling of test/python/test_end_to_end.py (which runs a fixed matrix in the
normal test command). For each model (the zoo, float and int8, plus a magnitude-pruned
MobileNetV2 whose weights LZ4 shrinks, float and int8) and each budget and mode, it compiles
the model and runs the plan in a fast arena of exactly the budget, then checks:

- per seed, the outputs are byte-identical across every budget and mode of the model;
- they are within 1e-4 relative (float) or ORT_INT8_STEPS output steps (int8) of onnxruntime;
- the run's statistics are the compiler's prediction for the plan (end_to_end.stat_mismatches);
- the plan file (test/support/plan_checks.py, on the first seed): it reads back as written and its
  ops are the IR's runtime ops, a second compile gives the same bytes, LZ4 blocks hold their
  weights and fast_reserved fits beside every stage; without LZ4, `tigris analyze` at the budget
  gives the file's size as its flash figure and the verdict its plan implies.

CI runs these plan checks on representative models only (test_compile.py's round trip,
test_lowering_group_weights.py's reserve, test_cli_analyze.py's zoo test): this script runs them
on every model at every budget it sweeps.

Budgets default to `--steps` sizes spaced geometrically from a quarter of the model's minimum
budget (tigris analyze's) to its unscheduled peak (one stage), aligned to 32 bytes: the range
where the plan changes. Prints one row per model (budgets run, features seen, distance to
onnxruntime) and every failure; exits 1 if any check failed. A full run (about 3,600 runs:
24 budgets x 3 modes x 3 seeds x 18 models) took ~5 minutes on 2 cores before the
plan checks, which compile each plan a second time and analyze it (not re-timed); `--models conv1d
--steps 4` a few seconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE.parent / "test" / "models", HERE.parent / "test" / "support"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from compiled_models import ORT_INT8_STEPS
from end_to_end import (
    FEATURES, Run, budget_text, compile_at, features, normalized, ort_distance, rerun, run_once, stat_mismatches,
)  # fmt: skip
from plan_checks import check_lz4_blocks, check_reserve, check_round_trip
from xdsl.dialects.builtin import ModuleOp
from zoo_models import build_models, model_keys

from tigris.dialects.tgr.attributes import Strategy
from tigris.tools.budgets import parse_size
from tigris.tools.report import analyze_module
from tigris.tools.report.analysis import Verdict
from tigris.transforms.plan.graph import build_plan_graph
from tigris.transforms.plan.memory import align_up, timeline
from tigris.transforms.plan.passes import DEFAULT_ALIGN
from tigris.transforms.plan.planner import minimum_budget

PRUNED = ("mobilenet_v2_pruned", "mobilenet_v2_pruned_int8")


def all_keys() -> list[str]:
    return [*model_keys(), *PRUNED]


def build(keys: list[str], out: Path) -> dict[str, Path]:
    import zoo
    from quantize import quantize_int8

    paths = build_models([k for k in keys if k not in PRUNED], out)
    if any(k in PRUNED for k in keys):
        pruned = zoo.default_mobilenet(prune=0.5)
        paths["mobilenet_v2_pruned"] = zoo.save(pruned, out / "mobilenet_v2_pruned.onnx")
        if "mobilenet_v2_pruned_int8" in keys:
            paths["mobilenet_v2_pruned_int8"] = zoo.save(quantize_int8(pruned), out / "mobilenet_v2_pruned_int8.onnx")
    return {k: paths[k] for k in keys}


def default_budgets(module: object, steps: int) -> list[int]:
    """`steps` budgets from a quarter of the minimum to the unscheduled peak, geometrically."""
    graph = build_plan_graph(module)  # type: ignore[arg-type]
    low = max(DEFAULT_ALIGN, minimum_budget(graph, DEFAULT_ALIGN) // 4)
    high = max(low, timeline(graph, DEFAULT_ALIGN).peak)
    ratio = (high / low) ** (1 / max(steps - 1, 1))
    return sorted({align_up(int(low * ratio**i), DEFAULT_ALIGN) for i in range(steps)} | {high})


def sweep_model(key: str, path: Path, budgets: list[int] | None, steps: int, seeds: list[int],
                modes: list[str]) -> tuple[str, list[str]]:
    """One model: its summary row and its failures."""
    module = normalized(path)
    budgets = budgets or default_budgets(module, steps)
    int8 = key.endswith("_int8")
    bound = ORT_INT8_STEPS.get(key.removesuffix("_int8").removesuffix("_pruned"), 1) if int8 else 1e-4
    failures: list[str] = []
    seen: set[str] = set()
    worst = 0.0
    runs = 0
    references: dict[int, tuple[str, bytes]] = {}  # seed -> the first run's label and outputs
    for budget in budgets:
        for mode in modes:
            for seed in seeds:
                try:
                    run = run_once(key, path, module, budget, mode, seed) if seed == seeds[0] else rerun(run, seed)
                except Exception as e:  # noqa: BLE001 - a sweep reports every failure and goes on
                    failures.append(f"{key} @ {budget_text(budget)} {mode} seed {seed}: {type(e).__name__}: {e}")
                    break
                runs += 1
                seen |= features(run.c.plan, run.stats)
                if seed == seeds[0]:
                    failures += [f"{run.label}: {m}" for m in plan_failures(key, module, run)]
                failures += [f"{run.label} seed {seed}: {m}" for m in stat_mismatches(run)]
                if seed not in references:
                    references[seed] = (run.label, run.output_bytes)
                    worst = max(worst, ort_distance(run, int8))
                elif run.output_bytes != references[seed][1]:
                    failures.append(f"{run.label} seed {seed}: outputs differ from {references[seed][0]}")
    if worst > bound:
        failures.append(f"{key}: {worst} from onnxruntime (bound {bound})")
    kinds = ", ".join(f for f in FEATURES if f in seen)
    unit = "LSB" if int8 else "rel"
    row = f"{key:26} {runs:4} runs, budgets {budget_text(budgets[0])}..{budget_text(budgets[-1])}: " \
          f"{worst:.3g} {unit} from onnxruntime; {kinds}"
    return row, failures


def plan_failures(key: str, module: ModuleOp, run: Run) -> list[str]:
    """The plan-file checks of one compile (module docstring); each failure as a line."""
    compress = "lz4" if run.mode == "lz4" else "none"
    checks: list[tuple[str, Callable[[], object]]] = [
        ("round trip", lambda: check_round_trip(run.c.module, run.c.plan, run.c.plan_bytes, compress)),
        ("deterministic", lambda: _same(compile_at(module, run.budget, run.mode)[1], run.c.plan_bytes)),
    ]
    if run.mode == "lz4":
        checks += [("LZ4 blocks", lambda: check_lz4_blocks(run.c.module, run.c.plan_bytes)),
                   ("reserve", lambda: check_reserve(run.c.plan_bytes, run.budget, DEFAULT_ALIGN))]
    else:
        checks.append(("analyze", lambda: _check_analyze(key, module, run)))
    failures = []
    for name, check in checks:
        try:
            check()
        except AssertionError as e:
            failures.append(f"{name}: {e}")
    return failures


def _same(a: bytes, b: bytes) -> None:
    assert a == b, "a second compile wrote other bytes"


def _check_analyze(key: str, module: ModuleOp, run: Run) -> None:
    """`tigris analyze -m budget`: its flash figure is the size of the file `tigris compile` writes
    (an XIP file is the same bytes with one flag), its verdict the one its plan implies."""
    report = analyze_module(module, key, run.budget)
    assert report.flash.total == len(run.c.plan_bytes), (report.flash.total, len(run.c.plan_bytes))
    expected = (
        Verdict.CANNOT_RUN if report.budget < report.min_budget
        else Verdict.OVERFLOWS if report.scheduled_peak > report.budget
        else Verdict.FITS if all(s.strategy is Strategy.NORMAL for s in report.stages)
        else Verdict.FITS_TILED
    )  # fmt: skip
    assert report.verdict == expected, (report.verdict, expected)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", metavar="KEY", choices=all_keys(), help=f"default all: {' '.join(all_keys())}")
    parser.add_argument("--budgets", help="comma-separated SRAM budgets for every model (default: per model, see --steps)")
    parser.add_argument("--steps", type=int, default=24, help="budgets per model when --budgets is not given (default 24)")
    parser.add_argument("--seeds", default="0,1,2", help="input seeds (default 0,1,2)")
    parser.add_argument("--modes", default="none,lz4,xip", help="compile modes: none, lz4 (-c lz4), xip (--xip)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    keys = args.models or all_keys()
    budgets = [parse_size(b.strip(), "--budgets") for b in args.budgets.split(",")] if args.budgets else None
    seeds = [int(s) for s in args.seeds.split(",")]
    modes = [m.strip() for m in args.modes.split(",")]
    failures: list[str] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tigris-e2e-") as tmp:
        for key, path in build(keys, Path(tmp)).items():
            row, failed = sweep_model(key, path, budgets, args.steps, seeds, modes)
            print(row, flush=True)
            failures += failed
    for line in failures:
        print(f"FAIL {line}")
    print(f"{len(failures)} failures in {time.monotonic() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
