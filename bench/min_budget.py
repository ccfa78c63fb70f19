"""Smallest fast-memory budget per zoo model: ours beside the upstream TiGrIS's (issue G2).

Usage: python bench/min_budget.py [--models KEY ...] [--upstream PATH] [--step BYTES] [--out DIR]

Ours is `tigris analyze`'s minimum budget (below it the planner refuses: "cannot run"). The
upstream's is found by bisection on its own `analyze` verdict (the first output line starts with
"fits"), to within --step bytes; it needs the upstream CLI from a separate virtualenv
(`python -m venv up && up/bin/pip install tigris-ml`), given by --upstream or $TIGRIS_UPSTREAM,
never a dependency of ours. Without it only our column is printed. A model the upstream cannot
compile, or that does not fit it at 16 MiB, gets its reason instead of a number.

Why bisection: the upstream prints the verdict at the budget asked and a few powers of two, not
its minimum; its plans only grow with the budget, so "fits" is monotone and a bisection finds the
edge. Writes `min_budget.json` into --out (default bench/results/, not tracked).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from zoo_models import build_models, model_keys

from tigris.dialects.onnx.importer import import_model_file
from tigris.tools.report import analyze_module
from tigris.tools.report.text import table
from tigris.transforms.pipelines import NORMALIZE, run_passes
from xdsl.context import Context

RESULTS = Path(__file__).resolve().parent / "results"
CEILING = 16 << 20
"""The largest budget tried for the upstream: past it a model does not fit."""


def ours(path: Path, key: str) -> int:
    """`tigris analyze`'s minimum budget for the model."""
    module = import_model_file(path)
    run_passes(NORMALIZE, Context(), module)
    return analyze_module(module, key, 64 << 10).min_budget


def upstream_fits(cli: str, path: Path, budget: int) -> tuple[bool, str]:
    """The upstream's verdict at `budget`: (fits, the verdict line)."""
    proc = subprocess.run([cli, "analyze", str(path), "-m", str(budget)], capture_output=True, text=True, timeout=600)
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    verdict = next((ln for ln in lines if re.match(r"(fits|does not fit|cannot|error)", ln.strip())), lines[-1] if lines else "")
    return verdict.startswith("fits"), verdict.strip()


def upstream_min(cli: str, path: Path, step: int) -> int | str:
    """The smallest budget the upstream fits, to within `step` bytes, or why there is none."""
    fits, verdict = upstream_fits(cli, path, CEILING)
    if not fits:
        return verdict[:70]
    lo, hi = 0, CEILING
    while hi - lo > step:
        mid = (lo + hi) // 2
        if upstream_fits(cli, path, mid)[0]:
            hi = mid
        else:
            lo = mid
    return hi


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=model_keys(), metavar="KEY")
    parser.add_argument("--upstream", default=os.environ.get("TIGRIS_UPSTREAM"), help="the upstream tigris CLI")
    parser.add_argument("--step", type=int, default=256, help="upstream bisection resolution in bytes")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.upstream and not Path(args.upstream).is_file():
        print(f"error: --upstream '{args.upstream}' is not a file", file=sys.stderr)
        return 1
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = build_models(args.models, Path(tmp))
        for key, path in paths.items():
            start = time.perf_counter()
            mine = ours(path, key)
            theirs = upstream_min(args.upstream, path, args.step) if args.upstream else None
            ratio = f"{mine / theirs:.2f}" if isinstance(theirs, int) and theirs else "-"
            results[key] = {"ours": mine, "upstream": theirs}
            rows.append([key, f"{mine:,}", f"{theirs:,}" if isinstance(theirs, int) else (theirs or "-"), ratio,
                         f"{time.perf_counter() - start:.1f}"])  # fmt: skip
            print(f"{key}: ours {mine} upstream {theirs}", file=sys.stderr, flush=True)
    print("\n".join(table(["model", "ours (B)", "upstream (B)", "ours/upstream", "s"], rows, align="lrrrr")))
    both = [v["ours"] / v["upstream"] for v in results.values() if isinstance(v["upstream"], int) and v["upstream"]]
    if both:
        geo = math.exp(sum(math.log(r) for r in both) / len(both))
        worse = sum(r > 1 for r in both)
        print(f"\ngeo-mean ours/upstream over {len(both)} models: {geo:.2f}; ours larger on {worse}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "min_budget.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
