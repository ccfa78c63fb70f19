"""`tgr.weight`: a constant tensor, inline (`dense<...>`) or in the resource table.

    %w = tgr.weight dense_resource<conv1.weight> : tensor<16x3x3x3xf32>
    %b = tgr.weight dense<[0.5, -1.0]> : tensor<2xf32>

`weight_array` and `make_weight` are the only way the rest of the compiler turns a
weight into numpy and back, whichever form it has.
"""

from __future__ import annotations

from typing import Self

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.tgr.attributes import DenseResourceAttr, QuantType, parse_resource_key

INLINE_LIMIT = 16
"""Weights with at most this many elements are kept inline, readable in the IR."""


def numpy_dtype(element: Attribute) -> np.dtype:
    """The numpy dtype that stores one element of `element` (quantized: its storage)."""
    if isinstance(element, QuantType):
        element = element.storage
    if isinstance(element, Float32Type):
        return np.dtype("<f4")
    if isinstance(element, Float64Type):
        return np.dtype("<f8")
    if isinstance(element, Float16Type):
        return np.dtype("<f2")
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1:
            return np.dtype(np.bool_)
        kind = "u" if element.signedness.data == Signedness.UNSIGNED else "i"
        if width in (8, 16, 32, 64):
            return np.dtype(f"<{kind}{width // 8}")
    raise VerifyException(f"no numpy storage for element type {element}")


def weight_array(value: Attribute) -> np.ndarray:
    """The numpy array behind a `dense<...>` or `#tgr.dense_resource` attribute (read-only)."""
    from tigris.dialects.tgr.dialect import weight_resources

    if isinstance(value, DenseResourceAttr):
        type_ = value.type
        blob = weight_resources().get(value.key)
        if blob is None:
            raise VerifyException(
                f"weight '{value.key}' has no data (was the IR printed with --elide-weights?)"
            )
    elif isinstance(value, DenseIntOrFPElementsAttr):
        type_ = value.type
        blob = value.data.data
    else:
        raise VerifyException(f"not a weight value: {value}")
    assert isinstance(type_, TensorType)
    shape = tuple(type_.get_shape())
    array = np.frombuffer(blob, numpy_dtype(type_.element_type)) if isinstance(blob, bytes) else blob
    if array.size == 1 and int(np.prod(shape)) != 1:  # a splat `dense<1.0>`
        array = np.broadcast_to(array.reshape(()), shape)
    return array.reshape(shape)


def weight_value(array: np.ndarray, type_: TensorType, name: str) -> Attribute:
    """An attribute holding `array`: inline when tiny, else a new resource."""
    from tigris.dialects.tgr.dialect import weight_resources

    array = np.asarray(array).astype(numpy_dtype(type_.element_type), order="C", copy=False)
    if array.shape != tuple(type_.get_shape()):
        raise VerifyException(f"weight '{name}': array shape {array.shape} != type {type_}")
    if array.size <= INLINE_LIMIT and not isinstance(type_.element_type, QuantType):
        return DenseIntOrFPElementsAttr(type_, BytesAttr(array.tobytes()))
    return DenseResourceAttr(StringAttr(weight_resources().add(name, array)), type_)


def make_weight(array: np.ndarray, type_: TensorType, name: str) -> WeightOp:
    return WeightOp(weight_value(array, type_, name), name)


@irdl_op_definition
class WeightOp(IRDLOperation):
    name = "tgr.weight"
    value = prop_def(DenseIntOrFPElementsAttr | DenseResourceAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr | DenseResourceAttr, name: str | None = None):
        attributes = {"tgr.name": StringAttr(name)} if name else {}
        super().__init__(properties={"value": value}, result_types=[value.type], attributes=attributes)

    def array(self) -> np.ndarray:
        return weight_array(self.value)

    def verify_(self) -> None:
        if self.value.type != self.output.type:
            raise VerifyException(f"tgr.weight: value type {self.value.type} != result type {self.output.type}")
        if isinstance(self.value, DenseResourceAttr):
            from tigris.dialects.tgr.dialect import weight_resources

            blob = weight_resources().get(self.value.key)
            if blob is not None:
                size = blob.nbytes if isinstance(blob, np.ndarray) else len(blob)
                want = int(np.prod(self.value.type.get_shape())) * numpy_dtype(self.value.type.element_type).itemsize
                if size != want:
                    raise VerifyException(
                        f"tgr.weight '{self.value.key}': blob has {size} bytes, {self.value.type} needs {want}"
                    )

    def print(self, printer: Printer) -> None:
        """`attr-dict value : type`, the order of MLIR's arith.constant."""
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        if isinstance(self.value, DenseResourceAttr):
            printer.print_string("dense_resource<")
            printer.print_resource_handle("tgr", self.value.key)
            printer.print_string(">")
        else:
            self.value.print_without_type(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.output.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        attributes = parser.parse_optional_attr_dict()
        if parser.parse_optional_keyword("dense_resource") is not None:
            parser.parse_punctuation("<")
            key = parse_resource_key(parser)
            parser.parse_punctuation(">")
            parser.parse_punctuation(":")
            type_ = parser.parse_type()
            if not isinstance(type_, TensorType):
                parser.raise_error("tgr.weight needs a tensor type")
            value: DenseIntOrFPElementsAttr | DenseResourceAttr = DenseResourceAttr(StringAttr(key), type_)
        else:
            pos = parser.pos
            dense = parser.parse_attribute()
            if not isinstance(dense, DenseIntOrFPElementsAttr):
                parser.raise_error("tgr.weight expects dense<...> or dense_resource<...>", pos, parser.pos)
            value = dense
        op = cls.__new__(cls)
        IRDLOperation.__init__(op, properties={"value": value}, result_types=[value.type], attributes=attributes)
        return op
