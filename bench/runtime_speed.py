"""Host runtime speed: milliseconds per inference of the C runtime vs onnxruntime, per zoo model.

Usage: python bench/runtime_speed.py [--models KEY ...] [--budget 256K] [--repeat N] [--callgrind]
                                     [--untiled SIZE] [--out DIR] [--upstream-venv DIR]

For each model (float and int8): the plan compiled at --budget is loaded once
(`tigris_host_open`: copy, CRC check, arenas; its median is the "load ms" column) and then
timed per inference (`tigris_host_infer`, the runtime's kernels), without the Python layout
conversions, as the upstream's Session is timed; onnxruntime runs the ONNX
model on one thread (the runtime is single-threaded) with all graph optimizations. Both take
the median of --repeat runs after one warm-up. The ratio says how far the portable reference
kernels are from an optimized CPU engine; it is what a kernel change should move.
`--callgrind` adds instruction counts of one inference under valgrind (when installed),
a figure that does not depend on the machine's load. `--untiled SIZE` adds the same model
compiled at an untiled budget and the tiles' overhead beyond the halo MACs they recompute;
with `--callgrind` also the share of output elements recomputed in halos (every op's element
counted alike, element-wise ops included: `halo_element_fraction`) and the instruction overhead
beyond that instead.

When the bench venv holds the upstream TiGrIS (`tigris-ml`, --upstream-venv), the same ONNX
model is compiled by its CLI at the same budget and its host runtime (`tigris.runtime.Session`,
plan loaded once, channels-last inputs) is timed the same way in a subprocess of that venv;
the table then adds its ms and our ratio to it, and the geo-means over the int8 and the
float models. A model the upstream rejects prints why and gets no upstream figure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from zoo_models import build_models, model_keys

from tigris.tools.report.text import table
from tigris.emit.tgrs import read_plan
from tigris.tools.budgets import parse_size
from tigris.tools.cli import compile_bytes
from tigris.tools.runtime_binding import HostSession, input_bytes
from tigris.tools.runtime_build import RUNTIME_DIR, build, library_sources

RESULTS = Path(__file__).resolve().parent / "results"
UPSTREAM_VENV = Path(os.environ.get("TIGRIS_BENCH_VENV", "/work/bench_venv"))

# Runs inside the upstream's venv (never imported here: its package is also named `tigris`).
# argv: plan, inputs.npz (model order, float), repeat. Prints the median ms as JSON.
UPSTREAM_WORKER = r"""
import json, statistics, sys, time
import numpy as np
from tigris.runtime import Session
plan, inputs, repeat = sys.argv[1], np.load(sys.argv[2]), int(sys.argv[3])
with Session(plan) as session:
    feeds = {}
    for k, info in enumerate(session.inputs):
        value = inputs[inputs.files[k]] if k < len(inputs.files) else None
        if value is not None and value.ndim >= 3 and value.ndim == len(info["shape"]):
            value = np.moveaxis(value, 1, -1)  # channels-last, as the upstream stores activations
        if value is None or value.shape != info["shape"]:
            value = np.random.default_rng(0).standard_normal(info["shape"])
        if info["dtype"].kind in "iu":
            lim = np.iinfo(info["dtype"])
            value = np.clip(np.rint(value * 32), lim.min, lim.max)
        feeds[info["name"]] = np.ascontiguousarray(value.astype(info["dtype"]))
    session.run(feeds)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        session.run(feeds)
        times.append((time.perf_counter() - start) * 1e3)
