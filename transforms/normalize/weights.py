"""Constant weights as normalization passes need them, quantized (DQ of int8) or not."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue

from tigris.dialects.constants import constant_array
from tigris.dialects.onnx.ops_quant import DequantizeLinearOp
from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.weight import make_weight


def is_constant_weight(value: SSAValue) -> bool:
    """A constant, or the DequantizeLinear of one (a QDQ model's weight)."""
    owner = value.owner
    if isinstance(owner, DequantizeLinearOp):
        return constant_array(owner.x) is not None
    return constant_array(value) is not None


def transposed_weight(value: SSAValue, transpose: bool) -> tuple[list[Operation], SSAValue | None]:
    """The 2-D weight `value`, transposed if asked: (new ops to insert, new value).

    For DQ(int8) the int8 tensor is transposed and the DQ rebuilt with its axis
    swapped, so fold-qdq still finds int8 weights with per-channel scales on the
    output axis. Returns (.., None) when `value` is not a constant weight."""
    if not is_constant_weight(value):
        return [], None
    if not transpose:
        return [], value
    owner = value.owner
    if isinstance(owner, DequantizeLinearOp):
        ops, quantized = transposed_weight(owner.x, True)
        assert quantized is not None
        axis = owner.axis.value.data % 2
        dq = DequantizeLinearOp.build(
            operands=[quantized, owner.scale, [owner.zero_point] if owner.zero_point is not None else []],
            result_types=[_transposed_type(value)],
            properties={"axis": IntegerAttr(1 - axis, i64)},
        )
        return [*ops, dq], dq.y
    array = constant_array(value)
    assert array is not None
    name = owner.attributes.get("tgr.name") if isinstance(owner, Operation) else None
    weight = make_weight(array.T.copy(), _transposed_type(value), f"{getattr(name, 'data', 'weight')}.T")
    return [weight], weight.output


def _transposed_type(value: SSAValue) -> TensorType:
    assert isinstance(value.type, TensorType)
    rows, cols = shape_of(value)
    return TensorType(value.type.element_type, [cols, rows])
