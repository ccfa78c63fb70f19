"""The flash a model takes: the size of the `.tgrs` file `tigris compile` writes for it.

Not an estimate: the planned module goes through the rest of `tigris-compile` (the same
`lower` `tigris compile` runs, without LZ4, on a copy) and the emitter, and the
writer's own layout (`file_size`) measures the file, records, pools and alignment included.
A model the compiler cannot lower or emit has no flash figure; the report says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.emit.tgrs.writer import file_size
from tigris.transforms.pipelines import TigrisCompilePass


@dataclass(frozen=True)
class Flash:
    """The file's size, or why there is none (`error`, one line)."""

    total: int | None
    error: str | None = None


def compiled_flash(planned: ModuleOp, budget: int, align: int, *, verify_each: bool = True) -> Flash:
    """The size of `tigris compile -m budget --align align` of a module `tigris-plan` annotated
    at that budget and align (left as it is): the rest of tigris-compile (`lower`) and the
    emitter run on a copy, so the plan the report describes is planned once. `verify_each=False`:
    verified once before emission, as `tigris compile` does."""
    compiled = planned.clone()
    try:
        TigrisCompilePass(budget=budget, align=align).lower(Context(), compiled, verify_each=verify_each)
        if not verify_each:
            compiled.verify()
        return Flash(file_size(plan_file_from_module(compiled, budget), "none"))
    except (ValueError, DiagnosticException) as e:
        lines = [line for line in str(e).splitlines() if line.strip()]
        return Flash(None, lines[0] if lines else type(e).__name__)
