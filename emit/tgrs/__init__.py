"""The `.tgrs` binary execution-plan format: records (one definition), writer, reader.

`write_plan(PlanFile) -> bytes` and `read_plan(bytes) -> PlanFile` are inverses; the
reader trusts nothing and raises `TgrsFormatError` naming the field at fault.
See docs/tgrs-format.md.
"""

from tigris.emit.tgrs.errors import TgrsFormatError
from tigris.emit.tgrs.model import Op, PlanFile, QuantParam, Stage, Tensor, TilePlan, Weight, WeightBlock
from tigris.emit.tgrs.reader import read_plan
from tigris.emit.tgrs.writer import write_plan

__all__ = [
    "Op",
    "PlanFile",
    "QuantParam",
    "Stage",
    "Tensor",
    "TgrsFormatError",
    "TilePlan",
    "Weight",
    "WeightBlock",
    "read_plan",
    "write_plan",
]
