"""`tgr` reductions and normalizations over chosen axes: reduce_sum/max/min (reduce_mean shares
their base), log_softmax, lrn and layer_norm.

Axes are model (NCHW) axes in the IR; the record names them in the runtime's channels-last
order (`runtime_axis`), the way tgr.reduce_mean and tgr.softmax always have, so one C
reduction walk serves every reduction kind.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, DenseArrayBase, Float32Type, FloatAttr, IntegerAttr, TensorType, f32, i64
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import expect_shape, ints, normalize_axis, shape_of
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.record_fields import Fields, runtime_axis
from tigris.dialects.tgr.runtime_enums import OpFlag, OpType
from tigris.dialects.tgr.traits import RuntimeOp, TileCategory, TileKind, int_prop


class Reduction(PositionalSyntax):
    """A reduction over `axes` (model order; none: reduces nothing), keeping them as size 1 if
    `keepdims`. The record holds the runtime axes in `params` and KEEPDIMS in `flags`."""

    input = operand_def(TensorType)
    output = result_def(TensorType)
    axes = prop_def(DenseArrayBase)
    keepdims = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))

    def verify_(self) -> None:
        x = shape_of(self.input)
        axes = {normalize_axis(a, len(x), "reduce axis") for a in ints(self, "axes") or []}
        keep = int_prop(self, "keepdims", 1) == 1
        want = [1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes]
        expect_shape(self, shape_of(self.output), want)

    def runtime_fields(self) -> Fields:
        rank = len(shape_of(self.input))  # no axes: reduces nothing, as the verifier and interpreter read it
        return {
            "params": tuple(sorted(runtime_axis(a, rank) for a in ints(self, "axes") or [])),
            "flags": OpFlag.KEEPDIMS if self.keepdims.value.data else OpFlag(0),
        }


@irdl_op_definition
class ReduceSumOp(Reduction):
    name = "tgr.reduce_sum"
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.REDUCE_SUM))


@irdl_op_definition
class ReduceMaxOp(Reduction):
    name = "tgr.reduce_max"
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.REDUCE_MAX))


@irdl_op_definition
class ReduceMinOp(Reduction):
    name = "tgr.reduce_min"
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.REDUCE_MIN))


@irdl_op_definition
class LogSoftmaxOp(PositionalSyntax):
    """x - max - log(sum(exp(x - max))) along `axis`."""

    name = "tgr.log_softmax"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(-1, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.LOG_SOFTMAX))

    def verify_(self) -> None:
        expect_shape(self, shape_of(self.output), shape_of(self.input))
        normalize_axis(int_prop(self, "axis", -1), len(shape_of(self.input)))

    def runtime_fields(self) -> Fields:
        return {"axis": runtime_axis(self.axis.value.data, len(shape_of(self.input)))}


def _f32(value: float) -> FloatAttr:
    return FloatAttr(value, f32)


@irdl_op_definition
class LrnOp(PositionalSyntax):
    """ONNX LRN across channels (model axis 1): y = x / (bias + alpha / size * sum of x^2 over
    channels [c - (size-1)//2, c + size//2]) ** beta. Each pixel needs only its own channels, so
    a band of rows maps to the same band: channel-wise for the tiler (never moved through a
    transpose, which pointwise ops are)."""

    name = "tgr.lrn"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    size = prop_def(IntegerAttr[I64])
    alpha = prop_def(FloatAttr[Float32Type], default_value=_f32(1e-4))
    beta = prop_def(FloatAttr[Float32Type], default_value=_f32(0.75))
    bias = prop_def(FloatAttr[Float32Type], default_value=_f32(1.0))
    traits = traits_def(Pure(), TileCategory(TileKind.CHANNELWISE), RuntimeOp(OpType.LRN))

    def verify_(self) -> None:
        x = shape_of(self.input)
        expect_shape(self, shape_of(self.output), x)
        if len(x) < 2:
            raise VerifyException(f"tgr.lrn needs a channel axis (rank >= 2), got shape {x}")
        if not 1 <= self.size.value.data <= 0xFFFF:
            raise VerifyException(f"tgr.lrn size must be in 1..65535, got {self.size.value.data}")

    def runtime_fields(self) -> Fields:
        return {
            "kernel_h": self.size.value.data,
            "alpha": self.alpha.value.data,
            "beta": self.beta.value.data,
            "epsilon": self.bias.value.data,
        }


@irdl_op_definition
class LayerNormOp(PositionalSyntax):
    """(x - mean) / sqrt(var + epsilon) * scale + bias, mean and (biased) variance over the model
    axes [axis, rank); scale and bias have exactly the shape of those axes. The record's `axis` is
    the runtime axis, as for softmax; the kernel maps it back to the model axis it starts from."""

    name = "tgr.layer_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(-1, i64))
    epsilon = prop_def(FloatAttr[Float32Type], default_value=_f32(1e-5))
    traits = traits_def(Pure(), TileCategory(TileKind.STRUCTURAL), RuntimeOp(OpType.LAYER_NORM))

    def verify_(self) -> None:
        x = shape_of(self.input)
        expect_shape(self, shape_of(self.output), x)
        axis = normalize_axis(self.axis.value.data, len(x))
        for param in (self.scale, self.bias):
            if param is not None and shape_of(param) != x[axis:]:
                raise VerifyException(f"tgr.layer_norm: scale and bias must have shape {x[axis:]}, got {shape_of(param)}")

    def runtime_fields(self) -> Fields:
        return {"axis": runtime_axis(self.axis.value.data, len(shape_of(self.input))), "epsilon": self.epsilon.value.data}
