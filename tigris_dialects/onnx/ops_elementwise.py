"""`onnx` element-wise ops: activations and broadcasting arithmetic."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.onnx.base import MultiOptional, OnnxOp, float_attr
from tigris.dialects.shapes import broadcast, shape_of


class _Unary(OnnxOp):
    X = operand_def(TensorType)
    Y = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class ReluOp(_Unary):
    name = "onnx.Relu"


@irdl_op_definition
class SigmoidOp(_Unary):
    name = "onnx.Sigmoid"


@irdl_op_definition
class TanhOp(_Unary):
    name = "onnx.Tanh"


@irdl_op_definition
class HardSwishOp(_Unary):
    name = "onnx.HardSwish"


@irdl_op_definition
class LeakyReluOp(_Unary):
    name = "onnx.LeakyRelu"
    alpha = float_attr(0.01)


@irdl_op_definition
class HardSigmoidOp(_Unary):
    name = "onnx.HardSigmoid"
    alpha = float_attr(0.2)
    beta = float_attr(0.5)


@irdl_op_definition
class SwishOp(_Unary):
    """x * sigmoid(alpha * x) (ONNX opset 24)."""

    name = "onnx.Swish"
    alpha = float_attr(1.0)


@irdl_op_definition
class SiluOp(_Unary):
    """x * sigmoid(x), as custom domains (com.microsoft and exporters) spell it."""

    name = "onnx.Silu"


@irdl_op_definition
class FloorOp(_Unary):
    name = "onnx.Floor"


@irdl_op_definition
class CeilOp(_Unary):
    name = "onnx.Ceil"


@irdl_op_definition
class RoundOp(_Unary):
    """Halves round to even, as numpy does."""

    name = "onnx.Round"


@irdl_op_definition
class ClipOp(MultiOptional):
    """Bounds are inputs from opset 11, attributes `min`/`max` before."""

    name = "onnx.Clip"
    input = operand_def(TensorType)
    min_in = opt_operand_def(TensorType)
    max_in = opt_operand_def(TensorType)
    output = result_def(TensorType)
    min = float_attr()
    max = float_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        for bound in (self.min_in, self.max_in):
            if bound is not None and len(shape_of(bound)) != 0:
                raise VerifyException("onnx.Clip: min and max inputs must be scalars")


class _Binary(OnnxOp):
    A = operand_def(TensorType)
    B = operand_def(TensorType)
    C = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        broadcast(shape_of(self.A), shape_of(self.B))


@irdl_op_definition
class AddOp(_Binary):
    name = "onnx.Add"


@irdl_op_definition
class SubOp(_Binary):
    name = "onnx.Sub"


@irdl_op_definition
class MulOp(_Binary):
    name = "onnx.Mul"


@irdl_op_definition
class DivOp(_Binary):
    name = "onnx.Div"


@irdl_op_definition
class EqualOp(_Binary):
    """A boolean (i1) result."""

    name = "onnx.Equal"


@irdl_op_definition
class SumOp(OnnxOp):
    name = "onnx.Sum"
    data_0 = var_operand_def(TensorType)
    sum = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if not self.data_0:
            raise VerifyException("onnx.Sum needs at least one input")
