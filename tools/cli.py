"""`tigris`: the user-facing driver (analyze now; compile, inspect, run arrive with their issues).

It holds no compiler logic: each subcommand parses its flags, calls the pipeline or
report function that does the work (`tigris.emit.report.analyze`) and prints the
result. A mistake the user can make (missing file, bad size, unsupported op) prints
one `error: ...` line on stderr and exits 1; argparse's own usage errors exit 2.
Heavy imports (xDSL, onnx) wait until a subcommand runs, so `--help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import version

EPILOG = """examples:
  tigris analyze model.onnx -m 256K -f 4M       # does it fit 256 KiB of SRAM and 4 MiB of flash?
  tigris analyze model.onnx -m 64K+8M -v        # 64 KiB SRAM + 8 MiB PSRAM, one row per stage
  tigris analyze model.onnx -m 64K --json       # the same facts as JSON
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
  tigris analyze model.onnx -m 64K --json --input-shape input:1x3x224x224
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tigris",
        description="Fit neural networks into microcontroller memory: ONNX in, .tgrs execution plan out.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tigris {version('tigris')}")
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
    return parser


def run_analyze(args: argparse.Namespace) -> str:
    from tigris.dialects.onnx.importer import parse_input_shapes
    from tigris.emit.report import analyze, render_text, to_json
    from tigris.tools.budgets import parse_align, parse_memory, parse_size
    from tigris.transforms.plan.passes import DEFAULT_ALIGN

    fast, slow = parse_memory(args.memory, "-m")
    flash = parse_size(args.flash, "-f") if args.flash is not None else None
    align = parse_align(args.align) if args.align is not None else DEFAULT_ALIGN
    report = analyze(
        args.model, fast, slow_budget=slow, flash_budget=flash, align=align,
        input_shapes=parse_input_shapes(args.input_shape),
    )
    return to_json(report) if args.json else render_text(report, args.verbose)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "analyze":
        parser.print_help()
        return 0
    from xdsl.utils.exceptions import DiagnosticException

    from tigris.tools.budgets import BudgetError

    try:
        text = run_analyze(args)
    except (DiagnosticException, BudgetError) as e:
        from tigris.tools.tigris_opt import _headline

        print(f"error: {_headline(e)}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def entry_point() -> None:
    sys.exit(main())
