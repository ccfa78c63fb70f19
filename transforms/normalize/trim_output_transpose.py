"""trim-output-transpose: a Transpose whose only use is a model output is dropped.

The permutation is recorded on the function result (`tgr.output_perm`, model_layout.py), so
the host can give users their ONNX layout back. Consecutive transposes compose.
`fold-layout-transposes` does this too, through layout-agnostic ops; this pass keeps the
spec's place for the rule and catches a transpose a later pass would leave at an output."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.passes import ModulePass

from tigris.dialects.shapes import ints
from tigris.dialects.tgr.ops_shape import TransposeOp
from tigris.transforms.normalize.model_layout import fold_into_output


def _trim_one(func: FuncOp) -> bool:
    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp)
    for index, value in enumerate(ret.arguments):
        producer = value.owner
        if not isinstance(producer, TransposeOp) or not value.has_one_use():
            continue
        perm = ints(producer, "perm") or []
        ret.operands = [producer.input if i == index else v for i, v in enumerate(ret.arguments)]
        producer.detach()
        producer.erase()
        fold_into_output(func, index, perm)
        return True
    return False


@dataclass(frozen=True)
class TrimOutputTransposePass(ModulePass):
    name = "trim-output-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if isinstance(func, FuncOp) and not func.is_declaration:
                while _trim_one(func):
                    pass
