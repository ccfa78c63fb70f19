"""Reading op properties and operands as plain Python/numpy values.

Every kernel needs the same few things from an op: an integer list with a default,
a float property as float32 (ONNX attributes are float32; xDSL keeps them as Python
floats), the result element type as a numpy dtype, and the value of an optional
operand. Keeping them here keeps the per-op implementations one screen each.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, VarOperandDef
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.weight import numpy_dtype


def fail(op: Operation, message: str) -> InterpretationError:
    """An InterpretationError naming the op (and its ONNX node name when it has one)."""
    name = op.attributes.get("tgr.name")
    where = f" ('{name.data}')" if isinstance(name, StringAttr) else ""
    return InterpretationError(f"{op.name}{where}: {message}")


def ints(op: Operation, name: str, default: Sequence[int] | None = None) -> list[int] | None:
    """An `array<i64: ...>` property as a list; `default` when absent."""
    attr = op.properties.get(name)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    return None if default is None else list(default)


def floats(op: Operation, name: str) -> list[float] | None:
    """An `array<f32: ...>` property as float32 values, or None."""
    attr = op.properties.get(name)
    if isinstance(attr, DenseArrayBase):
        return [float(np.float32(v)) for v in attr.get_values()]
    return None


def int_prop(op: Operation, name: str, default: int | None = None) -> int | None:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default


def float_prop(op: Operation, name: str, default: float | None = None) -> np.float32 | None:
    """A float property rounded to float32, as ONNX stores attributes."""
    attr = op.properties.get(name)
    if isinstance(attr, FloatAttr):
        return np.float32(attr.value.data)
    return None if default is None else np.float32(default)


def str_prop(op: Operation, name: str, default: str) -> str:
    attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else default


def operand_slots(op: Operation, args: Sequence[Any]) -> dict[str, list[Any]]:
    """The runtime operand values grouped by operand definition name (an absent optional: [])."""
    defs = type(op).get_irdl_definition().operands  # type: ignore[attr-defined]
    sizes_attr = op.properties.get(AttrSizedOperandSegments.attribute_name)
    if isinstance(sizes_attr, DenseArrayBase):
        sizes = [int(v) for v in sizes_attr.get_values()]
    else:
        sizes = [1] * len(defs)
        variadic = [i for i, (_, d) in enumerate(defs) if isinstance(d, VarOperandDef)]
        if variadic:
            sizes[variadic[0]] = len(args) - (len(defs) - 1)
    slots: dict[str, list[Any]] = {}
    start = 0
    for (name, _), size in zip(defs, sizes):
        slots[name] = list(args[start : start + size])
        start += size
    return slots


def optional(op: Operation, args: Sequence[Any], name: str) -> np.ndarray | None:
    """The runtime value of the optional operand `name`, None when it is absent."""
    values = operand_slots(op, args)[name]
    return np.asarray(values[0]) if values else None


def result_dtype(op: Operation, index: int = 0) -> np.dtype:
    """The numpy dtype of result `index` (int8 storage for `!tgr.quant`)."""
    type_ = op.results[index].type
    if not isinstance(type_, TensorType):
        raise fail(op, f"result {index} is not a tensor: {type_}")
    return numpy_dtype(type_.element_type)


def result_shape(op: Operation, index: int = 0) -> tuple[int, ...]:
    type_ = op.results[index].type
    if not isinstance(type_, TensorType):
        raise fail(op, f"result {index} is not a tensor: {type_}")
    return tuple(type_.get_shape())


CONVERSIONS = frozenset({"tgr.quantize", "tgr.dequantize", "onnx.QuantizeLinear", "onnx.DequantizeLinear"})
"""Ops whose float kernels read or write `!tgr.quant` tensors by definition."""

_STORAGE_PASSTHROUGH: ContextVar[bool] = ContextVar("storage_passthrough", default=False)


@contextmanager
def storage_passthrough() -> Iterator[None]:
    """Let a float data-movement kernel run on the stored integers of `!tgr.quant` tensors: `out`
    then accepts quantized results, provided the kernel kept the storage dtype (it only moved
    values). The int8 wrappers of Resize, Reshape, ... use it (see tgr_int8.py)."""
    token = _STORAGE_PASSTHROUGH.set(True)
    try:
        yield
    finally:
        _STORAGE_PASSTHROUGH.reset(token)


def quantized_types(op: Operation) -> bool:
    """Whether any operand or result of `op` is a `!tgr.quant` tensor."""
    for value in (*op.operands, *op.results):
        type_ = value.type
        if isinstance(type_, TensorType) and isinstance(type_.element_type, QuantType):
            return True
    return False


def reject_quantized(op: Operation) -> None:
    """Float kernels only: an op with `!tgr.quant` tensors that reaches a float kernel has no int8
    kernel (those are dispatched first, see tgr_int8.py)."""
    if op.name not in CONVERSIONS and quantized_types(op) and not _STORAGE_PASSTHROUGH.get():
        raise fail(op, "no int8 kernel: quantized (!tgr.quant) tensors are not supported by this op")


def axes_from(op: Operation, args: Sequence[Any], attr: str, operand: str) -> list[int] | None:
    """Axes given either as an attribute (old opsets) or as an input (new opsets)."""
    value = optional(op, args, operand)
    if value is not None:
        return [int(v) for v in value.reshape(-1)]
    return ints(op, attr)


def shaped_result(op: Operation, index: int, value: np.ndarray) -> np.ndarray:
    """Result `index` as an array, refused unless it has the shape the IR declares for it."""
    array = np.asarray(value)
    want = result_shape(op, index)
    if array.shape != want:
        raise fail(op, f"computed shape {array.shape} but result {index} is typed {want}")
    return array


def window_params(op: Operation, rank: int) -> tuple[list[int], list[int], list[int]]:
    """strides, dilations, pads of a window op with the tgr defaults (1, 1, 0)."""
    strides = ints(op, "strides", [1] * rank)
    dilations = ints(op, "dilations", [1] * rank)
    pads = ints(op, "pads", [0] * (2 * rank))
    assert strides is not None and dilations is not None and pads is not None
    return strides, dilations, pads


def out(op: Operation, *values: np.ndarray) -> tuple[np.ndarray, ...]:
    """The op's results as its declared element types, checked against its declared shapes.

    A mismatch means the IR's types disagree with what the op computes, which is exactly
    what a reference interpreter should catch. Float kernels only (int8 kernels use
    `tgr_int8.out_int8`): `!tgr.quant` operands or results are refused here, outside the Q/DQ
    conversions and `storage_passthrough`."""
    reject_quantized(op)  # a float kernel never silently casts float values to int8 storage
    results: list[np.ndarray] = []
    for index, value in enumerate(values):
        array = shaped_result(op, index, value)
        dtype = result_dtype(op, index)
        if _STORAGE_PASSTHROUGH.get() and _is_quantized(op.results[index]) and array.dtype != dtype:
            raise fail(op, f"computes {array.dtype} values for a {dtype}-stored !tgr.quant result: no int8 kernel")
        results.append(array.astype(dtype, copy=False))
    return tuple(results)


def _is_quantized(value: SSAValue) -> bool:
    type_ = value.type
    return isinstance(type_, TensorType) and isinstance(type_.element_type, QuantType)
