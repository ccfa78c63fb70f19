"""Plan quality over the model zoo and a range of SRAM budgets.

Usage: python bench/plan_quality.py [--models KEY ...] [--budgets 16K,32K,...] [--float-only]
                                    [--align N] [--out DIR]

For each model (float and int8) and budget: the verdict, stages, tiled stages, chains,
scheduled peak, slow-memory peak, slow-memory traffic per inference (bytes, and as a
multiple of the model's own input + output bytes: 1.0x means nothing is spilled or read
twice), halo recompute as a share of the model's MACs, and the minimum budget.

Why: a planner change can be correct (the tests pass) and still plan worse, more
stages, more traffic, more recompute; this table is how to see that. Every figure is
the one `tigris analyze --json` prints (tools/report), nothing is recomputed here. Prints
a table and writes `plan_quality.json` into --out (default bench/results/, not tracked).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from zoo_models import build_models, model_keys

from tigris.tools.report import analyze_module, to_dict
from tigris.tools.report.analysis import normalized_module
from tigris.tools.report.text import size, table
from tigris.tools.budgets import parse_size
from tigris.transforms.plan.passes import DEFAULT_ALIGN

DEFAULT_BUDGETS = "16K,32K,64K,128K,256K,512K"
RESULTS = Path(__file__).resolve().parent / "results"
REPORT_KEYS = (  # the `tigris analyze --json` facts a row keeps
    "verdict", "stage_count", "tiled_stages", "chained_stages", "chains", "scheduled_peak_bytes",
    "unscheduled_peak_bytes", "slow_peak_bytes", "slow_traffic_bytes", "halo_macs", "total_macs",
    "halo_overhead_pct", "min_budget_bytes", "smallest_fitting_budget_bytes",
)


def row(model: str, budget: int, report: dict[str, Any]) -> dict[str, Any]:
    """One JSON row: the report's facts, plus the traffic as a multiple of the model's I/O."""
    io_bytes = sum(t["bytes"] for t in report["inputs"] + report["outputs"])
    traffic = report["slow_traffic_bytes"]["written"] + report["slow_traffic_bytes"]["read"]
    return {
        "model": model, "dtype": report["dtype"], "ops": report["op_count"], "budget_bytes": budget,
        **{k: report[k] for k in REPORT_KEYS},
        "slow_traffic_total_bytes": traffic, "io_bytes": io_bytes,
        "traffic_io_ratio": round(traffic / io_bytes, 3) if io_bytes else None,
    }


def measure(paths: dict[str, Path], budgets: list[int], align: int) -> list[dict[str, Any]]:
    rows = []
    for key, path in paths.items():
        module = normalized_module(path)  # once per model; planning does not change the module
        for budget in budgets:
            rows.append(row(key, budget, to_dict(analyze_module(module, str(path), budget, align=align))))
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    header = ["model", "budget", "verdict", "stages", "tiled", "chains", "sched peak", "slow peak",
              "traffic", "x I/O", "halo %", "min budget"]
    cells = [
        [r["model"], size(r["budget_bytes"]), r["verdict"], str(r["stage_count"]), str(r["tiled_stages"]),
         str(r["chains"]), size(r["scheduled_peak_bytes"]), size(r["slow_peak_bytes"]),
         size(r["slow_traffic_total_bytes"]), f"{r['traffic_io_ratio']:.2f}x" if r["traffic_io_ratio"] else "-",
         f"{r['halo_overhead_pct']:.2f}", size(r["min_budget_bytes"])]
        for r in rows
    ]
    return "\n".join(table(header, cells, align="lrl" + "r" * 9)) + "\n"


def budget_list(text: str) -> list[int]:
    """`16K,32K` -> bytes, with the CLI's size syntax (argparse prints the error)."""
    try:
        return [parse_size(b.strip(), "--budgets") for b in text.split(",") if b.strip()]
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", metavar="KEY", choices=model_keys(), help=f"zoo models (default all): {' '.join(model_keys())}")
    parser.add_argument("--budgets", type=budget_list, default=DEFAULT_BUDGETS, help=f"comma-separated SRAM budgets (default {DEFAULT_BUDGETS})")
    parser.add_argument("--float-only", action="store_true", help="skip the int8 variants (with the default model list)")
    parser.add_argument("--align", type=int, default=DEFAULT_ALIGN, help=f"tensor alignment (default {DEFAULT_ALIGN})")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where plan_quality.json goes (default bench/results/)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    budgets = args.budgets
    keys = args.models or model_keys(int8=not args.float_only)
    with tempfile.TemporaryDirectory(prefix="tigris-bench-") as tmp:
        rows = measure(build_models(keys, Path(tmp)), budgets, args.align)
    sys.stdout.write(render(rows))
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "plan_quality.json"
    out.write_text(json.dumps({"align": args.align, "budgets": budgets, "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
