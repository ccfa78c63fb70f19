"""`onnx` element-wise math: Neg ... Gelu, Shrink and Pow (HardSigmoid, Swish, Silu live in
ops_elementwise.py). Attributes and defaults are ONNX's."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.onnx.base import OnnxOp, float_attr, string_attr
from tigris.dialects.shapes import broadcast, shape_of


class _Unary(OnnxOp):
    X = operand_def(TensorType)
    Y = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class NegOp(_Unary):
    name = "onnx.Neg"


@irdl_op_definition
class AbsOp(_Unary):
    name = "onnx.Abs"


@irdl_op_definition
class ExpOp(_Unary):
    name = "onnx.Exp"


@irdl_op_definition
class LogOp(_Unary):
    name = "onnx.Log"


@irdl_op_definition
class SqrtOp(_Unary):
    name = "onnx.Sqrt"


@irdl_op_definition
class ReciprocalOp(_Unary):
    name = "onnx.Reciprocal"


@irdl_op_definition
class EluOp(_Unary):
    name = "onnx.Elu"
    alpha = float_attr(1.0)


@irdl_op_definition
class SeluOp(_Unary):
    name = "onnx.Selu"
    alpha = float_attr(1.67326319217681884765625)
    gamma = float_attr(1.05070102214813232421875)


@irdl_op_definition
class SoftplusOp(_Unary):
    name = "onnx.Softplus"


@irdl_op_definition
class SoftsignOp(_Unary):
    name = "onnx.Softsign"


@irdl_op_definition
class ErfOp(_Unary):
    name = "onnx.Erf"


@irdl_op_definition
class SignOp(_Unary):
    name = "onnx.Sign"


@irdl_op_definition
class GeluOp(_Unary):
    """Opset 20: approximate "none" (erf form) or "tanh"."""

    name = "onnx.Gelu"
    approximate = string_attr("none")

    def verify_(self) -> None:
        if self.approximate.data not in ("none", "tanh"):
            raise VerifyException(f"onnx.Gelu: approximate must be 'none' or 'tanh', got '{self.approximate.data}'")


@irdl_op_definition
class ShrinkOp(OnnxOp):
    name = "onnx.Shrink"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    bias = float_attr(0.0)
    lambd = float_attr(0.5)
    traits = traits_def(Pure())


@irdl_op_definition
class PowOp(OnnxOp):
    """X ** Y, broadcasting; the runtime takes a constant scalar Y only (convert-onnx-to-tgr)."""

    name = "onnx.Pow"
    X = operand_def(TensorType)
    Y = operand_def(TensorType)
    Z = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        broadcast(shape_of(self.X), shape_of(self.Y))


UNARY_OPS: list[type[OnnxOp]] = [
    NegOp, AbsOp, ExpOp, LogOp, SqrtOp, ReciprocalOp, EluOp, SeluOp, SoftplusOp, SoftsignOp,
    ErfOp, SignOp, GeluOp, ShrinkOp, PowOp,
]  # fmt: skip
"""This module's ops, registered in ONNX_OPS."""
