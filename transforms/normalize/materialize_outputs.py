"""materialize-outputs: every model output is the result of its own runtime op.

The runtime hands out a model output as a tensor some op of the plan wrote. Three kinds of
output are not: a model input returned as it is (a model of layout moves only, once
trim-output-transpose has dropped the last transpose), a constant (a folded Shape, a Dropout
mask) and a value returned twice. Each gets a copy, a `tgr.reshape` to its own type, before the
return, so a model with no compute op still compiles to a one-stage plan that runs."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import BlockArgument, SSAValue
from xdsl.passes import ModulePass

from tigris.dialects.tgr.ops_shape import ReshapeOp
from tigris.dialects.tgr.weight import WeightOp


def _output_name(func: FuncOp, index: int) -> str:
    attrs = func.res_attrs.data[index].data if func.res_attrs else {}
    name = attrs.get("tgr.name")
    return name.data if isinstance(name, StringAttr) else f"output{index}"


def materialize(func: FuncOp) -> None:
    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp)
    seen: set[SSAValue] = set()
    operands: list[SSAValue] = []
    for index, value in enumerate(ret.arguments):
        if isinstance(value, BlockArgument) or isinstance(value.owner, WeightOp) or value in seen:
            name = _output_name(func, index)
            copy = ReshapeOp.build(operands=[value], result_types=[value.type])
            copy.attributes["tgr.name"] = StringAttr(f"{name}.copy")
            try:
                copy.output.name_hint = name  # the plan's output tensor is called as in the model
            except ValueError:  # not an SSA name: keep the copied value's
                copy.output.name_hint = value.name_hint
            func.body.block.insert_op_before(copy, ret)
            value = copy.output
        seen.add(value)
        operands.append(value)
    ret.operands = operands


@dataclass(frozen=True)
class MaterializeOutputsPass(ModulePass):
    name = "materialize-outputs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if isinstance(func, FuncOp) and not func.is_declaration:
                materialize(func)
