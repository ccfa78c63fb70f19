"""`tigris`: the user-facing driver (analyze, compile, inspect, run arrive with their issues).

It holds no compiler logic: each subcommand runs a named pipeline and prints a report.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import version

EPILOG = """examples:
  tigris --version
  tigris-opt model.onnx                         # the imported IR (onnx dialect)
  tigris-opt model.onnx --elide-weights         # the same, weights as handles only
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tigris",
        description="Fit neural networks into microcontroller memory: ONNX in, .tgrs execution plan out.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tigris {version('tigris')}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    build_parser().parse_args(argv)
    build_parser().print_help()
    return 0


def entry_point() -> None:
    sys.exit(main())
