"""`tigris-opt -t tgrs`: the `.tgrs` bytes of a module after `tigris-compile`.

`plan_bytes` is the one way from a compiled module to the file, used by `tigris compile`
and by the target, so both write the same bytes. The target runs inside xDSL's text
output path: it hands the bytes over as latin-1 text (one char per byte), and
`tigris-opt` writes that text back as bytes (see tools/tigris_opt.py), to -o FILE only:
a binary plan is never written to a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.emit.tgrs.writer import write_plan

BYTES_AS_TEXT = "latin-1"
"""The bijection between bytes and text the target's output goes through."""


def plan_bytes(module: ModuleOp, budget: int | None = None, *, xip: bool = False) -> bytes:
    """The `.tgrs` file of a module `tigris-compile` produced; compression as group-weights chose."""
    from tigris.transforms.plan.graph import main_func

    compress = main_func(module).attributes.get("tgr.compress")
    return write_plan(plan_file_from_module(module, budget, xip=xip),
                      compress.data if isinstance(compress, StringAttr) else "none")


@dataclass(frozen=True)
class TgrsTarget(Target):
    """`-t tgrs` or `-t 'tgrs{xip=true}'`; flash limits are `tigris compile -f`'s job."""

    name = "tgrs"
    xip: bool = False

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        try:
            data = plan_bytes(module, xip=self.xip)
        except ValueError as e:  # FromIrError (not compiled), or XIP with LZ4
            raise DiagnosticException(f"-t tgrs: {e}") from None
        output.write(data.decode(BYTES_AS_TEXT))
