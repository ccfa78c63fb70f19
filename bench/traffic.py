"""Slow-memory traffic per inference over the model zoo: greedy stage cuts, shortest-path cuts,
and the upstream TiGrIS side by side (issue G3).

Usage: python bench/traffic.py [--models KEY ...] [--budgets 32K,64K,256K] [--float-only]
                               [--upstream PATH] [--align N] [--out DIR]

Per model (float and int8) and budget: our traffic (bytes written to + read from slow memory per
inference) with `cuts=greedy` (the spec's greedy partition) and with the default shortest-path
cuts, their ratio, the upstream's traffic and our ratio to it, our halo recompute as a share of
the model's MACs, and the stage counts (ours, upstream's); then the geometric mean of each ratio
per budget. Our figures are `planner.plan_memory`'s, the plan `tigris analyze` reports (its
`slow_traffic_bytes`, `halo_overhead_pct`, `stage_count`); the upstream's are `slow.traffic`
(written + read) and `fast.stages` of its `tigris analyze --json`, run as a separate program
(`--upstream`, default `$TIGRIS_UPSTREAM` or /work/benchvenv/bin/tigris when it exists: never a
dependency). Writes `traffic.json` into --out (default bench/results/, not tracked).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from zoo_models import build_models, model_keys

from tigris.tools.budgets import parse_size
from tigris.tools.report.analysis import normalized_module
from tigris.tools.report.text import size, table
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.passes import DEFAULT_ALIGN
from tigris.transforms.plan.planner import Plan, plan_memory, total_macs

DEFAULT_BUDGETS = "32K,64K,256K"
RESULTS = Path(__file__).resolve().parent / "results"
BENCH_VENV_TIGRIS = Path("/work/benchvenv/bin/tigris")


def traffic(plan: Plan) -> int:
    return plan.traffic.written + plan.traffic.read


def upstream_figures(tool: str, model: Path, budget: int) -> tuple[int, int] | None:
    """(traffic, stages) from the upstream's `analyze --json`; None if it cannot plan the model."""
    run = subprocess.run([tool, "analyze", str(model), "-m", str(budget), "--json"],
                         capture_output=True, text=True, check=False)  # fmt: skip
    try:
        report = json.loads(run.stdout)
        moved = report["slow"]["traffic"]
        return moved["written"] + moved["read"], report["fast"]["stages"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None


def measure(paths: dict[str, Path], budgets: list[int], align: int, upstream: str | None) -> list[dict[str, Any]]:
    rows = []
    for key, path in paths.items():
        graph = build_plan_graph(normalized_module(path))
        macs = total_macs(graph)
        floor = compulsory_bytes(graph)
        for budget in budgets:
            greedy = plan_memory(graph, budget, align, cuts="greedy")
            shortest = plan_memory(graph, budget, align)
            theirs = upstream_figures(upstream, path, budget) if upstream else None
            rows.append({
                "model": key, "budget_bytes": budget,
                "greedy_bytes": traffic(greedy), "shortest_bytes": traffic(shortest),
                "upstream_bytes": theirs[0] if theirs else None,
                "recompute_pct": round(100 * shortest.halo_macs / macs, 2) if macs else 0.0,
                "stages": len(shortest.stages), "greedy_stages": len(greedy.stages),
                "upstream_stages": theirs[1] if theirs else None,
                "overflow_bytes": shortest.overflow, "floor_bytes": floor,
            })  # fmt: skip
    return rows


def compulsory_bytes(graph: PlanGraph) -> int:
    """Traffic no plan avoids: the model's inputs read once and its outputs written once (both
    live in slow memory). A model that runs in one stage moves exactly this, for us and the
    upstream alike: its ratio is 1 whatever the planner, so the excess above it is the figure
    a planner can change."""
    inputs = sum(t.nbytes for t in graph.tensors if t.producer < 0)
    return inputs + sum(t.nbytes for t in graph.tensors if t.is_output)


def excess_ratio(rows: list[dict[str, Any]]) -> tuple[float | None, int]:
    """Our traffic above the compulsory floor over the upstream's, summed over the models the
    upstream planned with traffic above it; and how many models that is."""
    above = [r for r in rows if r["upstream_bytes"] is not None and r["upstream_bytes"] > r["floor_bytes"]]
    theirs = sum(r["upstream_bytes"] - r["floor_bytes"] for r in above)
    ours = sum(max(0, r["shortest_bytes"] - r["floor_bytes"]) for r in above)
    return (ours / theirs if theirs else None), len(above)


def ratio(a: int | None, b: int | None) -> float | None:
    return a / b if a is not None and b else None


def geo_mean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def fmt(x: float | None) -> str:
    return f"{x:.3f}" if x is not None else "-"


def render(rows: list[dict[str, Any]], budgets: list[int]) -> str:
    header = ["model", "budget", "greedy", "shortest", "sp/greedy", "upstream", "sp/upstream", "recompute %",
              "stages", "upstream stages"]  # fmt: skip
    cells = [
        [r["model"], size(r["budget_bytes"]), size(r["greedy_bytes"]), size(r["shortest_bytes"]),
         fmt(ratio(r["shortest_bytes"], r["greedy_bytes"])),
         size(r["upstream_bytes"]) if r["upstream_bytes"] is not None else "-",
         fmt(ratio(r["shortest_bytes"], r["upstream_bytes"])), f"{r['recompute_pct']:.2f}", str(r["stages"]),
         str(r["upstream_stages"]) if r["upstream_stages"] is not None else "-"]
        for r in rows
    ]  # fmt: skip
    lines = table(header, cells, align="ll" + "r" * 8)
    lines.append("")
    summary = []
    for budget in budgets:
        at = [r for r in rows if r["budget_bytes"] == budget]
        worst = max(at, key=lambda r: ratio(r["shortest_bytes"], r["upstream_bytes"]) or 0, default=None)
        summary.append([
            size(budget),
            fmt(geo_mean([ratio(r["shortest_bytes"], r["greedy_bytes"]) for r in at])),  # type: ignore[misc]
            fmt(geo_mean([ratio(r["greedy_bytes"], r["upstream_bytes"]) for r in at])),  # type: ignore[misc]
            fmt(geo_mean([ratio(r["shortest_bytes"], r["upstream_bytes"]) for r in at])),  # type: ignore[misc]
            f"{worst['model']} {fmt(ratio(worst['shortest_bytes'], worst['upstream_bytes']))}" if worst else "-",
            f"{fmt(excess_ratio(at)[0])} ({excess_ratio(at)[1]})",
        ])  # fmt: skip
    head = ["budget", "geo-mean sp/greedy", "geo-mean greedy/upstream", "geo-mean sp/upstream", "worst sp/upstream",
            "above-floor sp/upstream (models)"]  # fmt: skip
    lines += table(head, summary, align="lrrrlr")
    lines.append("above-floor: traffic beyond reading the model's inputs and writing its outputs once, summed "
                 "over the models the upstream moves more than that")
    return "\n".join(lines) + "\n"


def budget_list(text: str) -> list[int]:
    """`32K,64K` -> bytes, with the CLI's size syntax (argparse prints the error)."""
    try:
        return [parse_size(b.strip(), "--budgets") for b in text.split(",") if b.strip()]
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def default_upstream() -> str | None:
    found = os.environ.get("TIGRIS_UPSTREAM")
    return found or (str(BENCH_VENV_TIGRIS) if BENCH_VENV_TIGRIS.exists() else None)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", metavar="KEY", choices=model_keys(), help="zoo models (default all)")
    parser.add_argument("--budgets", type=budget_list, default=DEFAULT_BUDGETS, help=f"SRAM budgets (default {DEFAULT_BUDGETS})")
    parser.add_argument("--float-only", action="store_true", help="skip the int8 variants (with the default model list)")
    parser.add_argument("--upstream", default=default_upstream(), help="the upstream `tigris` CLI ('' for none)")
    parser.add_argument("--align", type=int, default=DEFAULT_ALIGN, help=f"tensor alignment (default {DEFAULT_ALIGN})")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where traffic.json goes (default bench/results/)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    keys = args.models or model_keys(int8=not args.float_only)
    with tempfile.TemporaryDirectory(prefix="tigris-bench-") as tmp:
        rows = measure(build_models(keys, Path(tmp)), args.budgets, args.align, args.upstream or None)
    sys.stdout.write(render(rows, args.budgets))
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "traffic.json"
    out.write_text(json.dumps({"align": args.align, "budgets": args.budgets, "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
