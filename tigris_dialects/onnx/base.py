"""Shared pieces of the `onnx` dialect: the op base class and ONNX attribute kinds.

ONNX attributes become properties under their ONNX names. An attribute with an ONNX
default gets it here too (so passes never re-encode defaults); one without a default
(`kernel_shape`, `perm`) is optional. Inputs are positional, as in ONNX (see
`tigris.dialects.syntax`); where an old opset's attribute and a newer opset's input
share a name (Clip `min`, Pad `pads`, Squeeze `axes`), the input is `<name>_in`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f32,
    i64,
)
from xdsl.irdl import AttrSizedOperandSegments, OptPropertyDef, PropertyDef, opt_prop_def, prop_def

from tigris.dialects.syntax import PositionalSyntax


class OnnxOp(PositionalSyntax):
    """Base of every typed `onnx.*` op."""


class MultiOptional(OnnxOp):
    """Base of ops with several optional inputs: their sizes are recorded as segments."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)


def int_attr(default: int | None = None) -> PropertyDef | OptPropertyDef:
    if default is None:
        return opt_prop_def(IntegerAttr[I64])
    return prop_def(IntegerAttr[I64], default_value=IntegerAttr(default, i64))


def float_attr(default: float | None = None) -> PropertyDef | OptPropertyDef:
    if default is None:
        return opt_prop_def(FloatAttr[Float32Type])
    return prop_def(FloatAttr[Float32Type], default_value=FloatAttr(default, f32))


def string_attr(default: str | None = None) -> PropertyDef | OptPropertyDef:
    if default is None:
        return opt_prop_def(StringAttr)
    return prop_def(StringAttr, default_value=StringAttr(default))


def array_attr() -> OptPropertyDef:
    """INTS/FLOATS attributes: `array<i64: ...>` / `array<f32: ...>`; ONNX gives no default."""
    return opt_prop_def(DenseArrayBase)
