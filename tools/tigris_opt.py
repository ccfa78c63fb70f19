"""`tigris-opt`: xDSL's opt driver with our dialects, passes, ONNX frontends and flags.

Registration goes through the same lazy registries the `xdsl.universe` entry point
exposes, so plain `xdsl-opt` and `tigris-opt` see the same dialects and passes. On
top of xdsl-opt this adds: `.onnx`/`.onnxtxt` inputs, `--input-shape`,
`--pass-pipeline='builtin.module(...)'`, `--elide-weights`, and one-line errors
with a non-zero exit instead of tracebacks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tigris.tools.pipeline_syntax import expand_pipelines, translate_pass_pipeline


class UsageError(Exception):
    """A mistake on the command line (unknown pass, option, target or file type)."""


class TigrisOptMain(xDSLOptMain):
    version_format = "tigris-opt (xdsl {xdsl_version})"

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends["onnx"] = self._parse_onnx
        self.available_frontends["onnxtxt"] = self._parse_onnx_text
        self.available_frontends["onnxtext"] = self._parse_onnx_text

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--pass-pipeline",
            default=None,
            help="MLIR-style pipeline, e.g. 'builtin.module(fold-constants,tigris-plan{budget=65536})'; "
            "equivalent to -p with the inner list",
        )
        arg_parser.add_argument(
            "--input-shape",
            action="append",
            default=[],
            metavar="NAME:DxD...",
            help="bind the dynamic dims of an ONNX input, e.g. input:1x3x224x224 (repeatable)",
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="MLIR's name for --print-between-passes (named pipelines are expanded, so every pass shows)",
        )
        arg_parser.add_argument(
            "--interpret",
            action="store_true",
            help="after the passes, run @main with the reference interpreter and print its outputs",
        )
        arg_parser.add_argument(
            "--input",
            action="append",
            default=[],
            metavar="X.npy",
            help="an input for --interpret (repeat per model input, in order); random if omitted",
        )
        arg_parser.add_argument(
            "--elide-weights",
            action="store_true",
            help="print weight handles without the dialect_resources trailer (readable, not re-parsable)",
        )

    def setup_pipeline(self) -> None:
        if self.args.pass_pipeline is not None:
            if self.args.passes:
                raise UsageError("give either -p or --pass-pipeline, not both")
            try:
                self.args.passes = translate_pass_pipeline(self.args.pass_pipeline)
            except ValueError as e:
                raise UsageError(str(e)) from None
        if self.args.elide_weights:
            from tigris.dialects.tgr.dialect import weight_resources

            weight_resources().elide = True
        if self.args.print_ir_after_all:
            self.args.print_between_passes = True
        self.args.passes = expand_pipelines(self.args.passes)
        try:
            super().setup_pipeline()
        except ArgSpecParseError as e:  # malformed pipeline text: keep xDSL's caret diagnostic
            raise UsageError(" ".join(line.strip() for line in str(e).splitlines()[-3:])) from None
        except ValueError as e:  # unknown pass or option
            raise UsageError(_headline(e)) from None

    def output_resulting_program(self, prog: ModuleOp) -> str:
        text = self._target_output(prog)
        if self.args.interpret:
            from tigris.tools.interpret import interpret_and_report

            text += interpret_and_report(prog, self.args.input)
        return text

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        try:
            return super().get_input_stream()
        except OSError as e:
            raise UsageError(f"cannot open '{self.args.input_file}': {e.strerror or e}") from None

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        try:
            return super().prepare_input()
        except ValueError as e:  # unknown file extension
            raise UsageError(f"{e}; use .mlir, .onnx or .onnxtxt, or choose one with -f") from None

    def _target_output(self, prog: ModuleOp) -> str:
        target = self.args.target.split("{")[0]
        if target not in self.available_targets:
            raise UsageError(f"unknown target '{target}'; available: {', '.join(self.available_targets)}")
        return super().output_resulting_program(prog)

    def _imported(self, module: ModuleOp) -> ModuleOp:
        """Modules built in Python bypass the parser, which is what loads dialects into the
        context; the printer needs `tgr` loaded to find its resource table."""
        for name in ("onnx", "tgr"):
            if self.ctx.get_optional_dialect(name) is None:
                self.ctx.load_registered_dialect(name)
        return module

    def _input_shapes(self) -> dict[str, list[int]]:
        from tigris.dialects.onnx.importer import parse_input_shapes

        return parse_input_shapes(self.args.input_shape)

    def _parse_onnx(self, io: IO[bytes]) -> ModuleOp:
        from tigris.dialects.onnx.importer import import_model_bytes, import_model_file

        path = self.args.input_file
        if path is not None and not self.args.split_input_file:
            return self._imported(import_model_file(path, self._input_shapes()))  # external data: beside it
        return self._imported(import_model_bytes(io.read(), self._input_shapes()))

    def _parse_onnx_text(self, io: IO[bytes]) -> ModuleOp:
        from tigris.dialects.onnx.importer import import_model_text

        source = self.args.input_file or "<stdin>"
        text = io.read().decode("utf-8", "replace")
        return self._imported(import_model_text(text, self._input_shapes(), source))


def main(argv: Sequence[str] | None = None) -> int:
    """Run tigris-opt; user errors print `error: ...` on stderr and return 1."""
    try:
        TigrisOptMain(args=argv).run()
    except ParseError as e:
        print(str(e).rstrip(), file=sys.stderr)
        return 1
    except (DiagnosticException, UsageError) as e:
        print(f"error: {_headline(e)}", file=sys.stderr)
        return 1
    return 0


def _headline(e: BaseException) -> str:
    """xDSL appends the annotated IR to pass errors; the user needs the message line."""
    lines = [line for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__


def entry_point() -> None:
    sys.exit(main())
