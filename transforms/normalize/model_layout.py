"""The layout a user gives a model input in, or gets a model output in, when it differs from
the model order the plan computes in.

A transpose at a model boundary costs the plan a full copy of the tensor in SRAM; dropping it
instead and recording its permutation on the function argument or result is free, because
the host (or the firmware) reads and writes the tensor bytes anyway. One convention for both
ends: the user's tensor is `x.transpose(perm)`, `x` being the value in the plan's model
(NCHW) order. For a channels-last model this `perm` is the runtime's own channels-last order,
so the user's bytes are the stored bytes: nothing is copied (docs/runtime.md).

`trim-output-transpose` and `fold-layout-transposes` both record through these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the IR half loads xDSL on use: `tigris run` needs only the numpy half
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
    from xdsl.dialects.func import FuncOp
    from xdsl.ir import Attribute, BlockArgument
    from xdsl.pattern_rewriter import PatternRewriter

INPUT_PERM = "tgr.input_perm"
OUTPUT_PERM = "tgr.output_perm"


def compose(first: Sequence[int], then: Sequence[int]) -> list[int]:
    """The one permutation p with x.transpose(first).transpose(then) == x.transpose(p)."""
    return [first[i] for i in then]


def inverse(perm: Sequence[int]) -> list[int]:
    """The permutation that undoes `perm`."""
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return out


def permuted_shape(shape: Sequence[int], perm: Sequence[int]) -> list[int]:
    """The shape of x.transpose(perm) for x of `shape`."""
    return [shape[p] for p in perm]


def recorded_perm(attrs: Attribute | None, name: str) -> list[int] | None:
    """`name` (INPUT_PERM / OUTPUT_PERM) in one argument's or result's attribute dictionary."""
    from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr

    perm = attrs.data.get(name) if isinstance(attrs, DictionaryAttr) else None
    return [int(v) for v in perm.get_values()] if isinstance(perm, DenseArrayBase) else None


def recorded_perms(func: FuncOp) -> tuple[list[list[int] | None], list[list[int] | None]]:
    """The INPUT_PERM of every argument and the OUTPUT_PERM of every result of `func`."""
    args = func.arg_attrs.data if func.arg_attrs else [None] * len(func.function_type.inputs)
    results = func.res_attrs.data if func.res_attrs else [None] * len(func.function_type.outputs)
    return [recorded_perm(a, INPUT_PERM) for a in args], [recorded_perm(r, OUTPUT_PERM) for r in results]


def to_model_order(x: np.ndarray, perm: Sequence[int] | None) -> np.ndarray:
    """A user's tensor (the ONNX model's layout) in the model order of a value with `perm`."""
    return x if perm is None else np.transpose(x, inverse(perm))


def to_user_layout(x: np.ndarray, perm: Sequence[int] | None) -> np.ndarray:
    """A value in model order as the user gets it: transposed by its `perm`, if any."""
    return x if perm is None else np.transpose(x, perm)


def _with_perm(all_attrs: ArrayAttr[DictionaryAttr] | None, count: int, index: int, name: str,
               perm: list[int]) -> ArrayAttr[DictionaryAttr]:
    """The attribute dictionaries with `name` = `perm` in entry `index` (none if the identity)."""
    from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, i64

    attrs = list(all_attrs.data) if all_attrs is not None else [DictionaryAttr({})] * count
    entry = {k: v for k, v in attrs[index].data.items() if k != name}
    if perm != sorted(perm):
        entry[name] = DenseArrayBase.from_list(i64, perm)
    attrs[index] = DictionaryAttr(entry)
    return ArrayAttr(attrs)


def _update_type(func: FuncOp) -> None:
    from xdsl.dialects.builtin import FunctionType
    from xdsl.dialects.func import ReturnOp

    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp)
    func.function_type = FunctionType.from_lists([a.type for a in func.body.block.args],
                                                 [v.type for v in ret.arguments])


def fold_into_output(func: FuncOp, index: int, perm: Sequence[int]) -> None:
    """Result `index` of `func` now returns x where the user's output used to be x.transpose(perm)
    (the caller has rewired the return): record that, composed with any recorded permutation.
    The caller notifies its rewriter, if it has one, that `func` changed."""
    old = recorded_perm(func.res_attrs.data[index] if func.res_attrs else None, OUTPUT_PERM)
    full = compose(perm, old) if old is not None else list(perm)
    func.res_attrs = _with_perm(func.res_attrs, len(func.function_type.outputs), index, OUTPUT_PERM, full)
    _update_type(func)


def fold_into_input(rewriter: PatternRewriter, func: FuncOp, arg: BlockArgument, perm: Sequence[int]) -> BlockArgument:
    """Argument `arg` becomes arg.transpose(perm) (its uses must expect that); the user keeps
    giving the old layout, which the recorded permutation describes. Returns the new argument."""
    from xdsl.dialects.builtin import TensorType
    from xdsl.ir import BlockArgument

    assert isinstance(arg.type, TensorType)
    index = arg.index
    old = recorded_perm(func.arg_attrs.data[index] if func.arg_attrs else None, INPUT_PERM)
    back = inverse(perm)  # the old argument is the new one transposed by inverse(perm)
    full = compose(back, old) if old is not None else back
    new_type = TensorType(arg.type.element_type, permuted_shape(arg.type.get_shape(), perm))
    new_arg = rewriter.replace_value_with_new_type(arg, new_type)
    assert isinstance(new_arg, BlockArgument)
    func.arg_attrs = _with_perm(func.arg_attrs, len(func.body.block.args), index, INPUT_PERM, full)
    _update_type(func)
    rewriter.notify_op_modified(func)
    return new_arg
