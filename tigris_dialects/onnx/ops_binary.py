"""`onnx` PRelu and the variadic element-wise Max, Min and Mean (multidirectional broadcasting)."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.onnx.base import OnnxOp
from tigris.dialects.shapes import broadcast, shape_of


@irdl_op_definition
class PReluOp(OnnxOp):
    """Y = X >= 0 ? X : slope * X, the slope broadcast to X (unidirectionally).

    Before opset 7 a slope of C values applied along axis 1 (PyTorch's exports of
    nn.PReLU(num_parameters=C) at opset 6); onnx's version converter leaves such a slope as it
    is, so that form is accepted too: see `legacy_channel_slope`."""

    name = "onnx.PRelu"
    X = operand_def(TensorType)
    slope = operand_def(TensorType)
    Y = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        x, slope = shape_of(self.X), shape_of(self.slope)
        if self.legacy_channel_slope():
            return
        try:
            fits = broadcast(x, slope) == x
        except VerifyException:
            fits = False
        if not fits:
            raise VerifyException(f"onnx.PRelu: slope {slope} does not broadcast to X {x}")

    def legacy_channel_slope(self) -> bool:
        """A [C] slope that does not broadcast to X [N, C, ...] (rank > 2) but matches its channels:
        the opset 6 meaning, one slope per channel along axis 1."""
        x, slope = shape_of(self.X), shape_of(self.slope)
        if len(x) <= 2 or len(slope) != 1 or slope[0] != x[1]:
            return False
        try:
            return broadcast(x, slope) != x
        except VerifyException:
            return True


class _Variadic(OnnxOp):
    """Max, Min, Mean: one or more inputs, broadcast together."""

    data_0 = var_operand_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if not self.data_0:
            raise VerifyException(f"{self.name} needs at least one input")
        shape: tuple[int, ...] = ()
        for value in self.data_0:
            shape = broadcast(shape, shape_of(value))


@irdl_op_definition
class MaxOp(_Variadic):
    name = "onnx.Max"
    max = result_def(TensorType)


@irdl_op_definition
class MinOp(_Variadic):
    name = "onnx.Min"
    min = result_def(TensorType)


@irdl_op_definition
class MeanOp(_Variadic):
    name = "onnx.Mean"
    mean = result_def(TensorType)
