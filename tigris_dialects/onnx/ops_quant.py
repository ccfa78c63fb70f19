"""`onnx` QDQ ops and the generic op that carries any ONNX node we do not model."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, StringAttr, TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.onnx.base import OnnxOp, int_attr
from tigris.dialects.shapes import shape_of


class _QDQ(OnnxOp):
    x = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = opt_operand_def(TensorType)
    y = result_def(TensorType)
    axis = int_attr(1)
    block_size = int_attr(0)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        blocked = self.block_size.value.data > 0  # opset 21: scale has x's rank, blocks along axis
        if not blocked and len(shape_of(self.scale)) > 1:
            raise VerifyException(f"{self.name}: scale must be a scalar or a 1-D per-axis vector")
        if blocked and len(shape_of(self.scale)) != len(shape_of(self.x)):
            raise VerifyException(f"{self.name}: blocked quantization needs a scale of the input's rank")
        if self.zero_point is None:
            return
        scale, zero_point = shape_of(self.scale), shape_of(self.zero_point)
        # onnxruntime's quantizer writes a per-tensor bias scale as [1] beside a scalar zero
        # point (and onnxruntime runs it): one element each is per-tensor, whatever the shapes.
        if zero_point != scale and not math.prod(zero_point) == math.prod(scale) == 1:
            raise VerifyException(f"{self.name}: zero point and scale shapes differ")


@irdl_op_definition
class QuantizeLinearOp(_QDQ):
    name = "onnx.QuantizeLinear"
    saturate = int_attr(1)
    output_dtype = int_attr(0)


@irdl_op_definition
class DequantizeLinearOp(_QDQ):
    name = "onnx.DequantizeLinear"


@irdl_op_definition
class GenericOp(OnnxOp):
    """Any ONNX node without a typed op: import never fails, `check-legal` reports it.

        %y = onnx.generic %x {op_type = "Foo", domain = "my.domain", node_attributes = {k = 1 : i64}}
    """

    name = "onnx.generic"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    op_type = prop_def(StringAttr)
    domain = prop_def(StringAttr, default_value=StringAttr(""))
    node_attributes = prop_def(DictionaryAttr, default_value=DictionaryAttr({}))
    absent_inputs = opt_prop_def(DenseArrayBase)
    """Positions of the node's empty (skipped optional) inputs, so `Op(a, , c)` stays distinct from `Op(a, c)`."""
