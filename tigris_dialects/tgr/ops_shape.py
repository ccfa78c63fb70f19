"""`tgr` ops that move data rather than compute: concat, pad, resize, reshapes, reductions."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import expect_shape, ints, normalize_axis, shape_of
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.runtime_enums import OpType
from tigris.dialects.tgr.traits import (
    ConcatTileCategory,
    PadRows,
    ResizeRows,
    RuntimeOp,
    TileCategory,
    TileKind,
    int_prop,
)


@irdl_op_definition
class ConcatOp(PositionalSyntax):
    """Concatenation. `axis` refers to the IR's NCHW shapes until `normalize-concat-axis`
    marks it as NHWC with `layout = "nhwc"`."""

    name = "tgr.concat"
    inputs = var_operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    layout = prop_def(StringAttr, default_value=StringAttr("nchw"))
    traits = traits_def(Pure(), ConcatTileCategory(), RuntimeOp(OpType.CONCAT))

    def verify_(self) -> None:
        shapes = [shape_of(v) for v in self.inputs]
        if not shapes:
            raise VerifyException("tgr.concat needs at least one input")
        rank = len(shapes[0])
        axis = int_prop(self, "axis", 0)
        if self.layout.data == "nhwc" and rank == 4:
            axis = (0, 2, 3, 1)[normalize_axis(axis, rank)]  # NHWC axis -> NCHW axis
        axis = normalize_axis(axis, rank)
        for s in shapes:
            if len(s) != rank or any(s[i] != shapes[0][i] for i in range(rank) if i != axis):
                raise VerifyException(f"tgr.concat: input shapes {shapes} differ off axis {axis}")
        want = list(shapes[0])
        want[axis] = sum(s[axis] for s in shapes)
        expect_shape(self, shape_of(self.output), want)


@irdl_op_definition
class PadOp(PositionalSyntax):
    name = "tgr.pad"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    pads = prop_def(DenseArrayBase)
    mode = prop_def(StringAttr, default_value=StringAttr("constant"))
    value = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(0.0, f32))
    traits = traits_def(Pure(), TileCategory(TileKind.RESAMPLE), PadRows(), RuntimeOp(OpType.PAD))

    def verify_(self) -> None:
        x = shape_of(self.input)
        pads = ints(self, "pads") or []
        if len(pads) != 2 * len(x):
            raise VerifyException(f"tgr.pad needs {2 * len(x)} pads, got {len(pads)}")
        expect_shape(self, shape_of(self.output), [d + pads[i] + pads[i + len(x)] for i, d in enumerate(x)])


@irdl_op_definition
class ResizeOp(PositionalSyntax):
    """Upsampling by integer factors per axis (`scales`), nearest or linear."""

    name = "tgr.resize"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    scales = prop_def(DenseArrayBase)
    mode = prop_def(StringAttr, default_value=StringAttr("nearest"))
    coordinate_transformation_mode = prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    traits = traits_def(Pure(), TileCategory(TileKind.RESAMPLE), ResizeRows(), RuntimeOp(OpType.RESIZE))

    def verify_(self) -> None:
        x = shape_of(self.input)
        scales = ints(self, "scales") or []
        if len(scales) != len(x) or min(scales, default=1) < 1:
            raise VerifyException(f"tgr.resize needs {len(x)} integer scales >= 1")
        if self.mode.data not in ("nearest", "linear"):
            raise VerifyException(f"tgr.resize mode must be nearest or linear, got {self.mode.data}")
        expect_shape(self, shape_of(self.output), [d * s for d, s in zip(x, scales)])


class _Reshaping(PositionalSyntax):
    """Same elements, new shape; structural, since a band of rows is not a band after it."""

    input = operand_def(TensorType)
    output = result_def(TensorType)

    def verify_(self) -> None:
        if math.prod(shape_of(self.input)) != math.prod(shape_of(self.output)):
            raise VerifyException(f"{self.name}: element counts of input and result differ")


_STRUCTURAL = (Pure(), TileCategory(TileKind.STRUCTURAL))


@irdl_op_definition
class FlattenOp(_Reshaping):
    name = "tgr.flatten"
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.FLATTEN))


@irdl_op_definition
class ReshapeOp(_Reshaping):
    """Static target shape (resolved by `fold-shape-ops`)."""

    name = "tgr.reshape"
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.RESHAPE))


@irdl_op_definition
class SqueezeOp(_Reshaping):
    name = "tgr.squeeze"
    axes = opt_prop_def(DenseArrayBase)
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.SQUEEZE))


@irdl_op_definition
class UnsqueezeOp(_Reshaping):
    name = "tgr.unsqueeze"
    axes = prop_def(DenseArrayBase)
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.UNSQUEEZE))


@irdl_op_definition
class TransposeOp(PositionalSyntax):
    name = "tgr.transpose"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    perm = prop_def(DenseArrayBase)
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.TRANSPOSE))

    def verify_(self) -> None:
        x = shape_of(self.input)
        perm = ints(self, "perm") or []
        if sorted(perm) != list(range(len(x))):
            raise VerifyException(f"tgr.transpose: perm {perm} is not a permutation of {len(x)} axes")
        expect_shape(self, shape_of(self.output), [x[p] for p in perm])


@irdl_op_definition
class ReduceMeanOp(PositionalSyntax):
    name = "tgr.reduce_mean"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    axes = prop_def(DenseArrayBase)
    keepdims = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.REDUCE_MEAN))

    def verify_(self) -> None:
        x = shape_of(self.input)
        axes = {normalize_axis(a, len(x), "reduce axis") for a in ints(self, "axes") or []}
        keep = int_prop(self, "keepdims", 1) == 1
        want = [1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes]
        expect_shape(self, shape_of(self.output), want)
