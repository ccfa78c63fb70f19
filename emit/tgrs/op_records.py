"""`op_record`: one op of a compiled module as its `.tgrs` record (`Op`).

The emitter keeps no table of op types. What every op has is written here, the same way for
each: its type (the `RuntimeOp` trait), operands and results as tensor indices, the constant
operands named `weight` and `bias` as those roles, a `fused_activation`, the zero points of
its int8 input(s) and output, and the int8 numbers compute-quant-scales attached
(`int8_fields`), and its band geometry along H and W with the window fields it implies, read from
its traits (`op_geometry.py`). What only some ops have, each op says itself in `runtime_fields()`
(tigris_dialects/tgr/record_fields.py): built-in and plugin ops alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.record_fields import Fields, RecordFieldError
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.dialects.tgr.weight import WeightOp
from tigris.emit.tgrs.enums import TABLE_SIZE, Activation, OpType
from tigris.emit.tgrs.model import Op
from tigris.emit.tgrs.op_geometry import check_agrees, geometry_fields


class FromIrError(ValueError):
    """The module holds something the `.tgrs` format cannot express."""


def op_name(op: Operation) -> str:
    attr = op.attributes.get("tgr.name")
    return attr.data if isinstance(attr, StringAttr) else op.name


def fail(op: Operation, msg: str) -> FromIrError:
    return FromIrError(f"{op.name} '{op_name(op)}': {msg}")


_INDEX_FIELDS = frozenset({"op_type", "name", "inputs", "outputs", "weight", "bias", "table", "geometry_h",
                           "geometry_w"})
_OWN_FIELDS = frozenset(f.name for f in fields(Op)) - _INDEX_FIELDS
"""What `runtime_fields()` may set: every `tigris_op_t` field but the indices and the band geometry
the emitter owns."""


def _op_type(op: Operation) -> OpType:
    trait = op.get_trait(RuntimeOp)
    if trait is None:
        raise fail(op, "has no RuntimeOp trait: no runtime op type")
    try:
        return OpType(trait.op_type)
    except ValueError:
        raise fail(op, f"runtime op type {trait.op_type} is not a .tgrs op type") from None


def _own_fields(op: Operation) -> Fields:
    """The record fields the op sets itself with `runtime_fields()` (docs/extending.md)."""
    method = getattr(op, "runtime_fields", None)
    if method is None:
        return {}
    try:
        own = dict(method())
    except RecordFieldError as e:
        raise fail(op, str(e)) from None
    unknown = sorted(set(own) - _OWN_FIELDS)
    if unknown:
        raise fail(op, f"runtime_fields() sets '{unknown[0]}', which is not a tigris_op_t field it may set")
    return own


def _zero_point(value: SSAValue) -> int:
    element = value.type.element_type if isinstance(value.type, TensorType) else None
    if isinstance(element, QuantType) and element.axis.data < 0:
        return int(element.zero_point_values[0])
    return 0


def _common_fields(op: Operation, ids: Mapping[SSAValue, int]) -> Fields:
    """Roles, fused activation and zero points, read the same way from every op."""
    f: Fields = {}
    for role in ("weight", "bias"):
        value = getattr(op, role, None)
        if isinstance(value, SSAValue) and value in ids and isinstance(value.owner, WeightOp):
            f[role] = ids[value]
    act = op.properties.get("fused_activation")
    if isinstance(act, StringAttr):
        f["activation"] = Activation[act.data.upper()]
    if op.operands and op.results:
        f["input_zp"] = _zero_point(op.operands[0])
        f["output_zp"] = _zero_point(op.results[0])
        if len(op.operands) > 1 and "weight" not in f:
            f["input2_zp"] = _zero_point(op.operands[1])
    return f


def _attr_ints(op: Operation, name: str) -> list[int] | None:
    attr = op.attributes.get(name)
    return [int(v) for v in attr.get_values()] if isinstance(attr, DenseArrayBase) else None


def int8_fields(op: Operation, tables: list[bytes]) -> Fields:
    """The compile-time numbers compute-quant-scales attached to an int8 op, as record fields (a
    lookup table is appended to `tables` and referenced by index). Driven by the attributes alone:
    any op that has them gets them (which op has which is `tigris.dialects.quant.params`'s)."""
    f: Fields = {}
    scales = op.attributes.get("tgr.requant_scales")
    if isinstance(scales, DenseArrayBase):
        f["requant_scales"] = tuple(float(v) for v in scales.get_values())
    act_range = _attr_ints(op, "tgr.act_range")
    if act_range is not None:
        f["act_min"], f["act_max"] = act_range
    table = _attr_ints(op, "tgr.table")
    if table is not None:
        if len(table) != TABLE_SIZE:
            raise fail(op, f"tgr.table has {len(table)} entries, not {TABLE_SIZE}")
        f["table"] = len(tables)
        tables.append(bytes(v & 0xFF for v in table))
    pad_q = op.attributes.get("tgr.pad_value")
    if isinstance(pad_q, IntegerAttr):
        f["pad_value_q"] = pad_q.value.data
    return f


def op_record(op: Operation, ids: Mapping[SSAValue, int], tables: list[bytes]) -> Op:
    """The record of `op`; `ids` numbers the module's tensors, `tables` collects int8 tables."""
    op_type = _op_type(op)
    inputs = tuple(ids[v] for v in op.operands)
    outputs = tuple(ids[r] for r in op.results)
    own = _own_fields(op)
    try:
        geometry = geometry_fields(op)
        check_agrees(geometry, own)
    except RecordFieldError as e:
        raise fail(op, str(e)) from None
    f = _common_fields(op, ids) | int8_fields(op, tables) | own | geometry
    return Op(op_type, op_name(op), inputs, outputs, **f)  # type: ignore[arg-type]
