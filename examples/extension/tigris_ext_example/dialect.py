"""The `ext` dialect: `ext.thresholded_relu` and `ext.lp_pool`.

The traits are what TiGrIS asks of an op: `TileCategory(POINTWISE)` lets the planner cut its
stage into bands of rows, `RuntimeOp(130)` is the op type the emitter writes (128..254 are
for extension ops). `runtime_fields` puts the op's parameter into the record field its C
kernel reads: alpha in `alpha` (an extension op decides what every parameter field means).

`ext.lp_pool` is windowed: `TileCategory(SPATIAL)` and `SpatialWindow()` (which reads the
`kernel_shape`, `strides`, `dilations` and `pads` properties) are its band geometry. The
planner sizes its halo from them, and the emitter writes them into the record (geometry_h /
geometry_w WINDOW, kernel_h .. pad_right), from which the runtime computes the input rows of
every band; `runtime_fields` adds only p.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I64, DenseArrayBase, Float32Type, FloatAttr, IntegerAttr, TensorType, f32, i64,
)
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import expect_shape, ints, shape_of, windowed_shape
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.traits import RuntimeOp, SpatialWindow, TileCategory, TileKind

THRESHOLDED_RELU = 130
"""The runtime op type of ext.thresholded_relu; kernels/ext_kernels.c has the same number."""
LP_POOL = 131
"""The runtime op type of ext.lp_pool; kernels/ext_kernels.c has the same number."""
LP_NORMS = (1, 2)
"""The p the kernel computes: sum |x|, sqrt(sum x^2)."""


def _f32_tensor(op_name: str, value_type: object) -> None:
    if not isinstance(value_type, TensorType) or not isinstance(value_type.element_type, Float32Type):
        raise VerifyException(f"{op_name}: operands are float32 tensors, got {value_type}")


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
            _f32_tensor(self.name, value.type)
        if self.input.type != self.output.type:
            raise VerifyException(
                f"{self.name}: result type {self.output.type} differs from {self.input.type}"
            )

    def runtime_fields(self) -> dict[str, object]:
        """Extra `tigris_op_t` fields for the emitter (emit/tgrs/op_records.py)."""
        return {"alpha": self.alpha.value.data}


@irdl_op_definition
class LpPoolOp(PositionalSyntax):
    """y = (sum over each window of |x|^p)^(1/p), padding reading 0, over [N, C, H, W] float32
    (ONNX LpPool, 2-D, p 1 or 2).

        %y = ext.lp_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    """

    name = "ext.lp_pool"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    kernel_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    p = prop_def(IntegerAttr[I64], default_value=IntegerAttr(2, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), RuntimeOp(LP_POOL))

    def verify_(self) -> None:
        for value in (self.input, self.output):
            _f32_tensor(self.name, value.type)
        x = shape_of(self.input)
        if len(x) != 4:
            raise VerifyException(f"{self.name}: needs a rank-4 [N, C, H, W] input, got {list(x)}")
        if self.p.value.data not in LP_NORMS:
            raise VerifyException(f"{self.name}: p must be 1 or 2, got {self.p.value.data}")
        kernel = ints(self, "kernel_shape") or []
        if len(kernel) != 2 or min(kernel) < 1:
            raise VerifyException(f"{self.name}: kernel_shape must be two sizes >= 1, got {kernel}")
        try:
            want = windowed_shape(self, x, kernel, x[1])
        except VerifyException as e:
            raise VerifyException(f"{self.name}: {e}") from None
        expect_shape(self, shape_of(self.output), want)

    def runtime_fields(self) -> dict[str, object]:
        """p in `params`; the window fields come from SpatialWindow (the emitter writes them)."""
        return {"params": (self.p.value.data,)}


EXT = Dialect("ext", [ThresholdedReluOp, LpPoolOp])
