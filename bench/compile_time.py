"""Compile time per model and phase, and how it grows with graph size.

Usage: python bench/compile_time.py [--models KEY ...] [--float-only] [--budget 256K]
                                    [--densenet 25,50,100,200] [--repeat N] [--top N] [--out DIR]
                                    [--upstream-venv DIR | --no-upstream]

First, per zoo model, the whole process as a user runs it (start-up and imports included):
`tigris compile MODEL -m BUDGET -o F` and `tigris analyze MODEL -m BUDGET`, median of
--repeat runs (wall and CPU seconds, ours and the upstream's taking turns), and, when the
bench venv holds the upstream TiGrIS (`tigris-ml`), the upstream's CLI on the same model and
budget with the ratios ours/upstream (<= 1: at most the upstream's time).
Then where our time goes: the Python start-up and `tigris.tools.cli` import (`startup`),
the first-use imports of the compile path (`imports`), and per model seconds to import the
ONNX file, normalize, plan, lower, verify (once after import, once before emission, as
`tigris compile` does), `other` (tigris-compile outside its passes), emit (the `.tgrs`
bytes), the total, and the slowest passes. Then a DenseNet-like
graph (bench/densenet.py, 224x224, Concats of every earlier feature map) at growing
sizes: the same phases, milliseconds per convolution, and the growth exponent k of
total time ~ convs^k between successive sizes (1 is linear).

Why: `tigris compile` must stay usable on real networks; a planner step that is
quadratic in the op count is invisible on the test zoo and obvious here. The phases
are timed with the machinery of `tigris-opt --timing` (tools/timing.py) around the
calls `tigris compile` makes, so the figures are the compile path's. Writes
`compile_time.json` into --out (default bench/results/, not tracked).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from densenet import build_densenet, conv_count
from zoo_models import build_models, model_keys

from tigris.tools.report.text import size, table
from tigris.tools.budgets import parse_size
from tigris.tools.timing import Timer, Timing, loaded_pass_classes
from tigris.transforms import get_all_passes
from tigris.transforms.pipelines import NORMALIZE

RESULTS = Path(__file__).resolve().parent / "results"
UPSTREAM_VENV = Path(os.environ.get("TIGRIS_BENCH_VENV", "/work/bench_venv"))
LOWER = ("layout-nhwc", "compute-quant-scales", "group-weights")
PHASES = ("import", "normalize", "plan", "lower", "verify", "other", "emit", "total")
COMMANDS = ("compile", "analyze")


@dataclass
class CompileTime:
    model: str
    ops: int
    stages: int
    convs: int
    seconds: dict[str, float]  # PHASES -> seconds
    slowest: list[tuple[str, float]] = field(default_factory=list)  # passes, slowest first


def compile_once(path: Path, budget: int, compress: str) -> tuple[Timer, int, int]:
    """Time `tigris compile`'s calls (`compile_bytes`, step by step) on one model: (timer tree,
    ops, stages)."""
    from xdsl.context import Context
    from xdsl.dialects.builtin import ArrayAttr

    from tigris.dialects.onnx.importer import import_model_file
    from tigris.emit.tgrs import write_plan
    from tigris.emit.tgrs.from_ir import plan_file_from_module
    from tigris.transforms.pipelines import TigrisCompilePass
    from tigris.transforms.plan.graph import build_plan_graph, main_func

    timing = Timing()
    with timing.instrument(loaded_pass_classes()):
        with timing.scope("import"):
            module = import_model_file(path)
        with timing.scope("verify"):
            module.verify()
        with timing.scope("tigris-compile"):
            TigrisCompilePass(budget=budget, compress=compress).run(Context(), module, verify_each=False)
        with timing.scope("verify"):
            module.verify()
        with timing.scope("emit"):
            write_plan(plan_file_from_module(module, budget), compress)
    stages = main_func(module).attributes.get("tgr.stages")
    return timing.stop(), len(build_plan_graph(module).steps), len(stages.data) if isinstance(stages, ArrayAttr) else 0


def phases(root: Timer) -> dict[str, float]:
    """The timer tree folded into PHASES. `other` is tigris-compile's own time outside its
    passes (with lz4: choosing the plan budget)."""
    compile_ = root.find("tigris-compile")
    assert compile_ is not None
    children = {c.name: c.seconds for c in compile_.children}
    seconds = {
        "import": root.child("import").seconds,
        "normalize": sum(children.get(name, 0.0) for name in NORMALIZE),
        "plan": children.get("tigris-plan", 0.0),
        "lower": sum(children.get(name, 0.0) for name in LOWER),
        "verify": root.child("verify").seconds,
        "other": compile_.seconds - sum(children.values()),
        "emit": root.child("emit").seconds,
        "total": root.seconds,
    }
    return {k: round(v, 4) for k, v in seconds.items()}


def measure(name: str, path: Path, budget: int, compress: str, repeat: int, top: int, convs: int = 0) -> CompileTime:
    """The fastest of `repeat` runs (the others differ by noise, not by work)."""
    runs = [compile_once(path, budget, compress) for _ in range(repeat)]
    root, ops, stages = min(runs, key=lambda run: run[0].seconds)
    passes = set(get_all_passes()) - {"tigris-compile", "tigris-plan"}
    slowest = sorted(((t.name, round(t.seconds, 4)) for t in root.leaves() if t.name in passes), key=lambda p: -p[1])
    return CompileTime(name, ops, stages, convs, phases(root), slowest[:top])


def render(rows: list[CompileTime], per_conv: bool) -> str:
    header = ["model", "ops", "stages", *PHASES, *(["ms/conv", "k"] if per_conv else ["slowest passes"])]
    cells = []
    for i, r in enumerate(rows):
        cell = [r.model, str(r.ops), str(r.stages), *(f"{r.seconds[p]:.3f}" for p in PHASES)]
        if per_conv:
            cell += [f"{1000 * r.seconds['total'] / r.convs:.1f}", _exponent(rows[i - 1], r) if i else "-"]
        else:
            cell.append(", ".join(f"{name} {s:.3f}" for name, s in r.slowest))
        cells.append(cell)
    return "\n".join(table(header, cells, align="l" + "r" * (len(header) - 2) + ("r" if per_conv else "l"))) + "\n"


def process_run(argv: list[str]) -> tuple[float, float] | str:
    """(wall seconds, CPU seconds) of `argv` as a whole process (start-up included), or why it
    failed. CPU time (user + system of the child) is the steadier figure on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return lines[-1] if lines else f"exit {done.returncode}"
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def median_runs(argvs: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float] | str]:
    """Per name, the median (wall, CPU) of `repeat` runs, the commands taking turns so that a
    change in the machine's load falls on all of them alike."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in argvs}
    failed: dict[str, str] = {}
    for _ in range(repeat):
        for name, argv in argvs.items():
            if name not in failed:
                result = process_run(argv)
                if isinstance(result, str):
                    failed[name] = result
                else:
                    runs[name].append(result)
    return {name: failed.get(name) or (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
            for name, r in runs.items()}


def cli_argv(tigris: list[str], command: str, model: Path, budget: int, out: Path) -> list[str]:
    """The same command line for ours and the upstream's (both take `-m` and `-o`)."""
    args = [*tigris, command, str(model), "-m", str(budget)]
    return args + ["-o", str(out)] if command == "compile" else args


