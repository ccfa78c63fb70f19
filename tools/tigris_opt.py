"""`tigris-opt`: xDSL's opt driver with our dialects, passes, ONNX frontends and flags.

Registration goes through the same lazy registries the `xdsl.universe` entry point
exposes, so plain `xdsl-opt` and `tigris-opt` see the same dialects, passes and targets. On
top of xdsl-opt this adds: `.onnx`/`.onnxtxt` inputs, `--input-shape`,
`--pass-pipeline='builtin.module(...)'`, `--elide-weights`, `--timing` (MLIR's
`-mlir-timing`: a wall-time report on stderr, see timing.py), `-o` as the file of the binary
`-t tgrs` target, and one-line errors with a non-zero exit instead of tracebacks.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipelineCallbackType
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tigris.tools.pipeline_syntax import expand_pipelines, translate_pass_pipeline
from tigris.tools.timing import Timing, loaded_pass_classes, render

ONNX_FRONTENDS = ("onnx", "onnxtxt", "onnxtext")


class UsageError(Exception):
    """A mistake on the command line (unknown pass, option, target or file type)."""


class TigrisOptMain(xDSLOptMain):
    version_format = "tigris-opt (xdsl {xdsl_version})"
    timing: Timing | None = None

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
        arg_parser.add_argument(
            "--timing",
            action="store_true",
            help="after the run, print wall time per phase and per pass (named pipelines: per sub-pass) "
            "to stderr, like MLIR's -mlir-timing",
        )
        arg_parser.add_argument(
            "--timing-display",
            choices=("tree", "list"),
            default="tree",
            help="--timing layout: tree (execution order, sub-passes nested; default) or list (slowest first)",
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
        if self.args.timing:
            self.timing = Timing()
        self.args.passes = expand_pipelines(self.args.passes)
        try:
            with self._timed("Pass loading"):
                super().setup_pipeline()
        except ArgSpecParseError as e:  # malformed pipeline text: keep xDSL's caret diagnostic
            raise UsageError(" ".join(line.strip() for line in str(e).splitlines()[-3:])) from None
        except ValueError as e:  # unknown pass or option
            raise UsageError(headline(e)) from None
        if self.timing is not None and self.pipeline.callback is not None:
            self.pipeline = dataclasses.replace(self.pipeline, callback=self._timed_callback(self.pipeline.callback))

    def run(self) -> None:
        if self.timing is None:
            return super().run()
        with self._timed("Pass loading"):
            classes = self._pass_classes()
        with self.timing.instrument(classes):
            super().run()
        print(render(self.timing.stop(), self.args.timing_display), end="", file=sys.stderr)

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        with self._timed("ONNX import" if file_extension in ONNX_FRONTENDS else "Parser"):
            return super().parse_chunk(chunk, file_extension, start_offset)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        with self._timed("Output"):
            text = self._target_output(prog)
        if self.args.interpret:
            from tigris.tools.interpret import interpret_and_report

            with self._timed("Interpreter"):
                text += interpret_and_report(prog, self.args.input)
        return text

    def prepare_output(self) -> IO[str]:
        """`-t tgrs` writes its binary file itself (emit/tgrs/target.py): `-o FILE` names it
        (the target's `file` option) and no text is written anywhere."""
        if self.args.output_file is not None:
            from tigris.tools.user_paths import UserPathError, check_output

            try:
                check_output(self.args.output_file, "-o")
            except UserPathError as e:
                raise UsageError(str(e)) from None
        spec = parse_spec(self.args.target)
        if spec.name != "tgrs":
            return super().prepare_output()
        if self.args.output_file is not None:
            spec.parameters["file"] = (self.args.output_file,)
            self.args.target = str(spec)
        elif "file" not in spec.parameters:
            raise UsageError("-t tgrs writes a binary plan: give the file with -o FILE")
        return io.StringIO()

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

    def _timed(self, name: str) -> AbstractContextManager[object]:
        return self.timing.scope(name) if self.timing is not None else nullcontext()

    def _timed_callback(self, callback: PassPipelineCallbackType) -> PassPipelineCallbackType:
        """xDSL's between-pass callback verifies the module (and prints it with
        --print-between-passes): its own line, so pass times are the passes' alone."""

        def timed(previous: ModulePass | None, module: ModuleOp, next_: ModulePass | None) -> None:
            with self._timed("Verifier"):
                callback(previous, module, next_)

        return timed

    def _pass_classes(self) -> list[type[ModulePass]]:
        """Every loaded pass class, so a composite pass's sub-passes are timed too. The
        named pipelines of `transforms/pipelines.py` may call any TiGrIS pass (and import
        the lowering passes lazily), so with one of them in the pipeline all TiGrIS passes
        are loaded first; otherwise nothing is loaded just to be timed."""
        from tigris.transforms import get_all_passes

        if any(type(p).__module__ == "tigris.transforms.pipelines" for p in self.pipeline.passes):
            for factory in get_all_passes().values():
                factory()
        return loaded_pass_classes()


def main(argv: Sequence[str] | None = None) -> int:
    """Run tigris-opt; user errors print `error: ...` on stderr and return 1 (argparse's
    usage errors too, after their usage text)."""
    opt = None
    try:
        opt = TigrisOptMain(args=argv)
        opt.run()
    except SystemExit as e:
        from tigris.tools.cli import exit_status

        return exit_status(e)
    except ParseError as e:
        print(str(e).rstrip(), file=sys.stderr)
        return 1
    except (DiagnosticException, UsageError) as e:
        print(f"error: {headline(e)}", file=sys.stderr)
        return 1
    except OSError as e:  # writing -o failed (a full device): the input was read before
        from tigris.tools.user_paths import cannot_write

        path = e.filename or (opt.args.output_file if opt is not None else None) or "-"
        print(f"error: {cannot_write(str(path), '-o', e)}", file=sys.stderr)
        return 1
    return 0


def headline(e: BaseException) -> str:
    """The message line of a diagnostic: xDSL appends the annotated IR to pass errors, the user
    needs the first line (also `tigris`'s error lines)."""
    lines = [line for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__


def entry_point() -> None:
    from tigris.tools.cli import without_cycle_collection

    without_cycle_collection()
    sys.exit(main())
