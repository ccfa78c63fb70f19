"""The plan as the IR holds it: the attribute names, and one typed way to read them back.

The planning and lowering passes decide the plan and write it as `tgr.*` attributes; every
later reader (the emitter, the reports, group-weights' reserve, `written_plan`) reads it
through `stored_plan`, never by planning again, so what a report describes is what the
`.tgrs` file runs. The names are defined here, beside the accessor, for the writers too.

On `@main`:

    tgr.memory        #tgr.memory<peak, step, align>     memory-timeline
    tgr.stages        [#tgr.stage<...>, ...]             partition-temporal, -spatial, tile-chains
    tgr.weight_blocks [#tgr.weight_block<...>, ...]      group-weights
    tgr.fast_reserved i64, tgr.compress "none"|"lz4"     group-weights
    tgr.budget        i64                                tigris-compile (the arena it was made for)

On ops: `tgr.stage` (i64, the stage index), on weights `tgr.block` (i64), on a reshape whose
stored bytes are copied as they are `tgr.stored_order` (unit; layout-nhwc).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from tigris.dialects.tgr.attributes import MemoryAttr, StageAttr, WeightBlockAttr

MEMORY = "tgr.memory"
STAGES = "tgr.stages"
WEIGHT_BLOCKS = "tgr.weight_blocks"
FAST_RESERVED = "tgr.fast_reserved"
COMPRESS = "tgr.compress"
BUDGET = "tgr.budget"
STAGE = "tgr.stage"
BLOCK = "tgr.block"
STORED_ORDER = "tgr.stored_order"
"""Unit attribute of a tgr.flatten / tgr.reshape whose result only "nk_hwc" fully_connected ops
read: the runtime copies its stored bytes as they are (`.tgrs` op flag STORED_ORDER)."""


class MissingPlanError(ValueError):
    """The module has not been planned (no `tgr.stages` on @main)."""


@dataclass(frozen=True)
class StoredPlan:
    """Everything the passes wrote on @main, typed. `memory` is None before memory-timeline,
    `budget` None outside tigris-compile; blocks and reserve are empty before group-weights."""

    stages: tuple[StageAttr, ...]
    memory: MemoryAttr | None
    budget: int | None
    weight_blocks: tuple[WeightBlockAttr, ...]
    fast_reserved: int
    compress: str

    @property
    def scheduled_peaks(self) -> list[int]:
        """Each stage's arena as it runs (`StageAttr.scheduled_peak`)."""
        return [s.scheduled_peak for s in self.stages]

    def block_of_stage(self) -> dict[int, int]:
        """Stage index -> the index of its weight block."""
        return {b.stage.data: i for i, b in enumerate(self.weight_blocks)}


def _int(op: Operation, name: str) -> int | None:
    attr = op.attributes.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _typed(func: FuncOp, name: str, kind: type) -> tuple:
    attr = func.attributes.get(name)
    if attr is None:
        return ()
    if not isinstance(attr, ArrayAttr) or not all(isinstance(a, kind) for a in attr.data):
        raise ValueError(f"@main {name} is not a list of #{kind.name}")  # type: ignore[attr-defined]
    return tuple(attr.data)


def stored_plan(func: FuncOp) -> StoredPlan:
    """The plan on `func` (raises `MissingPlanError` without `tgr.stages`)."""
    if STAGES not in func.attributes:
        raise MissingPlanError("@main has no tgr.stages: run tigris-compile (or tigris-plan) first")
    memory = func.attributes.get(MEMORY)
    compress = func.attributes.get(COMPRESS)
    return StoredPlan(
        stages=_typed(func, STAGES, StageAttr),
        memory=memory if isinstance(memory, MemoryAttr) else None,
        budget=_int(func, BUDGET),
        weight_blocks=_typed(func, WEIGHT_BLOCKS, WeightBlockAttr),
        fast_reserved=_int(func, FAST_RESERVED) or 0,
        compress=compress.data if isinstance(compress, StringAttr) else "none",
    )


def op_stage(op: Operation) -> int | None:
    """The `tgr.stage` of an op, None if unplanned."""
    return _int(op, STAGE)


def weight_block(op: Operation) -> int | None:
    """The `tgr.block` of a weight, None if it is in the blob."""
    return _int(op, BLOCK)
