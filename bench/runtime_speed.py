"""Host runtime speed: milliseconds per inference of the C runtime vs onnxruntime, per zoo model.

Usage: python bench/runtime_speed.py [--models KEY ...] [--budget 256K] [--repeat N] [--callgrind]
                                     [--out DIR]

For each model (float and int8): the plan compiled at --budget runs through the same call
`tigris run` makes (`tigris_host_run`: load with CRC check, arenas, tigris_run with the
reference kernels), timed without the Python layout conversions; onnxruntime runs the ONNX
model on one thread (the runtime is single-threaded) with all graph optimizations. Both take
the median of --repeat runs after one warm-up. The ratio says how far the portable reference
kernels are from an optimized CPU engine; it is what a kernel change should move.
`--callgrind` adds instruction counts of one inference under valgrind (when installed),
a figure that does not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import ctypes
import json
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
from tigris.tools.runtime_binding import STATS_SLOTS, host_library, input_bytes
from tigris.tools.runtime_build import RUNTIME_DIR, build, library_sources

RESULTS = Path(__file__).resolve().parent / "results"


def runtime_ms(data: bytes, inputs: list[np.ndarray], repeat: int) -> float:
    """Median milliseconds of `tigris_host_run` on prepared bytes."""
    plan = read_plan(data)
    in_bytes = input_bytes(plan, inputs)
    out = ctypes.create_string_buffer(sum(plan.tensors[t].nbytes for t in plan.outputs))
    stats = (ctypes.c_uint32 * STATS_SLOTS)()
    err = ctypes.create_string_buffer(256)
    lib = host_library()
    times = []
    for i in range(repeat + 1):
        start = time.perf_counter()
        rc = lib.tigris_host_run(data, len(data), in_bytes, len(in_bytes), out, len(out), 0, 0, stats, err, len(err))
        if rc != 0:
            raise RuntimeError(err.value.decode())
        if i:  # the first run warms caches (and builds nothing: the library is loaded already)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


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
    """Instructions of one `tigris-run` inference (the host runner), or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    tools = RUNTIME_DIR / "tools"
    runner = build("tigris-run", [*library_sources(), tools / "tigris_run.c", tools / "tigris_host.c"],
                   extra_flags=[f"-I{tools}"])
    (folder / "m.tgrs").write_bytes(data)
    (folder / "in.bin").write_bytes(inputs_bytes)
    out = folder / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(runner),
                    str(folder / "m.tgrs"), str(folder / "in.bin"), str(folder / "out.bin")],
                   check=True, capture_output=True)
    for line in out.read_text().splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    return None


def measure(paths: dict[str, Path], budget: int, repeat: int, callgrind: bool) -> list[dict[str, Any]]:
    import ort_helpers  # test/models, on the path through zoo_models

    rows = []
    for key, path in paths.items():
        data = compile_bytes(str(path), budget)
        feeds = ort_helpers.random_inputs(path, 0)
        inputs = list(feeds.values())
        ours, theirs = runtime_ms(data, inputs, repeat), onnxruntime_ms(path, feeds, repeat)
        row: dict[str, Any] = {"model": key, "budget_bytes": budget, "stages": len(read_plan(data).stages),
                               "tigris_ms": round(ours, 3), "onnxruntime_ms": round(theirs, 3),
                               "ratio": round(ours / theirs, 2)}
        if callgrind:
            with tempfile.TemporaryDirectory() as tmp:
                row["instructions"] = callgrind_instructions(data, input_bytes(read_plan(data), inputs), Path(tmp))
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=model_keys(), metavar="KEY")
    parser.add_argument("--budget", default="256K")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = measure(build_models(args.models, Path(tmp)), parse_size(args.budget, "--budget"),
                       args.repeat, args.callgrind)
    header = ["model", "stages", "tigris ms", "onnxruntime ms", "ratio"] + (["instructions"] if args.callgrind else [])
    cells = [[r["model"], str(r["stages"]), f"{r['tigris_ms']:.2f}", f"{r['onnxruntime_ms']:.2f}", f"{r['ratio']:.1f}x"]
             + ([f"{r['instructions']:,}" if r["instructions"] else "-"] if args.callgrind else []) for r in rows]
    print("\n".join(table(header, cells, align="lrrrr" + ("r" if args.callgrind else ""))))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "runtime_speed.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
