"""ONNX tensor element types as MLIR types (onnx-mlir's convention: signless iN, unsigned uiN)."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from tigris.dialects.onnx.errors import OnnxImportError

# TensorProto.DataType numbers (onnx.proto); kept here so only the importer imports onnx.
_TYPES: dict[int, Attribute] = {
    1: Float32Type(),
    2: IntegerType(8, Signedness.UNSIGNED),
    3: IntegerType(8),
    4: IntegerType(16, Signedness.UNSIGNED),
    5: IntegerType(16),
    6: IntegerType(32),
    7: IntegerType(64),
    9: IntegerType(1),
    10: Float16Type(),
    11: Float64Type(),
    12: IntegerType(32, Signedness.UNSIGNED),
    13: IntegerType(64, Signedness.UNSIGNED),
}


_UNSUPPORTED = {8: "string", 14: "complex64", 15: "complex128", 16: "bfloat16"}
"""Names for the refusal of element types TiGrIS has no storage for (float8/int4 kinds: numbers)."""


def element_type(onnx_type: int, tensor: str) -> Attribute:
    try:
        return _TYPES[onnx_type]
    except KeyError:
        kind = _UNSUPPORTED.get(onnx_type, f"ONNX element type {onnx_type}")
        raise OnnxImportError(f"tensor '{tensor}' holds {kind} elements, which TiGrIS does not support") from None