print(json.dumps({"ms": statistics.median(times)}))
"""


def upstream_ms(path: Path, budget: int, feeds: dict[str, np.ndarray], repeat: int, venv: Path) -> float | str:
    """Median ms of the upstream's runtime on `path` compiled by its CLI at `budget`, or why not."""
    python, cli = venv / "bin" / "python", venv / "bin" / "tigris"
    if not python.exists() or not cli.exists():
        return f"no upstream in {venv}"
    with tempfile.TemporaryDirectory() as tmp:
        plan, inputs = Path(tmp) / "m.tgrs", Path(tmp) / "in.npz"
        np.savez(inputs, *feeds.values())
        done = subprocess.run([str(cli), "compile", str(path), "-m", str(budget), "-o", str(plan)],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0 or not plan.exists():
            return "compile: " + (done.stderr.strip() or done.stdout.strip()).splitlines()[-1][:200]
        done = subprocess.run([str(python), "-c", UPSTREAM_WORKER, str(plan), str(inputs), str(repeat)],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            return "run: " + (done.stderr.strip().splitlines() or ["failed"])[-1][:200]
        return float(json.loads(done.stdout.strip().splitlines()[-1])["ms"])


def geo_mean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def runtime_ms(data: bytes, inputs: list[np.ndarray], repeat: int) -> tuple[float, float]:
    """(load, inference): median milliseconds of opening the plan (copy, CRC check, arenas:
    `tigris_host_open`) and of one inference on the open plan (`tigris_host_infer`), the way
    the upstream's Session is timed (loaded once, then run)."""
    plan = read_plan(data)
    in_bytes = input_bytes(plan, inputs)
    loads, times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        HostSession(data, plan=plan).close()
        loads.append((time.perf_counter() - start) * 1e3)
    with HostSession(data, plan=plan) as session:
        out = session.infer(in_bytes)  # warms caches (the library is built and loaded already)
        for _ in range(repeat):
            start = time.perf_counter()
            session.infer(in_bytes, out)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(loads), statistics.median(times)


def onnxruntime_ms(path: Path, feeds: dict[str, np.ndarray], repeat: int) -> float:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    session.run(None, feeds)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def callgrind_instructions(data: bytes, inputs_bytes: bytes, folder: Path) -> int | None:
    """Instructions of one inference (inside `tigris_run`, so neither loading nor the CRC check
    counts) of the host runner `tigris-run`, or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    tools = RUNTIME_DIR / "tools"
    runner = build("tigris-run", [*library_sources(), tools / "tigris_run.c", tools / "tigris_host.c"],
                   extra_flags=[f"-I{tools}"])
    (folder / "m.tgrs").write_bytes(data)
    (folder / "in.bin").write_bytes(inputs_bytes)
    out = folder / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=tigris_run", f"--callgrind-out-file={out}", str(runner),
                    str(folder / "m.tgrs"), str(folder / "in.bin"), str(folder / "out.bin")],
                   check=True, capture_output=True)
    for line in out.read_text().splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    return None


def halo_fraction(path: Path, budget: int) -> float:
    """MACs recomputed in halos at `budget`, as a fraction of the model's MACs (the planner's
    own count, as `tigris analyze` reports it): the part of a tiled run's extra time that tiling
    cannot avoid."""
    from tigris.tools.report.analysis import normalized_module, planned
    from tigris.transforms.plan.planner import total_macs

    _, plan = planned(normalized_module(path), budget, 32)
    total = total_macs(plan.graph)
    return plan.halo_macs / total if total else 0.0


def halo_element_fraction(path: Path, budget: int) -> float:
    """Output elements recomputed in halos at `budget`, as a fraction of the output elements of
    every op of the model: the MAC figure (`halo_fraction`) with every op's output element
    counted once, whatever the op. Why a second figure: MACs count an element-wise op's element
    as one MAC, a conv's as its window's taps, so a Sigmoid recomputed on halo rows (an expf, some
    tens of instructions) weighs next to nothing there; here a recomputed element of any op
    weighs what any other does, so element-wise recompute shows (and a conv's weighs less than
    its MACs: neither figure prices an element at what it costs). Recomputed elements of a step
    are its output's elements times (computed - total) / total, with the planner's per-step
    (rows [x columns] computed by the tiles, rows [x columns]) (`recompute_macs` does the same
    with the step's MACs): reduction tiles and dense blocks recompute nothing."""
    from tigris.tools.report.analysis import normalized_module, planned
    from tigris.transforms.plan import row_cache
    from tigris.transforms.plan.planner import groups
    from tigris.transforms.plan.tiling import computed_elements

    _, plan = planned(normalized_module(path), budget, 32)
    g = plan.graph
    total = sum(math.prod(g.tensors[s.outputs[0]].shape) for s in g.steps if s.outputs)
    extra = 0
    for group in groups(plan):
        tile = group[0].tile
        if tile is None or tile.reduces or tile.feature_blocks:
            continue
        stages = [sp.stage for sp in group]
        found = (row_cache.cached_computed(g, stages, tile.tile_h) if tile.row_cache
                 else computed_elements(g, stages, tile))
        for step, (computed, whole) in found.items():
            if computed > whole and whole:
                extra += math.prod(g.tensors[g.steps[step].outputs[0]].shape) * (computed - whole) // whole
    return extra / total if total else 0.0


def measure(paths: dict[str, Path], budget: int, repeat: int, callgrind: bool,
            upstream: Path | None, untiled: int | None = None) -> list[dict[str, Any]]:
    import ort_helpers  # test/models, on the path through zoo_models

    rows = []
    for key, path in paths.items():
        data = compile_bytes(str(path), budget)
        feeds = ort_helpers.random_inputs(path, 0)
        inputs = list(feeds.values())
        (load, ours), theirs = runtime_ms(data, inputs, repeat), onnxruntime_ms(path, feeds, repeat)
        row: dict[str, Any] = {"model": key, "budget_bytes": budget, "stages": len(read_plan(data).stages),
                               "load_ms": round(load, 3), "tigris_ms": round(ours, 3),
                               "onnxruntime_ms": round(theirs, 3),
                               "ratio": round(ours / theirs, 2)}
        if upstream is not None:
            up = upstream_ms(path, budget, feeds, repeat, upstream)
            if isinstance(up, str):
                print(f"{key}: upstream skipped: {up}", file=sys.stderr)
            else:
                row["upstream_ms"] = round(up, 3)
                row["vs_upstream"] = round(ours / up, 3)
        if callgrind:
            with tempfile.TemporaryDirectory() as tmp:
                row["instructions"] = callgrind_instructions(data, input_bytes(read_plan(data), inputs), Path(tmp))
        if untiled is not None:  # the tiles' cost beyond their halo recompute
            flat = compile_bytes(str(path), untiled)
            row["untiled_ms"] = round(runtime_ms(flat, inputs, repeat)[1], 3)
            row["halo_pct"] = round(100 * halo_fraction(path, budget), 2)
            row["halo_elem_pct"] = round(100 * halo_element_fraction(path, budget), 2)
            row["tile_overhead_pct"] = round(100 * (ours / row["untiled_ms"] - 1) - row["halo_pct"], 1)
            if upstream is not None:  # the upstream at the same untiled budget, for the untiled ratio
                up = upstream_ms(path, untiled, feeds, repeat, upstream)
                if isinstance(up, str):
                    print(f"{key}: upstream untiled skipped: {up}", file=sys.stderr)
                else:
                    row["upstream_untiled_ms"] = round(up, 3)
                    row["vs_upstream_untiled"] = round(row["untiled_ms"] / up, 3)
            if callgrind:
                with tempfile.TemporaryDirectory() as tmp:
                    flat_in = input_bytes(read_plan(flat), inputs)
                    row["untiled_instructions"] = callgrind_instructions(flat, flat_in, Path(tmp))
                if row["instructions"] and row["untiled_instructions"]:
                    row["tile_overhead_instr_pct"] = round(
                        100 * (row["instructions"] / row["untiled_instructions"] - 1) - row["halo_pct"], 1)
                    row["tile_overhead_instr_elem_pct"] = round(
                        100 * (row["instructions"] / row["untiled_instructions"] - 1) - row["halo_elem_pct"], 1)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=model_keys(), metavar="KEY")
    parser.add_argument("--budget", default="256K")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--upstream-venv", type=Path, default=UPSTREAM_VENV,
                        help="venv holding tigris-ml (default: %(default)s; skipped when absent)")
    parser.add_argument("--no-upstream", action="store_true", help="do not time the upstream's runtime")
    parser.add_argument("--untiled", metavar="SIZE",
                        help="also run each model compiled at this (untiled) budget, e.g. 4M, and print the "
                             "tiles' overhead beyond their halo recompute: (tiled / untiled - 1) - halo MACs")
    args = parser.parse_args(argv)
    upstream = None if args.no_upstream or not (args.upstream_venv / "bin" / "tigris").exists() else args.upstream_venv
    with tempfile.TemporaryDirectory() as tmp:
        untiled = parse_size(args.untiled, "--untiled") if args.untiled else None
        rows = measure(build_models(args.models, Path(tmp)), parse_size(args.budget, "--budget"),
                       args.repeat, args.callgrind, upstream, untiled)
    header = ["model", "stages", "load ms", "tigris ms", "onnxruntime ms", "ratio"]
    header += ["upstream ms", "vs upstream"] if upstream else []
    header += ["instructions"] if args.callgrind else []
    header += ["untiled ms", "halo %", "tile overhead %"] if args.untiled else []
    header += ["upstream untiled ms", "vs upstream untiled"] if args.untiled and upstream else []
    header += ["tile overhead % (instr)"] if args.untiled and args.callgrind else []
    header += ["halo elem %", "tile overhead % (instr, elem halo)"] if args.untiled and args.callgrind else []
    cells = []
    for r in rows:
        cell = [r["model"], str(r["stages"]), f"{r['load_ms']:.2f}", f"{r['tigris_ms']:.2f}", f"{r['onnxruntime_ms']:.2f}", f"{r['ratio']:.2f}x"]
        if upstream:
            cell += [f"{r['upstream_ms']:.2f}", f"{r['vs_upstream']:.2f}x"] if "upstream_ms" in r else ["-", "-"]
        if args.callgrind:
            cell += [f"{r['instructions']:,}" if r["instructions"] else "-"]
        if args.untiled:
            cell += [f"{r['untiled_ms']:.2f}", f"{r['halo_pct']:.1f}", f"{r['tile_overhead_pct']:.1f}"]
            if upstream:
                cell += ([f"{r['upstream_untiled_ms']:.2f}", f"{r['vs_upstream_untiled']:.2f}x"]
                         if "upstream_untiled_ms" in r else ["-", "-"])
            if args.callgrind:
                cell += [f"{r['tile_overhead_instr_pct']:.1f}" if "tile_overhead_instr_pct" in r else "-"]
                cell += [f"{r['halo_elem_pct']:.1f}",
                         f"{r['tile_overhead_instr_elem_pct']:.1f}" if "tile_overhead_instr_elem_pct" in r else "-"]
        cells.append(cell)
    print("\n".join(table(header, cells, align="l" + "r" * (len(header) - 1))))
    for kind, pick in (("int8", lambda k: k.endswith("_int8")), ("float", lambda k: not k.endswith("_int8"))):
        chosen = [r for r in rows if pick(r["model"])]
        vs_ort = geo_mean([r["ratio"] for r in chosen])
        vs_up = geo_mean([r["vs_upstream"] for r in chosen if "vs_upstream" in r])
        vs_up_flat = geo_mean([r["vs_upstream_untiled"] for r in chosen if "vs_upstream_untiled" in r])
        if vs_ort is not None:
            print(f"geo-mean {kind} ({len(chosen)} models): ours / onnxruntime {vs_ort:.2f}x"
                  + (f", ours / upstream {vs_up:.2f}x" if vs_up is not None else "")
                  + (f", untiled ours / upstream {vs_up_flat:.2f}x" if vs_up_flat is not None else ""))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "runtime_speed.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
