"""`-t tgrs`: the `.tgrs` file of a module after `tigris-compile`, for any xDSL driver.

`plan_bytes` is the one way from a compiled module to the file, used by `tigris compile`
and by the target, so both write the same bytes. xDSL's targets write text (the driver
collects it and writes it to a text stream), which cannot carry a binary plan, so the
target writes the file itself, named by its `file` option, and emits no text:

    xdsl-opt compiled.mlir -t 'tgrs{file="model.tgrs"}'
    tigris-opt model.onnx -p 'tigris-compile{budget=65536}' -t tgrs -o model.tgrs   # -o is the file

Without a file it refuses with one line instead of writing bytes a text stream would mangle.
The file is written only once the plan is complete: a failed compile leaves no file behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from tigris.dialects.tgr.plan_attrs import stored_plan
from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.emit.tgrs.writer import write_plan
from tigris.transforms.plan.graph import main_func


def plan_bytes(module: ModuleOp, budget: int | None = None, *, xip: bool = False) -> bytes:
    """The `.tgrs` file of a module `tigris-compile` produced; compression as group-weights chose."""
    plan = plan_file_from_module(module, budget, xip=xip)
    return write_plan(plan, stored_plan(main_func(module)).compress)


@dataclass(frozen=True)
class TgrsTarget(Target):
    """`-t 'tgrs{file="m.tgrs"}'`, `-t 'tgrs{file="m.tgrs" xip=true}'`; flash limits are
    `tigris compile -f`'s job."""

    name = "tgrs"
    xip: bool = False
    file: str = ""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if not self.file:
            raise DiagnosticException(
                "-t tgrs writes a binary plan, which the text output cannot carry: "
                "name the file, -t 'tgrs{file=\"model.tgrs\"}'"
            )
        try:
            data = plan_bytes(module, xip=self.xip)
        except ValueError as e:  # FromIrError (not compiled), or XIP with LZ4
            raise DiagnosticException(f"-t tgrs: {e}") from None
        try:
            Path(self.file).write_bytes(data)
        except OSError as e:
            raise DiagnosticException(f"-t tgrs: cannot write '{self.file}': {e.strerror or e}") from None
