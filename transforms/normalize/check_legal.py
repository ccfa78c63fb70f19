"""check-legal: after normalization only `tgr` ops may remain. One error lists them all."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException


def _describe(op: Operation) -> str:
    op_type = op.properties.get("op_type")
    kind = op_type.data if isinstance(op_type, StringAttr) else op.name.removeprefix("onnx.")
    name = op.attributes.get("tgr.name")
    return f"{kind} '{name.data if isinstance(name, StringAttr) else '?'}'"


@dataclass(frozen=True)
class CheckLegalPass(ModulePass):
    name = "check-legal"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        illegal = [
            inner
            for inner in op.walk()
            if not isinstance(inner, ModuleOp | FuncOp | ReturnOp) and not inner.name.startswith("tgr.")
        ]
        if illegal:
            count = len(illegal)
            noun = "operator is" if count == 1 else "operators are"
            raise PassFailedException(f"{count} {noun} not supported: {', '.join(map(_describe, illegal))}")
