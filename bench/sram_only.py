"""Smallest SRAM-only budget (`-m FAST+0`, no PSRAM) per zoo model (issue G3, item 3).

Usage: python bench/sram_only.py [--models KEY ...] [--max-recompute PCT] [--skip-mbv2-144] [--out DIR]

For every model of test/models (and MobileNetV2-0.35 @144 int8, the anchors' model, built with
the repo's own builder and quantizer unless --skip-mbv2-144): the smallest SRAM-only budget
`tigris analyze -m T+0` reports (tools/report/sram_only.py): the arena (the plan's peak) plus
the tensors passed between its stages, which without PSRAM share the SRAM; the model's input
and output buffers beside it (not counted, as the published figures do not count them); the
stages, the bytes copied between the arena and the slow buffer, the smallest budget with PSRAM
(the arena alone, `smallest_fitting_budget`) for comparison, and the search time.

Anchors for MobileNetV2-0.35 @144 int8 without external RAM (../shared/notes): MCUNetV2 63 KB,
msf-CNN 8.6 KB at 1.68x MACs (15 KB at 1.38x). Writes `sram_only.json` into --out (default
bench/results/, not tracked).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from zoo_models import build_models, model_keys

from tigris.tools.report.analysis import PlanCache, normalized_module, planned, sram_only_search
from tigris.tools.report.text import table
from tigris.transforms.plan.planner import smallest_fitting_budget

RESULTS = Path(__file__).resolve().parent / "results"
ALIGN = 32


def mobilenet_144_int8(out: Path) -> Path:
    """MobileNetV2-0.35 @144, int8 QDQ (the repo's builder and quantizer, fixed seeds)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "models"))
    import onnx
    from mobilenet_v2 import build_mobilenet_v2
    from quantize import quantize_int8

    path = out / "mobilenet_v2_035_144_int8.onnx"
    onnx.save(quantize_int8(build_mobilenet_v2(resolution=144, width=0.35)), str(path))
    return path


def measure(path: Path, max_recompute: float) -> dict:
    module = normalized_module(path, verify_each=False)
    start = time.perf_counter()
    _, plan = planned(module, 64 << 10, ALIGN, max_recompute)
    floor = smallest_fitting_budget(plan.graph, ALIGN)
    low = sram_only_search(PlanCache(plan, max_recompute), 64 << 10, floor).smallest
    assert low is not None
    return {
        "total": low.total, "arena": low.arena, "between": low.between, "model_io": low.model_io,
        "stages": low.stages, "traffic": low.traffic, "with_psram": floor,
        "seconds": round(time.perf_counter() - start, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=None, help="zoo keys (default: all)")
    parser.add_argument("--max-recompute", type=float, default=10.0, help="percent of MACs (default 10)")
    parser.add_argument("--skip-mbv2-144", action="store_true", help="leave out MobileNetV2-0.35 @144 int8")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = build_models(args.models or model_keys(), Path(tmp))
        if not args.skip_mbv2_144:
            paths["mobilenet_v2_035_144_int8"] = mobilenet_144_int8(Path(tmp))
        for key, path in paths.items():
            rows[key] = measure(path, args.max_recompute)
            print(f"  {key}: {rows[key]}", file=sys.stderr, flush=True)
    kib = lambda n: f"{n / 1024:.1f}"  # noqa: E731
    print(f"smallest SRAM-only budget (-m T+0) per model, --max-recompute {args.max_recompute:g}; KiB")
    print("\n".join(table(
        ["model", "T", "arena", "between", "stages", "I/O (not in T)", "with PSRAM", "traffic", "search s"],
        [[k, kib(r["total"]), kib(r["arena"]), kib(r["between"]), str(r["stages"]), kib(r["model_io"]),
          kib(r["with_psram"]), kib(r["traffic"]), f"{r['seconds']:.1f}"] for k, r in rows.items()],
        align="lrrrrrrrr",
    )))
    if "mobilenet_v2_035_144_int8" in rows:
        t = rows["mobilenet_v2_035_144_int8"]["total"]
        print(f"MobileNetV2-0.35 @144 int8: {t:,} B ({kib(t)} KiB), {'under' if t < 64 << 10 else 'NOT under'} 64 KiB;"
              " anchors: MCUNetV2 63 KB, msf-CNN 15 KB at 1.38x MACs, 8.6 KB at 1.68x")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sram_only.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
