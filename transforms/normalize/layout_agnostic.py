"""Ops that compute the same thing on transposed data, given remapped axes.

`fold-layout-transposes` moves a transpose past such an op: if the op reads
`x = y.transpose(perm)`, the same op with the properties `through` returns reads `y`
directly, and its result is the old result transposed by the permutation `through` also
returns (`perm` itself, unless the op drops axes). Which ops qualify:

- pointwise ops (the `TileCategory` they declare) whose other operands have one element,
  so broadcasting them does not depend on the layout;
- QuantizeLinear / DequantizeLinear, per-tensor or per-axis (the axis is remapped);
- pad (the pads are remapped) and the reductions, reduce_mean/sum/max/min (the axes are
  remapped; with keepdims = 0 the axes it drops leave a smaller permutation, the identity
  when the kept axes stay in order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tigris.dialects.onnx.ops_quant import DequantizeLinearOp, QuantizeLinearOp
from tigris.dialects.shapes import ints, normalize_axis, shape_of
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_reduce import Reduction
from tigris.dialects.tgr.ops_shape import PadOp
from tigris.dialects.tgr.traits import TileCategory, TileKind

Through = tuple[dict[str, Attribute], list[int]]
"""The properties to set on the op, and the permutation between its new and old result."""


def _i64s(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def per_axis_quantized(value: SSAValue) -> bool:
    """A `!tgr.quant` type with an axis: moving the value's axes would have to move that too."""
    element = value.type.element_type if isinstance(value.type, TensorType) else None
    return isinstance(element, QuantType) and element.axis.data >= 0


def _pointwise(op: Operation) -> bool:
    return TileCategory.of(op) == TileKind.POINTWISE and all(
        math.prod(shape_of(v)) == 1 for v in op.operands[1:]
    )


def _quantization(op: QuantizeLinearOp | DequantizeLinearOp, perm: Sequence[int]) -> Through | None:
    if math.prod(shape_of(op.scale)) == 1:
        return {}, list(perm)
    if op.block_size.value.data != 0:
        return None  # blocks run along an axis in memory order: not remapped here
    axis = normalize_axis(op.axis.value.data, len(perm))
    return {"axis": IntegerAttr(perm[axis], i64)}, list(perm)


def _pad(op: PadOp, perm: Sequence[int]) -> Through:
    pads, rank = ints(op, "pads") or [], len(perm)
    begins, ends = [0] * rank, [0] * rank
    for j, axis in enumerate(perm):  # axis j of x is axis perm[j] of y
        begins[axis], ends[axis] = pads[j], pads[rank + j]
    return {"pads": _i64s(begins + ends)}, list(perm)


def _reduce(op: Reduction, perm: Sequence[int]) -> Through:
    axes = {normalize_axis(a, len(perm)) for a in ints(op, "axes") or []}
    new_axes = sorted(perm[a] for a in axes)
    if op.keepdims.value.data != 0:
        return {"axes": _i64s(new_axes)}, list(perm)
    kept_old = [perm[j] for j in range(len(perm)) if j not in axes]  # in the old result's order
    kept_new = sorted(kept_old)  # in the new result's order
    return {"axes": _i64s(new_axes)}, [kept_new.index(a) for a in kept_old]


def through(op: Operation, perm: Sequence[int]) -> Through | None:
    """How `op`, reading `y.transpose(perm)` as its first operand, reads `y` instead; None if
    its result depends on the layout (or it has several data operands)."""
    if len(op.results) != 1 or any(per_axis_quantized(v) for v in (*op.operands[:1], *op.results)):
        return None  # the axis of a per-axis `!tgr.quant` type would need remapping too
    if isinstance(op, QuantizeLinearOp | DequantizeLinearOp):
        return _quantization(op, perm)
    if isinstance(op, PadOp):
        return _pad(op, perm)
    if isinstance(op, Reduction):
        return _reduce(op, perm)
    if _pointwise(op):
        return {}, list(perm)
    return None
