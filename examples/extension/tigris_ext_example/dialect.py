"""The `ext` dialect: `ext.thresholded_relu`.

The traits are what TiGrIS asks of an op: `TileCategory(POINTWISE)` lets the planner cut its
stage into bands of rows, `RuntimeOp(130)` is the op type the emitter writes (128..254 are
for extension ops). `runtime_fields` puts the op's parameter into the record field its C
kernel reads: alpha in `alpha` (an extension op decides what every parameter field means).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatAttr, TensorType, f32
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.traits import RuntimeOp, TileCategory, TileKind

THRESHOLDED_RELU = 130
"""The runtime op type of ext.thresholded_relu; kernels/ext_kernels.c has the same number."""


@irdl_op_definition
class ThresholdedReluOp(PositionalSyntax):
    """y = x if x > alpha else 0, element-wise, float32 (ONNX ThresholdedRelu).

        %y = ext.thresholded_relu %x {alpha = 0.25 : f32} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    """

    name = "ext.thresholded_relu"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    alpha = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(1.0, f32))
    traits = traits_def(Pure(), TileCategory(TileKind.POINTWISE), RuntimeOp(THRESHOLDED_RELU))

    def verify_(self) -> None:
        for value in (self.input, self.output):
            if not isinstance(value.type, TensorType) or not isinstance(value.type.element_type, Float32Type):
                raise VerifyException(f"{self.name}: operands are float32 tensors, got {value.type}")
        if self.input.type != self.output.type:
            raise VerifyException(
                f"{self.name}: result type {self.output.type} differs from {self.input.type}"
            )

    def runtime_fields(self) -> dict[str, object]:
        """Extra `tigris_op_t` fields for the emitter (emit/tgrs/op_records.py)."""
        return {"alpha": self.alpha.value.data}


EXT = Dialect("ext", [ThresholdedReluOp])
