"""`tgr` element-wise and normalization ops.

Result and operand element types may differ (int8 tensors carry their own scale in
`!tgr.quant`), so verifiers compare shapes, not types.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import I64, Float32Type, FloatAttr, IntegerAttr, TensorType, f32, i64
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import broadcast, expect_shape, normalize_axis, shape_of
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.record_fields import Fields, runtime_axis
from tigris.dialects.tgr.runtime_enums import OpType
from tigris.dialects.tgr.traits import RuntimeOp, TileCategory, TileKind, int_prop

POINTWISE = (Pure(), TileCategory(TileKind.POINTWISE))
"""The traits of an element-wise op: pure, and tiled as a pointwise op (a band reads the same band)."""


class UnaryElementwise(PositionalSyntax):
    """One operand, a result of its shape (the element types may differ: int8 carries its scale)."""

    input = operand_def(TensorType)
    output = result_def(TensorType)

    def verify_(self) -> None:
        expect_shape(self, shape_of(self.output), shape_of(self.input))


@irdl_op_definition
class ReluOp(UnaryElementwise):
    name = "tgr.relu"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.RELU))


@irdl_op_definition
class Relu6Op(UnaryElementwise):
    name = "tgr.relu6"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.RELU6))


@irdl_op_definition
class SigmoidOp(UnaryElementwise):
    name = "tgr.sigmoid"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SIGMOID))


@irdl_op_definition
class TanhOp(UnaryElementwise):
    name = "tgr.tanh"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.TANH))


@irdl_op_definition
class HardSwishOp(UnaryElementwise):
    """x * relu6(x + 3) / 6. Not in spec/c-api.md's enum: runtime op type 33 is our addition."""

    name = "tgr.hard_swish"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.HARD_SWISH))


@irdl_op_definition
class QuantizeOp(UnaryElementwise):
    """float -> int8 at the result's `!tgr.quant` parameters, where a model leaves an op
    in float between int8 ones (onnxruntime's quantizer does for HardSwish, ReduceMean).
    Runtime op type 34, an addition to the spec's enum."""

    name = "tgr.quantize"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.QUANTIZE))


@irdl_op_definition
class DequantizeOp(UnaryElementwise):
    """int8 -> float at the input's `!tgr.quant` parameters. Runtime op type 35 (addition)."""

    name = "tgr.dequantize"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.DEQUANTIZE))


@irdl_op_definition
class LeakyReluOp(UnaryElementwise):
    name = "tgr.leaky_relu"
    alpha = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(0.01, f32))
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.LEAKY_RELU))

    def runtime_fields(self) -> Fields:
        return {"alpha": self.alpha.value.data}


@irdl_op_definition
class ClipOp(UnaryElementwise):
    """Clamp to [min, max]; an absent bound is unbounded."""

    name = "tgr.clip"
    min = opt_prop_def(FloatAttr[Float32Type])
    max = opt_prop_def(FloatAttr[Float32Type])
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.CLIP))

    def verify_(self) -> None:
        super().verify_()
        if self.min is not None and self.max is not None and self.min.value.data > self.max.value.data:
            raise VerifyException("tgr.clip: min is greater than max")

    def runtime_fields(self) -> Fields:
        return {"clip_min": self.min.value.data if self.min is not None else -math.inf,
                "clip_max": self.max.value.data if self.max is not None else math.inf}  # fmt: skip


class BinaryElementwise(PositionalSyntax):
    """Two operands broadcast ONNX-style to the result's shape."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)

    def verify_(self) -> None:
        expect_shape(self, shape_of(self.output), broadcast(shape_of(self.lhs), shape_of(self.rhs)))


@irdl_op_definition
class AddOp(BinaryElementwise):
    name = "tgr.add"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.ADD))


@irdl_op_definition
class SubOp(BinaryElementwise):
    name = "tgr.sub"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SUB))


@irdl_op_definition
class MulOp(BinaryElementwise):
    name = "tgr.mul"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.MUL))


@irdl_op_definition
class DivOp(BinaryElementwise):
    name = "tgr.div"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.DIV))


@irdl_op_definition
class SoftmaxOp(UnaryElementwise):
    name = "tgr.softmax"
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(-1, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.SOFTMAX))

    def verify_(self) -> None:
        super().verify_()
        normalize_axis(int_prop(self, "axis", -1), len(shape_of(self.input)))

    def runtime_fields(self) -> Fields:
        return {"axis": runtime_axis(self.axis.value.data, len(shape_of(self.input)))}


def _expect_channel_vectors(op: PositionalSyntax, channels: int, count: int) -> None:
    for param in op.operands[1 : 1 + count]:
        if shape_of(param) != (channels,):
            raise VerifyException(f"{op.name}: per-channel parameters must have shape ({channels},)")


class _NormBase(PositionalSyntax):
    """batch_norm, instance_norm: the record carries epsilon."""

    epsilon = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(1e-5, f32))

    def runtime_fields(self) -> Fields:
        return {"epsilon": self.epsilon.value.data}


@irdl_op_definition
class BatchNormOp(_NormBase):
    """Inference batch norm: (x - mean) / sqrt(var + epsilon) * scale + bias, per channel."""

    name = "tgr.batch_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = operand_def(TensorType)
    mean = operand_def(TensorType)
    var = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure(), TileCategory(TileKind.CHANNELWISE), RuntimeOp(OpType.BATCH_NORM))

    def verify_(self) -> None:
        x = shape_of(self.input)
        _expect_channel_vectors(self, x[1], 4)
        expect_shape(self, shape_of(self.output), x)


@irdl_op_definition
class InstanceNormOp(_NormBase):
    """Normalizes each channel over its spatial extent, so it needs the whole image."""

    name = "tgr.instance_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure(), TileCategory(TileKind.STRUCTURAL), RuntimeOp(OpType.INST_NORM))

    def verify_(self) -> None:
        x = shape_of(self.input)
        _expect_channel_vectors(self, x[1], 2)
        expect_shape(self, shape_of(self.output), x)
