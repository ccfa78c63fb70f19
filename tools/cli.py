"""`tigris`: the user-facing driver: analyze, compile, run, inspect.

It holds no compiler logic: each subcommand parses its flags, calls the pipeline or
report function that does the work (`tigris.tools.report.analyze`) and prints the
result. A mistake the user can make (missing file, bad size, unsupported op, a misused
flag) prints one `error: ...` line on stderr and exits 1 (argparse's usage errors keep
their usage text, but exit 1 too: `exit_status`).
Heavy imports (xDSL, onnx) wait until a subcommand runs, so `--help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports xDSL only when a command needs it (start-up time)
    from xdsl.dialects.builtin import ModuleOp

EPILOG = """examples:
  tigris analyze model.onnx -m 256K -f 4M       # does it fit 256 KiB of SRAM and 4 MiB of flash?
  tigris analyze model.onnx -m 64K+8M -v        # 64 KiB SRAM + 8 MiB PSRAM, one row per stage
  tigris analyze model.onnx -m 64K --json       # the same facts as JSON
  tigris compile model.onnx -m 64K -o model.tgrs   # write the execution plan
  tigris run model.tgrs --input x.npy --output y.npy   # run it on this host (C runtime)
  tigris inspect model.tgrs                     # what is in a plan
  tigris --version
  tigris-opt model.onnx                         # the imported IR (onnx dialect)
  tigris-opt model.onnx --elide-weights         # the same, weights as handles only
"""

ANALYZE_EPILOG = """sizes are bytes with an optional binary unit, any case: 262144, 256K, 256KiB,
1.5M, 0.5M (K = KB = KiB = 1024 bytes; M = 1024 K; fractions must give whole bytes).

verdicts: fits (untiled stages within the budget), fits tiled (thanks to tiling or
chains), overflows (a stage's scheduled peak exceeds the budget), cannot run (the
budget is below the minimum some op needs even tiled).

examples:
  tigris analyze model.onnx -m 256K -f 4M
  tigris analyze model.onnx -m 64K+8M -v
  tigris analyze model.onnx -m 64K+0          # no PSRAM: SRAM-only plan, smallest SRAM-only budget
  tigris analyze model.onnx -m 64K --json --input-shape input:1x3x224x224
  tigris analyze model.onnx -m 64K --plot mem.svg --plot-tiles tiles.png   # needs tigris[plot]

On a terminal, the phases (import, normalize, plan, plots) are shown on stderr as they start.
"""


COMPILE_EPILOG = """sizes as for analyze (256K, 1.5M, ...). On a terminal, the phases are shown on stderr.

examples:
  tigris compile model.onnx -m 256K -f 4M --xip -o model.tgrs   # weights read in place from flash
  tigris compile model.onnx -m 64K -c lz4 -o model.tgrs         # weight blocks LZ4-compressed
  tigris compile model.onnx -m 64K --input-shape input:1x3x96x96 -o model.tgrs
  tigris compile model.onnx -m 64K+0 -o model.tgrs    # no PSRAM: arena + tensors between stages <= 64K
  tigris compile model.onnx -m 64K+8M -o model.tgrs   # refuse a plan whose slow-memory peak exceeds 8M
"""

INSPECT_EPILOG = """examples:
  tigris inspect model.tgrs
  tigris inspect model.tgrs --json | python -m json.tool
