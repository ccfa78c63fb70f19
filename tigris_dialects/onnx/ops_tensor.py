"""`onnx` ops that reshape, move or produce tensors (including constants and casts)."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.onnx.base import MultiOptional, OnnxOp, float_attr, int_attr, array_attr, string_attr
from tigris.dialects.shapes import broadcast, ints, normalize_axis, shape_of
from tigris.dialects.tgr.attributes import DenseResourceAttr


@irdl_op_definition
class ConcatOp(OnnxOp):
    name = "onnx.Concat"
    inputs = var_operand_def(TensorType)
    concat_result = result_def(TensorType)
    axis = int_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.axis is None:
            raise VerifyException("onnx.Concat: axis is required")
        ranks = {len(shape_of(v)) for v in self.inputs}
        if len(ranks) != 1:
            raise VerifyException("onnx.Concat: all inputs must have the same rank")
        normalize_axis(self.axis.value.data, ranks.pop())


@irdl_op_definition
class ReshapeOp(OnnxOp):
    name = "onnx.Reshape"
    data = operand_def(TensorType)
    shape = operand_def(TensorType)
    reshaped = result_def(TensorType)
    allowzero = int_attr(0)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if len(shape_of(self.shape)) != 1:
            raise VerifyException("onnx.Reshape: shape must be a 1-D tensor")


@irdl_op_definition
class FlattenOp(OnnxOp):
    name = "onnx.Flatten"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    axis = int_attr(1)
    traits = traits_def(Pure())


@irdl_op_definition
class SqueezeOp(OnnxOp):
    """`axes` is an input from opset 13, an attribute before."""

    name = "onnx.Squeeze"
    data = operand_def(TensorType)
    axes_in = opt_operand_def(TensorType)
    squeezed = result_def(TensorType)
    axes = array_attr()
    traits = traits_def(Pure())


@irdl_op_definition
class UnsqueezeOp(OnnxOp):
    name = "onnx.Unsqueeze"
    data = operand_def(TensorType)
    axes_in = opt_operand_def(TensorType)
    expanded = result_def(TensorType)
    axes = array_attr()
    traits = traits_def(Pure())


@irdl_op_definition
class TransposeOp(OnnxOp):
    name = "onnx.Transpose"
    data = operand_def(TensorType)
    transposed = result_def(TensorType)
    perm = array_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        perm = ints(self, "perm")
        rank = len(shape_of(self.data))
        if perm is not None and sorted(perm) != list(range(rank)):
            raise VerifyException(f"onnx.Transpose: perm {perm} is not a permutation of {rank} axes")


@irdl_op_definition
class PadOp(MultiOptional):
    """`pads`/`value` are attributes before opset 11, inputs after."""

    name = "onnx.Pad"
    data = operand_def(TensorType)
    pads_in = opt_operand_def(TensorType)
    constant_value = opt_operand_def(TensorType)
    axes_in = opt_operand_def(TensorType)
    output = result_def(TensorType)
    mode = string_attr("constant")
    pads = array_attr()
    value = float_attr()
    traits = traits_def(Pure())


@irdl_op_definition
class ResizeOp(MultiOptional):
    name = "onnx.Resize"
    X = operand_def(TensorType)
    roi = opt_operand_def(TensorType)
    scales = opt_operand_def(TensorType)
    sizes = opt_operand_def(TensorType)
    Y = result_def(TensorType)
    antialias = int_attr(0)
    axes = array_attr()
    coordinate_transformation_mode = string_attr("half_pixel")
    cubic_coeff_a = float_attr(-0.75)
    exclude_outside = int_attr(0)
    extrapolation_value = float_attr(0.0)
    keep_aspect_ratio_policy = string_attr("stretch")
    mode = string_attr("nearest")
    nearest_mode = string_attr("round_prefer_floor")
    traits = traits_def(Pure())


@irdl_op_definition
class UpsampleOp(OnnxOp):
    """Deprecated Resize: scales as an attribute (opset 7-8) or input (opset 9)."""

    name = "onnx.Upsample"
    X = operand_def(TensorType)
    scales_in = opt_operand_def(TensorType)
    Y = result_def(TensorType)
    mode = string_attr("nearest")
    scales = array_attr()
    traits = traits_def(Pure())


@irdl_op_definition
class ConstantOp(OnnxOp):
    """Exactly one of the value attributes is set, as ONNX requires."""

    name = "onnx.Constant"
    output = result_def(TensorType)
    value = opt_prop_def(DenseIntOrFPElementsAttr | DenseResourceAttr)
    value_float = float_attr()
    value_floats = array_attr()
    value_int = int_attr()
    value_ints = array_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        kinds = ("value", "value_float", "value_floats", "value_int", "value_ints")
        present = [k for k in kinds if k in self.properties]
        if len(present) != 1:
            raise VerifyException(f"onnx.Constant needs exactly one of {', '.join(kinds)}, got {present}")


@irdl_op_definition
class ConstantOfShapeOp(OnnxOp):
    name = "onnx.ConstantOfShape"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    value = opt_prop_def(DenseIntOrFPElementsAttr)
    traits = traits_def(Pure())


@irdl_op_definition
class ShapeOp(OnnxOp):
    name = "onnx.Shape"
    data = operand_def(TensorType)
    shape = result_def(TensorType)
    start = int_attr(0)
    end = int_attr()
    traits = traits_def(Pure())


@irdl_op_definition
class SizeOp(OnnxOp):
    """The element count of `data` (a scalar int64): like Shape, a function of the type alone."""

    name = "onnx.Size"
    data = operand_def(TensorType)
    size = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class ExpandOp(OnnxOp):
    """`input` broadcast (both ways, as in numpy) against the 1-D `shape`."""

    name = "onnx.Expand"
    input = operand_def(TensorType)
    shape = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if len(shape_of(self.shape)) != 1:
            raise VerifyException("onnx.Expand: shape must be a 1-D tensor")


@irdl_op_definition
class TileOp(OnnxOp):
    name = "onnx.Tile"
    input = operand_def(TensorType)
    repeats = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if shape_of(self.repeats) != (len(shape_of(self.input)),):
            raise VerifyException("onnx.Tile: repeats must hold one count per input axis")


@irdl_op_definition
class RangeOp(OnnxOp):
    """start, start + delta, ... up to (not including) limit; all three are scalars."""

    name = "onnx.Range"
    start = operand_def(TensorType)
    limit = operand_def(TensorType)
    delta = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if any(len(shape_of(v)) != 0 for v in (self.start, self.limit, self.delta)):
            raise VerifyException("onnx.Range: start, limit and delta must be scalars")


@irdl_op_definition
class WhereOp(OnnxOp):
    """X where condition is true, else Y (all three broadcast)."""

    name = "onnx.Where"
    condition = operand_def(TensorType)
    X = operand_def(TensorType)
    Y = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        broadcast(broadcast(shape_of(self.condition), shape_of(self.X)), shape_of(self.Y))


@irdl_op_definition
class GatherOp(OnnxOp):
    name = "onnx.Gather"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    output = result_def(TensorType)
    axis = int_attr(0)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        normalize_axis(self.axis.value.data, len(shape_of(self.data)))


@irdl_op_definition
class SplitOp(MultiOptional):
    """Parts along `axis`: sizes from the `split` attribute (opset < 13) or input, `num_outputs`
    (opset 18) or equal; the import types each output, so the result shapes say where parts start."""

    name = "onnx.Split"
    input = operand_def(TensorType)
    split_in = opt_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    axis = int_attr(0)
    num_outputs = int_attr()
    split = array_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        x = shape_of(self.input)
        axis = normalize_axis(self.axis.value.data, len(x))
        parts = [shape_of(r) for r in self.outputs]
        if not parts or any(len(p) != len(x) for p in parts) or sum(p[axis] for p in parts) != x[axis]:
            raise VerifyException(f"onnx.Split: outputs {parts} do not split {x} along axis {axis}")


@irdl_op_definition
class SliceOp(MultiOptional):
    """starts/ends/axes/steps are inputs from opset 10, attributes before."""

    name = "onnx.Slice"
    data = operand_def(TensorType)
    starts_in = opt_operand_def(TensorType)
    ends_in = opt_operand_def(TensorType)
    axes_in = opt_operand_def(TensorType)
    steps_in = opt_operand_def(TensorType)
    output = result_def(TensorType)
    starts = array_attr()
    ends = array_attr()
    axes = array_attr()
    traits = traits_def(Pure())


@irdl_op_definition
class CastOp(OnnxOp):
    """`to` is an ONNX TensorProto data type number (1 = float, 3 = int8, ...)."""

    name = "onnx.Cast"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    to = int_attr()
    saturate = int_attr(1)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.to is None or not 1 <= self.to.value.data <= 26:
            raise VerifyException("onnx.Cast: `to` must be an ONNX data type number (1..26)")


@irdl_op_definition
class IdentityOp(OnnxOp):
    name = "onnx.Identity"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())


class _Reduce(OnnxOp):
    """`axes` is an attribute before opset 18, an input after."""

    data = operand_def(TensorType)
    axes_in = opt_operand_def(TensorType)
    reduced = result_def(TensorType)
    axes = array_attr()
    keepdims = int_attr(1)
    noop_with_empty_axes = int_attr(0)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        rank = len(shape_of(self.data))
        for axis in ints(self, "axes") or []:
            normalize_axis(axis, rank, "reduce axis")


@irdl_op_definition
class ReduceMeanOp(_Reduce):
    name = "onnx.ReduceMean"


@irdl_op_definition
class ReduceMaxOp(_Reduce):
    name = "onnx.ReduceMax"


@irdl_op_definition
class ReduceMinOp(_Reduce):
    name = "onnx.ReduceMin"


@irdl_op_definition
class ReduceSumOp(_Reduce):
    """`axes` is an input from opset 13 (earlier than the other reductions' 18)."""

    name = "onnx.ReduceSum"