def our_tigris() -> list[str]:
    """Our `tigris` console script beside this interpreter (the same one `pip install` makes)."""
    script = Path(sys.executable).parent / "tigris"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from tigris.tools.cli import entry_point; entry_point()"]


def whole_process(paths: dict[str, Path], budget: int, repeat: int, upstream: Path | None, tmp: Path) -> list[dict]:
    """Per model and command: our seconds (wall and CPU), the upstream's and the ratios (or why
    one failed)."""
    rows = []
    for key, path in paths.items():
        for command in COMMANDS:
            argvs = {"ours": cli_argv(our_tigris(), command, path, budget, tmp / "ours.tgrs")}
            if upstream is not None:
                argvs["upstream"] = cli_argv([str(upstream)], command, path, budget, tmp / "upstream.tgrs")
            row: dict = {"model": key, "command": command}
            for name, result in median_runs(argvs, repeat).items():
                row[name] = result if isinstance(result, str) else round(result[0], 3)
                if not isinstance(result, str):
                    row[f"{name}_cpu"] = round(result[1], 3)
            if isinstance(row["ours"], float) and isinstance(row.get("upstream"), float):
                row["ratio"] = round(row["ours"] / row["upstream"], 2)
                row["cpu_ratio"] = round(row["ours_cpu"] / row["upstream_cpu"], 2)
            rows.append(row)
    return rows


def render_process(rows: list[dict], upstream: bool) -> str:
    header = ["model", "command", "ours s", "cpu s",
              *(["upstream s", "cpu s", "ours/upstream", "cpu ratio"] if upstream else [])]
    def cell(value: object) -> str:
        return f"{value:.3f}" if isinstance(value, float) else ("-" if value is None else str(value)[:40])
    keys = ["ours", "ours_cpu", *(["upstream", "upstream_cpu", "ratio", "cpu_ratio"] if upstream else [])]
    cells = [[r["model"], r["command"], *(cell(r.get(k)) for k in keys)] for r in rows]
    lines = table(header, cells, align="ll" + "r" * (len(header) - 2))
    for what, key in (("wall", "ratio"), ("CPU", "cpu_ratio")):
        ratios = [r[key] for r in rows if key in r]
        if ratios:
            lines.append(f"ours/upstream ({what}): worst {max(ratios):.2f}, median {statistics.median(ratios):.2f}; "
                         f"{sum(x <= 1 for x in ratios)} of {len(ratios)} at most the upstream's time")
    return "\n".join(lines) + "\n"


