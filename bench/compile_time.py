"""Compile time per model and phase, and how it grows with graph size.

Usage: python bench/compile_time.py [--models KEY ...] [--float-only] [--budget 256K]
                                    [--densenet 25,50,100,200] [--repeat N] [--top N] [--out DIR]

Per zoo model: seconds to import, normalize, plan, lower and emit (the `.tgrs` bytes),
`other` (tigris-compile outside its passes: verifying the module after each one), the
total, and the slowest passes. Then a DenseNet-like
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
import sys
import tempfile
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
LOWER = ("layout-nhwc", "compute-quant-scales", "group-weights")
PHASES = ("import", "normalize", "plan", "lower", "other", "emit", "total")


@dataclass
class CompileTime:
    model: str
    ops: int
    stages: int
    convs: int
    seconds: dict[str, float]  # PHASES -> seconds
    slowest: list[tuple[str, float]] = field(default_factory=list)  # passes, slowest first


def compile_once(path: Path, budget: int, compress: str) -> tuple[Timer, int, int]:
    """Time `tigris compile`'s calls on one model: (timer tree, ops, stages)."""
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
        TigrisCompilePass(budget=budget, compress=compress).apply(Context(), module)
        with timing.scope("emit"):
            write_plan(plan_file_from_module(module, budget), compress)
    stages = main_func(module).attributes.get("tgr.stages")
    return timing.stop(), len(build_plan_graph(module).steps), len(stages.data) if isinstance(stages, ArrayAttr) else 0


def phases(root: Timer) -> dict[str, float]:
    """The timer tree folded into PHASES. `other` is tigris-compile's own time outside its
    passes: mostly `module.verify()` after each pass (and, with lz4, choosing the plan budget)."""
    compile_ = root.find("tigris-compile")
    assert compile_ is not None
    children = {c.name: c.seconds for c in compile_.children}
    seconds = {
        "import": root.child("import").seconds,
        "normalize": sum(children.get(name, 0.0) for name in NORMALIZE),
        "plan": children.get("tigris-plan", 0.0),
        "lower": sum(children.get(name, 0.0) for name in LOWER),
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
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    budget = args.budget
    sizes = [int(n) for n in args.densenet.split(",") if n.strip()]
    keys = model_keys(int8=not args.float_only) if args.models is None else args.models
    for factory in get_all_passes().values():  # load every pass up front: imports are not compile time
        factory()
    with tempfile.TemporaryDirectory(prefix="tigris-bench-") as tmp:
        paths = build_models(keys, Path(tmp))
        dense = {}
        for n in sizes:
            dense[n] = Path(tmp) / f"densenet{n}.onnx"
            dense[n].write_bytes(build_densenet(n).SerializeToString())
        if paths or dense:  # warm-up: first-use imports (onnx, the interpreter) would land in one row
            compile_once(next(iter([*paths.values(), *dense.values()])), budget, args.compress)
        zoo_rows = [measure(k, p, budget, args.compress, args.repeat, args.top) for k, p in paths.items()]
        dense_rows = [measure(f"densenet{conv_count(n)}", dense[n], budget, args.compress, args.repeat, args.top,
                              conv_count(n)) for n in sizes]
    print(f"compile time in seconds at a {size(budget)} budget (fastest of {args.repeat}; "
          "other: tigris-compile outside its passes, mostly verifying the module after each)")
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
                "models": [asdict(r) for r in zoo_rows], "densenet": [asdict(r) for r in dense_rows]}
    out.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
