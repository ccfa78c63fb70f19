"""check-legal: after normalization only runtime ops may remain. One error lists them all.

Runtime ops are the `tgr` dialect's and those of installed plugins: an op of another dialect
is legal when it declares a `RuntimeOp` trait with an extension op type (128..254). Such an
op must also be one the runtime can band: the runtime bands every op by the geometry the
emitter writes from its traits, so a spatial plugin op declares its `SpatialWindow`; a
resample one (pad, resize) is refused, its rule reading mode fields an extension op leaves 0
(docs/extending.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects.plugins import EXTENSION_OP_TYPES
from tigris.dialects.tgr.traits import RuntimeOp, SpatialWindow, TileCategory, TileKind
from tigris.transforms.rewriting import fail


def _describe(op: Operation) -> str:
    op_type = op.properties.get("op_type")
    kind = op_type.data if isinstance(op_type, StringAttr) else op.name.removeprefix("onnx.")
    name = op.attributes.get("tgr.name")
    return f"{kind} '{name.data if isinstance(name, StringAttr) else '?'}'"


def _check_extension_op(op: Operation, trait: RuntimeOp, owners: dict[int, str]) -> None:
    """A plugin op's runtime contract (see the module docstring)."""
    first, last = EXTENSION_OP_TYPES[0], EXTENSION_OP_TYPES[-1]
    if trait.op_type not in EXTENSION_OP_TYPES:
        raise fail(op, f"extension ops use runtime op types {first}..{last}, not {trait.op_type}")
    if owners.setdefault(trait.op_type, op.name) != op.name:
        raise fail(op, f"runtime op type {trait.op_type} is {owners[trait.op_type]}'s too")
    kind = TileCategory.of(op)
    if kind is TileKind.SPATIAL and op.get_trait(SpatialWindow) is None:
        raise fail(
            op, "tile category spatial without a SpatialWindow trait: the runtime cannot know its window"
        )
    if kind is TileKind.RESAMPLE:
        raise fail(
            op, "tile category resample: the runtime bands extension ops by a window or index by index, "
            "so they are spatial (with a SpatialWindow), pointwise, channelwise, structural (never tiled) "
            "or dense",
        )  # fmt: skip


@dataclass(frozen=True)
class CheckLegalPass(ModulePass):
    name = "check-legal"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        illegal: list[Operation] = []
        owners: dict[int, str] = {}
        for inner in op.walk():
            if isinstance(inner, ModuleOp | FuncOp | ReturnOp) or inner.name.startswith("tgr."):
                continue
            trait = inner.get_trait(RuntimeOp)
            if trait is None:
                illegal.append(inner)
            else:
                _check_extension_op(inner, trait, owners)
        if illegal:
            count = len(illegal)
            noun = "operator is" if count == 1 else "operators are"
            raise PassFailedException(f"{count} {noun} not supported: {', '.join(map(_describe, illegal))}")
