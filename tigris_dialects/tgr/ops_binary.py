"""`tgr` binary ops beyond the arithmetic four: prelu, max, min, pow_tensor.

All four broadcast ONNX-style like `tgr.add` and are pointwise for tiling: an output band reads
the same band of each operand (a broadcast operand the rows it has). PRelu's slope is an operand,
not a property, because ONNX gives it as a tensor (usually a constant per channel, [C, 1, 1]).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import expect_shape, shape_of
from tigris.dialects.tgr.ops_elementwise import POINTWISE, BinaryElementwise
from tigris.dialects.tgr.runtime_enums import OpType
from tigris.dialects.tgr.traits import RuntimeOp


@irdl_op_definition
class PReluOp(BinaryElementwise):
    """y = x >= 0 ? x : slope * x; `lhs` is x, `rhs` the slope (broadcast to x)."""

    name = "tgr.prelu"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.PRELU))

    def verify_(self) -> None:
        """ONNX broadcasts the slope one way only: to x's shape, which is the result's."""
        super().verify_()
        expect_shape(self, shape_of(self.output), shape_of(self.lhs))


@irdl_op_definition
class MaxOp(BinaryElementwise):
    """Element-wise maximum (NaN propagates, as numpy's maximum)."""

    name = "tgr.max"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.MAX))


@irdl_op_definition
class MinOp(BinaryElementwise):
    """Element-wise minimum (NaN propagates, as numpy's minimum)."""

    name = "tgr.min"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.MIN))


@irdl_op_definition
class PowTensorOp(BinaryElementwise):
    """Element-wise `lhs ** rhs` with a tensor exponent (ONNX Pow whose exponent is not one
    constant; a constant scalar exponent is `tgr.pow`). float32 only: C's powf, so a negative
    base with a non-integer exponent is NaN, as in onnxruntime."""

    name = "tgr.pow_tensor"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.POW_TENSOR))

    def verify_(self) -> None:
        super().verify_()
        for value in (self.lhs, self.rhs, self.output):
            element = value.type.element_type  # type: ignore[union-attr]
            if not isinstance(element, Float32Type):
                raise VerifyException(f"{self.name}: operands and result are float32, got {value.type}")
