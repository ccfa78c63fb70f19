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
from tigris.dialects.tgr.ops_reduce import Reduction
from tigris.dialects.tgr.plan_attrs import STORED_ORDER
from tigris.dialects.tgr.record_fields import (
    Fields,
    RecordFieldError,
    channels_last_order,
    runtime_axis,
    to_runtime,
)
from tigris.dialects.tgr.runtime_enums import CoordMode, OpFlag, OpType, PadMode, ResizeMode
from tigris.dialects.tgr.traits import (
    ConcatTileCategory,
    PadRows,
    ResizeRows,
    RuntimeOp,
    TileCategory,
    TileKind,
    int_prop,
)


_Mode = PadMode | ResizeMode | CoordMode


def _member(enum: type[_Mode], mode: str, what: str) -> _Mode:
    """The runtime's value of a mode property (its member of the same name, upper-case)."""
    if mode.upper() not in enum.__members__:
        raise RecordFieldError(f"{what} '{mode}'")
    return enum[mode.upper()]


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
            axis = channels_last_order(rank)[normalize_axis(axis, rank)]  # NHWC axis -> NCHW axis
        axis = normalize_axis(axis, rank)
        for s in shapes:
            if len(s) != rank or any(s[i] != shapes[0][i] for i in range(rank) if i != axis):
                raise VerifyException(f"tgr.concat: input shapes {shapes} differ off axis {axis}")
        want = list(shapes[0])
        want[axis] = sum(s[axis] for s in shapes)
        expect_shape(self, shape_of(self.output), want)

    def runtime_fields(self) -> Fields:
        rank, axis = len(shape_of(self.output)), self.axis.value.data
        return {"axis": axis % rank if self.layout.data == "nhwc" else runtime_axis(axis, rank)}


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

    def runtime_fields(self) -> Fields:
        rank = len(shape_of(self.input))
        pads = ints(self, "pads") or [0] * (2 * rank)
        return {
            "params": (*to_runtime(pads[:rank], rank), *to_runtime(pads[rank:], rank)),
            "mode": _member(PadMode, self.mode.data, "pad mode"),
            "pad_value": self.value.value.data,
        }


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

    def runtime_fields(self) -> Fields:
        coord = self.coordinate_transformation_mode.data
        return {
            "params": tuple(to_runtime(ints(self, "scales") or [], len(shape_of(self.input)))),
            "mode": _member(ResizeMode, self.mode.data, "resize mode"),
            "coord_mode": _member(CoordMode, coord, "coordinate_transformation_mode"),
        }


class _Reshaping(PositionalSyntax):
    """Same elements, new shape; structural, since a band of rows is not a band after it.

    At run time the elements are copied in model order, or, marked `tgr.stored_order` by
    layout-nhwc, as the stored bytes are (the record's STORED_ORDER flag)."""

    input = operand_def(TensorType)
    output = result_def(TensorType)

    def verify_(self) -> None:
        if math.prod(shape_of(self.input)) != math.prod(shape_of(self.output)):
            raise VerifyException(f"{self.name}: element counts of input and result differ")

    def runtime_fields(self) -> Fields:
        return {"flags": OpFlag.STORED_ORDER if STORED_ORDER in self.attributes else OpFlag(0)}


_STRUCTURAL = (Pure(), TileCategory(TileKind.STRUCTURAL))


@irdl_op_definition
class FlattenOp(_Reshaping):
    name = "tgr.flatten"
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.FLATTEN))

    def runtime_fields(self) -> Fields:
        return super().runtime_fields() | {"axis": self.axis.value.data}


@irdl_op_definition
class ReshapeOp(_Reshaping):
    """Static target shape (resolved by `fold-shape-ops`)."""

    name = "tgr.reshape"
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.RESHAPE))

    def runtime_fields(self) -> Fields:
        return super().runtime_fields() | {"params": shape_of(self.output)}


class _AxesReshaping(_Reshaping):
    """squeeze, unsqueeze: the record carries the `axes` (model order) as params."""

    def runtime_fields(self) -> Fields:
        return super().runtime_fields() | {"params": tuple(ints(self, "axes") or ())}


@irdl_op_definition
class SqueezeOp(_AxesReshaping):
    name = "tgr.squeeze"
    axes = opt_prop_def(DenseArrayBase)
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.SQUEEZE))


@irdl_op_definition
class UnsqueezeOp(_AxesReshaping):
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

    def runtime_fields(self) -> Fields:
        """params[i]: the stored input axis that stored output axis i reads."""
        rank = len(shape_of(self.input))
        perm = ints(self, "perm") or list(reversed(range(rank)))
        stored_out = channels_last_order(len(shape_of(self.output)))
        return {"params": tuple(runtime_axis(perm[a], rank) for a in stored_out)}


@irdl_op_definition
class ReduceMeanOp(Reduction):
    name = "tgr.reduce_mean"
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.REDUCE_MEAN))
