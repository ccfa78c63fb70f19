"""trim-output-transpose: a Transpose whose only use is a model output is dropped.

The permutation is recorded on the function result (`tgr.output_perm`), so the host
can give users their ONNX layout back. Consecutive transposes compose."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, FunctionType, ModuleOp, i64
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.passes import ModulePass

from tigris.dialects.shapes import ints
from tigris.dialects.tgr.ops_shape import TransposeOp

PERM = "tgr.output_perm"


def _trim_one(func: FuncOp) -> bool:
    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp)
    for index, value in enumerate(ret.arguments):
        producer = value.owner
        if not isinstance(producer, TransposeOp) or not value.has_one_use():
            continue
        attrs = dict(func.res_attrs.data[index].data) if func.res_attrs else {}
        inner = ints(producer, "perm") or []
        outer_attr = attrs.get(PERM)
        outer = [int(v) for v in outer_attr.get_values()] if isinstance(outer_attr, DenseArrayBase) else None
        perm = [inner[p] for p in outer] if outer is not None else inner  # output = x.transpose(perm)
        attrs[PERM] = DenseArrayBase.from_list(i64, perm)
        ret.operands = [producer.input if i == index else v for i, v in enumerate(ret.arguments)]
        producer.detach()
        producer.erase()
        results = [v.type for v in ret.arguments]
        func.function_type = FunctionType.from_lists(func.function_type.inputs.data, results)
        all_attrs = list(func.res_attrs.data) if func.res_attrs else [DictionaryAttr({})] * len(results)
        all_attrs[index] = DictionaryAttr(attrs)
        func.res_attrs = ArrayAttr(all_attrs)
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