"""


class _VersionAction(argparse.Action):
    """`--version`: the installed version, read from the package metadata only when asked
    (importlib.metadata costs every other command tens of milliseconds)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version

        sys.stdout.write(f"tigris {version('tigris')}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tigris",
        description="Fit neural networks into microcontroller memory: ONNX in, .tgrs execution plan out.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    analyze = commands.add_parser(
        "analyze",
        help="plan a model at a memory budget and report whether and how it fits",
        description="Import and normalize an ONNX model, plan it at the SRAM budget and report "
        "the verdict, peaks, stages, slow-memory use, flash size and a budget sweep.",
        epilog=ANALYZE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    analyze.add_argument("model", help="the model: .onnx, or ONNX text (.onnxtxt)")
    analyze.add_argument(
        "-m", "--memory", required=True, metavar="FAST[+SLOW]",
        help="SRAM budget, optionally + PSRAM size to check the slow-memory peak against (e.g. 256K+8M)",
    )
    analyze.add_argument("-f", "--flash", metavar="FLASH", help="flash size to check weights + plan against")
    analyze.add_argument(
        "--align", metavar="N", help="tensor alignment in bytes, a power of two (default: the planner's, 32)"
    )
    analyze.add_argument("--max-recompute", metavar="PCT", help=MAX_RECOMPUTE_HELP)
    analyze.add_argument("--cuts", choices=("shortest", "greedy"), default="shortest", help=CUTS_HELP)
    analyze.add_argument(
        "--input-shape", action="append", default=[], metavar="NAME:DxD...",
        help="bind the dynamic dims of an ONNX input, e.g. input:1x3x224x224 (repeatable)",
    )
    output = analyze.add_mutually_exclusive_group()
    output.add_argument("-v", "--verbose", action="store_true", help="add one row per stage")
    output.add_argument(
        "--json", action="store_true",
        help="print the report as JSON and nothing else (`stage_count` counts the stages, `stages` lists them)",
    )
    analyze.add_argument(
        "--plot", metavar="FILE",
        help="write a figure (.svg, .png or .pdf) of live memory per step: unscheduled and planned, "
        "the budget, stages (tiled and chained ones shaded) and spills; needs matplotlib (tigris[plot])",
    )
    analyze.add_argument(
        "--plot-tiles", metavar="FILE",
        help="write a figure of each tiled stage's and chain's bands and halos, rows on the y axis",
    )
    compile_ = commands.add_parser(
        "compile", help="compile a model to a .tgrs execution plan",
        description="Import, normalize, plan at the SRAM budget, lower and write a .tgrs plan (deterministic bytes).",
        epilog=COMPILE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compile_.add_argument("model", help="the model: .onnx, or ONNX text (.onnxtxt)")
    compile_.add_argument(
        "-m", "--memory", required=True, metavar="FAST[+SLOW]",
        help="SRAM budget, e.g. 256K; FAST+SLOW: also refuse a plan whose slow-memory peak exceeds the PSRAM "
             "size SLOW; FAST+0: no PSRAM, the arena and the tensors passed between stages share FAST",
    )
    compile_.add_argument("-f", "--flash", metavar="FLASH", help="flash size the .tgrs file must fit")
    compile_.add_argument("--xip", action="store_true", help="weights are read in place (no LZ4)")
    compile_.add_argument("-c", "--compress", choices=("none", "lz4"), default="none", help="weight block compression")
    compile_.add_argument("--align", metavar="N", help="tensor alignment in bytes, a power of two (default 32)")
    compile_.add_argument("--max-recompute", metavar="PCT", help=MAX_RECOMPUTE_HELP)
    compile_.add_argument("--cuts", choices=("shortest", "greedy"), default="shortest", help=CUTS_HELP)
    compile_.add_argument("--input-shape", action="append", default=[], metavar="NAME:DxD...")
    compile_.add_argument("-o", "--output", required=True, help="the .tgrs file to write")
    from tigris.tools.cli_run import add_run_parser

    add_run_parser(commands)
    inspect = commands.add_parser(
        "inspect", help="describe a .tgrs plan", description="What is in a plan: I/O, ops, stages, tiles, weights, sizes.",
        epilog=INSPECT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inspect.add_argument("plan", help="a .tgrs file")
    inspect.add_argument("--json", action="store_true", help="print JSON")
    return parser


MAX_RECOMPUTE_HELP = (
    "halo recompute the planner may add to cut fewer stages, in percent of the model's MACs (default 10)"
)
CUTS_HELP = (
    "how stages are cut: shortest (default: the least slow-memory traffic, fused stages with row caches) "
    "or greedy (the spec's forward pass: one window per tiled stage, chains between them)"
)


def compile_bytes(
    path: str, budget: int, *, align: int = 32, compress: str = "none", xip: bool = False,
    input_shapes: dict | None = None, phase: Callable[[str], None] = lambda _: None,
    max_recompute: float = 10.0, cuts: str = "shortest", on_plan: Callable[[int], None] | None = None,
    normalized: ModuleOp | None = None,
) -> bytes:
    """The .tgrs bytes of an ONNX model (raises DiagnosticException / ValueError on user errors);
    `on_plan` is told the slow-memory peak of the plan written (`slow_memory.slow_peak`).
    `normalized`: the model already imported and normalized (`analysis.normalized_module`, the
    SRAM-only search's), planned and lowered in place instead of importing `path` again."""
    from xdsl.context import Context

    from tigris.dialects.onnx.importer import import_model_file
    from tigris.emit.tgrs.target import plan_bytes
    from tigris.transforms.pipelines import TigrisCompilePass

    if xip and compress != "none":
        raise ValueError("an XIP plan reads weights in place: it cannot be compressed")
    compile_pass = TigrisCompilePass(budget=budget, align=align, compress=compress, max_recompute=max_recompute,
                                     cuts=cuts)
    # verified once after import and once before emission, not after every pass (run_passes)
    if normalized is None:
        phase("import")
        module = import_model_file(path, input_shapes)
        module.verify()
        phase("normalize, plan, lower")
        compile_pass.run(Context(), module, verify_each=False)
    else:
        module = normalized
        phase("plan, lower")
        compile_pass.plan_and_lower(Context(), module, verify_each=False)
    module.verify()
    if on_plan is not None:
        from tigris.tools.report.slow_memory import slow_peak
        from tigris.transforms.plan.passes import written_plan

        on_plan(slow_peak(written_plan(module)))
    phase("emit")
    return plan_bytes(module, budget, xip=xip)


def run_compile(args: argparse.Namespace) -> str:
    from tigris.dialects.onnx.importer import parse_input_shapes
    from tigris.tools.budgets import BudgetError, parse_align, parse_memory, parse_percent, parse_size
    from tigris.tools.user_paths import check_output, write_output

    fast, slow = parse_memory(args.memory, "-m")
    flash = parse_size(args.flash, "-f") if args.flash is not None else None
    align = parse_align(args.align) if args.align is not None else 32
    max_recompute = parse_percent(args.max_recompute) if args.max_recompute is not None else 10.0
    if args.xip and args.compress == "lz4":
        raise BudgetError("--xip and -c lz4 exclude each other: XIP weights are read in place")
    if slow == 0 and args.compress == "lz4":
        raise BudgetError("-m FAST+0 (no PSRAM) and -c lz4 cannot be combined yet: the SRAM-only search "
                          "does not count the arena LZ4 decompresses into")
    check_output(args.output, "-o")  # before the compile, not after
    from tigris.tools.progress import Progress

    progress = Progress("tigris compile", 5 if slow == 0 else 3)
    sram_note, normalized = "", None
    if slow == 0:
        fast, sram_note, normalized = _sram_only_budget(args, fast, align, max_recompute, progress.phase)

    def check_slow(peak: int) -> None:
        """-m FAST+SLOW: the plan's slow-memory peak must fit the PSRAM (before emission)."""
        if slow and peak > slow:
            raise BudgetError(f"the plan needs a slow buffer of {peak} bytes, {peak - slow} more than the "
                              f"PSRAM given (-m {args.memory}); tigris analyze -m {args.memory} shows the stages")

    data = compile_bytes(args.model, fast, align=align, compress=args.compress, xip=args.xip,
                         input_shapes=parse_input_shapes(args.input_shape), phase=progress.phase,
                         max_recompute=max_recompute, cuts=args.cuts, on_plan=check_slow if slow else None,
                         normalized=normalized)
    progress.done()
    if flash is not None and len(data) > flash:
        raise BudgetError(f"the plan is {len(data)} bytes, {len(data) - flash} bytes more than the flash (-f {flash} bytes)")
    write_output(args.output, data, "-o")
    return f"wrote {args.output}: {len(data)} bytes\n{sram_note}"


def _sram_only_budget(
    args: argparse.Namespace, total: int, align: int, max_recompute: float, phase: Callable[[str], None]
) -> tuple[int, str, ModuleOp]:
    """`-m T+0` (no PSRAM): the budget to compile at (report/sram_only.py), the lines saying how
    to size the runtime's two SRAM buffers and the normalized module (compiled next, not imported
    again); an `error:` line with the smallest SRAM-only budget when nothing fits T."""
    from tigris.dialects.onnx.importer import parse_input_shapes
    from tigris.tools.budgets import BudgetError
    from tigris.tools.report.analysis import normalized_module, sram_only_arena

    module = normalized_module(args.model, parse_input_shapes(args.input_shape), phase, verify_each=False)
    phase("SRAM-only search")
    found = sram_only_arena(module, total, align, max_recompute, args.cuts)
    if found.plan is None:
        low = found.smallest
        assert low is not None  # searched when no plan fits
        raise BudgetError(f"no plan fits {total} bytes without PSRAM (-m {args.memory}): the smallest SRAM-only "
                          f"budget is {low.total} bytes (-m {low.total}+0: arena {low.arena} + {low.between} "
                          f"between stages)")
    p = found.plan
    note = (f"SRAM only: arena {p.arena} B + {p.between} B between stages = {p.total} B of {total}; "
            f"give the runtime an arena of {p.arena} B and a slow buffer of {p.slow_buffer} B "
            f"(the model's input and output, {p.model_io} B, and the tensors between stages)\n")
    return p.budget, note, module


def inspect_facts(data: bytes) -> dict:
    from collections import Counter

    from tigris.emit.tgrs import read_plan

    plan = read_plan(data)
    def tensor(i: int) -> dict:
        t = plan.tensors[i]
        return {"index": i, "name": t.name, "dtype": t.dtype.name, "shape": list(t.shape), "bytes": t.nbytes}
    stages = []
    for i, s in enumerate(plan.stages):
        tp = plan.tile_plans[s.tile_plan] if s.tile_plan is not None else None
        strategy = "normal" if tp is None else ("chain" if tp.chain >= 0 else "tiled")
        stages.append({
            "index": i, "ops": len(s.ops), "first_op": plan.ops[s.ops[0]].name if s.ops else "",
            "peak": s.peak, "strategy": strategy, "reload": len(s.inputs), "spill": len(s.outputs),
            "weight_block": s.weight_block,
            "tile": None if tp is None else {"tile_h": tp.tile_h, "num_tiles": tp.num_tiles, "halo": tp.halo,
                                             "out_h": tp.out_h, "peak": tp.peak, "chain": tp.chain,
                                             "reduce_op": tp.reduce_op, "acc_bytes": tp.acc_bytes,
                                             "tile_w": tp.tile_w, "num_tiles_w": tp.num_tiles_w,
                                             "halo_w": tp.halo_w, "out_w": tp.out_w},
        })
    return {
        "name": plan.name, "file_bytes": len(data), "flags": [f.name for f in type(plan.flags) if f in plan.flags],
        "inputs": [tensor(i) for i in plan.inputs], "outputs": [tensor(i) for i in plan.outputs],
        "tensors": len(plan.tensors), "op_count": len(plan.ops),
        "ops_by_type": dict(sorted(Counter(op.op_type.name for op in plan.ops).items())),
        "stages": stages,
        "weights": {"count": len(plan.weights), "bytes": sum(len(w.data) for w in plan.weights)},
        "weight_blocks": [{"index": i, "raw_size": b.raw_size, "stored_size": b.stored_size}
                          for i, b in enumerate(plan.weight_blocks)],
        "quant_params": len(plan.quant_params), "tables": len(plan.tables),
    }


def run_inspect(args: argparse.Namespace) -> str:
    import json

    from tigris.tools.user_paths import read_plan_path

    data, _ = read_plan_path(args.plan)
    facts = inspect_facts(data)
    if args.json:
        return json.dumps(facts, indent=2) + "\n"
    lines = [f"{facts['name'] or args.plan}: {facts['file_bytes']} bytes, flags {','.join(facts['flags']) or '-'}"]
    for what in ("inputs", "outputs"):
        for t in facts[what]:
            lines.append(f"  {what[:-1]:6} {t['name']} {t['dtype']} {'x'.join(map(str, t['shape']))} ({t['bytes']} B)")
    lines.append(f"  {facts['op_count']} ops: " + ", ".join(f"{k} {v}" for k, v in facts["ops_by_type"].items()))
    lines.append(f"  {len(facts['stages'])} stages:")
    for s in facts["stages"]:
        tile = s["tile"]
        extra = f" tile_h {tile['tile_h']} x{tile['num_tiles']} halo {tile['halo']} band peak {tile['peak']}" if tile else ""
        if tile and tile["chain"] >= 0:
            extra += f" chain {tile['chain']}"
        if tile and tile["tile_w"]:
            extra += f", 2-D: tile_w {tile['tile_w']} x{tile['num_tiles_w']} halo_w {tile['halo_w']}"
        if tile and tile["reduce_op"] is not None:
            extra += f", reduces in op {tile['reduce_op']} ({tile['acc_bytes']} B accumulator)"
        lines.append(f"    {s['index']:3} {s['strategy']:6} {s['ops']:3} ops from {s['first_op']}, peak {s['peak']}{extra}")
    w = facts["weights"]
    lines.append(f"  weights: {w['count']} ({w['bytes']} B) in {len(facts['weight_blocks'])} blocks, "
                 f"stored {sum(b['stored_size'] for b in facts['weight_blocks'])} B")
    lines.append(f"  quant params {facts['quant_params']}, tables {facts['tables']}")
    return "\n".join(lines) + "\n"


def run_analyze(args: argparse.Namespace) -> str:
    from pathlib import Path

    from tigris.dialects.onnx.importer import parse_input_shapes
    from tigris.tools.report import render_text, to_json
    from tigris.tools.report.analysis import analyze_module, normalized_module
    from tigris.tools.budgets import parse_align, parse_memory, parse_percent, parse_size
    from tigris.tools.progress import Progress
    from tigris.transforms.plan.passes import DEFAULT_ALIGN

    fast, slow = parse_memory(args.memory, "-m")
    flash = parse_size(args.flash, "-f") if args.flash is not None else None
    align = parse_align(args.align) if args.align is not None else DEFAULT_ALIGN
    max_recompute = parse_percent(args.max_recompute) if args.max_recompute is not None else 10.0
    figures = _figures(args)
    progress = Progress("tigris analyze", 3 + len(figures), enabled=not args.json)
    module = normalized_module(args.model, parse_input_shapes(args.input_shape), progress.phase, verify_each=False)
    progress.phase("plan")
    report = analyze_module(module, str(args.model), fast, slow_budget=slow, flash_budget=flash, align=align,
                            verify_each=False, max_recompute=max_recompute, cuts=args.cuts)
    if figures:
        from tigris.tools.report.memory_profile import memory_profile

        profile = memory_profile(module, Path(args.model).name, fast, align, max_recompute, args.cuts)
        for flag, path, draw in figures:
            progress.phase(f"{flag.lstrip('-').replace('-', ' ')} {path}")
            draw(profile, path)
    progress.done()
    return to_json(report) if args.json else render_text(report, args.verbose)


def _figures(args: argparse.Namespace) -> list[tuple[str, str, Callable[..., None]]]:
    """The figures asked for, checked before any work: a bad file type, or no matplotlib
    (the line says how to get it), is an `error:` line (exit 1)."""
    wanted = [(flag, path) for flag, path in (("--plot", args.plot), ("--plot-tiles", args.plot_tiles)) if path]
    if not wanted:
        return []
    from tigris.tools.report.plot import MatplotlibMissing, check_path, plot_memory, plot_tiles, require_matplotlib

    for flag, path in wanted:
        check_path(path, flag)
    try:
        require_matplotlib()
    except MatplotlibMissing:
        from tigris.tools.budgets import BudgetError

        raise BudgetError(f"{wanted[0][0]} needs matplotlib: pip install 'tigris[plot]'") from None
    draw = {"--plot": plot_memory, "--plot-tiles": plot_tiles}
    return [(flag, path, draw[flag]) for flag, path in wanted]


def exit_status(e: SystemExit) -> int:
    """argparse exits 2 after printing its usage and `error:` line; every user error of
    `tigris` and `tigris-opt` exits 1, so that one does too (`--help` and `--version` exit 0)."""
    code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return 1 if code == 2 else code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return exit_status(e)
    if args.command not in ("analyze", "compile", "inspect", "run"):
        parser.print_help()
        return 0
    from xdsl.utils.exceptions import DiagnosticException

    from tigris.tools.budgets import BudgetError

    from tigris.emit.tgrs.errors import TgrsFormatError

    from tigris.tools.cli_run import run_run

    run = {"analyze": run_analyze, "compile": run_compile, "inspect": run_inspect, "run": run_run}[args.command]
    try:
        text = run(args)
    except (TgrsFormatError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (DiagnosticException, BudgetError) as e:
        from tigris.tools.tigris_opt import headline

        print(f"error: {headline(e)}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def without_cycle_collection() -> None:
    """For a command-line process: turn off Python's cyclic garbage collector. Importing xDSL and
    building IR allocate hundreds of thousands of objects, and the collector's passes over them
    were ~9% of `tigris compile`'s CPU time; reference counting still frees what is not in a
    cycle, the IR's cycles (parent links) die with the process, and the peak memory of a compile
    grows by under 1% (bench/compile_time.py; MobileNetV2 @224). Console scripts only: a library
    caller keeps its collector."""
    import gc

    gc.disable()


def entry_point() -> None:
    without_cycle_collection()
    sys.exit(main())