def startup_seconds(repeat: int) -> dict[str, float]:
    """Python start-up + `import tigris.tools.cli` (what `--help` pays), and the imports the
    compile path adds on first use (xDSL, our dialects and passes, onnx, numpy, the emitter)."""
    cli = [sys.executable, "-c", "import tigris.tools.cli"]
    full = [sys.executable, "-c", (
        "import tigris.tools.cli, tigris.dialects.onnx.importer, tigris.emit.tgrs.target, "
        "tigris.transforms.pipelines; from tigris.transforms import get_all_passes; "
        "[f() for f in get_all_passes().values()]"
    )]
    runs = median_runs({"startup": cli, "full": full}, repeat)
    startup, total = runs["startup"], runs["full"]
    assert not isinstance(startup, str) and not isinstance(total, str), (startup, total)
    return {"startup": round(startup[0], 3), "imports": round(total[0] - startup[0], 3),
            "startup_cpu": round(startup[1], 3), "imports_cpu": round(total[1] - startup[1], 3)}


def _exponent(small: CompileTime, large: CompileTime) -> str:
    """k in total ~ convs^k between two sizes."""
    ratio_t, ratio_n = large.seconds["total"] / small.seconds["total"], large.convs / small.convs
    return f"{math.log(ratio_t) / math.log(ratio_n):.2f}" if ratio_n > 1 and ratio_t > 0 else "-"


def budget_size(text: str) -> int:
    """A budget in the CLI's size syntax (argparse prints the error)."""
    try:
        return parse_size(text, "--budget")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", metavar="KEY", choices=model_keys(), help=f"zoo models (default all): {' '.join(model_keys())}")
    parser.add_argument("--float-only", action="store_true", help="skip the int8 variants (with the default model list)")
    parser.add_argument("--budget", type=budget_size, default="256K", help="SRAM budget to plan at (default 256K)")
    parser.add_argument("--compress", choices=("none", "lz4"), default="none", help="weight compression")
    parser.add_argument("--densenet", default="25,50,100,200", metavar="N,N,...",
                        help="DenseNet-like sizes in convolutions (default 25,50,100,200; empty: none)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per model, the fastest is kept (default 3)")
    parser.add_argument("--top", type=int, default=3, help="slowest passes to list per model (default 3)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where compile_time.json goes (default bench/results/)")
    parser.add_argument("--upstream-venv", type=Path, default=UPSTREAM_VENV,
                        help="venv holding the upstream TiGrIS CLI, bin/tigris (default $TIGRIS_BENCH_VENV or /work/bench_venv)")
    parser.add_argument("--no-upstream", action="store_true", help="do not time the upstream's CLI")
    parser.add_argument("--no-process", action="store_true", help="skip the whole-process table")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    budget = args.budget
    sizes = [int(n) for n in args.densenet.split(",") if n.strip()]
    keys = model_keys(int8=not args.float_only) if args.models is None else args.models
    up_cli = args.upstream_venv / "bin" / "tigris"
    upstream = None if args.no_upstream or not up_cli.exists() else up_cli
    for factory in get_all_passes().values():  # load every pass up front: imports are not compile time
        factory()
    with tempfile.TemporaryDirectory(prefix="tigris-bench-") as tmp:
        paths = build_models(keys, Path(tmp))
        process = [] if args.no_process else whole_process(paths, budget, args.repeat, upstream, Path(tmp))
        startup = startup_seconds(args.repeat)
        dense = {}
        for n in sizes:
            dense[n] = Path(tmp) / f"densenet{n}.onnx"
            dense[n].write_bytes(build_densenet(n).SerializeToString())
        if paths or dense:  # warm-up: first-use imports (onnx, the interpreter) would land in one row
            compile_once(next(iter([*paths.values(), *dense.values()])), budget, args.compress)
        zoo_rows = [measure(k, p, budget, args.compress, args.repeat, args.top) for k, p in paths.items()]
        dense_rows = [measure(f"densenet{conv_count(n)}", dense[n], budget, args.compress, args.repeat, args.top,
                              conv_count(n)) for n in sizes]
    if process:
        print(f"whole process (start-up included), seconds at a {size(budget)} budget, median of {args.repeat}"
              + ("" if upstream else " (no upstream CLI: --upstream-venv)"))
        sys.stdout.write(render_process(process, upstream is not None) + "\n")
    print(f"start-up: python + import tigris.tools.cli {startup['startup']:.3f} s (CPU {startup['startup_cpu']:.3f}); "
          f"first-use imports of the compile path {startup['imports']:.3f} s (CPU {startup['imports_cpu']:.3f}), "
          f"median of {args.repeat}")
    print(f"compile time in seconds at a {size(budget)} budget, in process (fastest of {args.repeat}; "
          "verify: once after import and once before emission)")
    if zoo_rows:
        sys.stdout.write(render(zoo_rows, per_conv=False))
    if dense_rows:
        print("\nDenseNet-like, 224x224: growth with graph size (k: total ~ convs^k from the previous row)")
        sys.stdout.write(render(dense_rows, per_conv=True))
        for r in dense_rows:
            print(f"  {r.model}: slowest " + ", ".join(f"{name} {s:.3f}" for name, s in r.slowest))
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "compile_time.json"
    document = {"budget_bytes": budget, "compress": args.compress, "repeat": args.repeat,
                "whole_process": process, "startup": startup,
                "models": [asdict(r) for r in zoo_rows], "densenet": [asdict(r) for r in dense_rows]}
    out.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
