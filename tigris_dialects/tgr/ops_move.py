"""`tgr` ops that select or repeat elements of an activation: slice, gather, tile.

They move stored values and compute nothing, so they run on elements of any size, and an int8
tensor keeps its parameters through them (requantized only when the result's differ, like
tgr.transpose). A band of output rows is in general not a band of input rows (a slice with a
step or a gather along H reorders rows, a tile along H repeats them), so they are structural and
the planner gives them the whole tensor; but a slice or a constant-index gather along the channel
axis only (ShuffleNet's split and channel shuffle) keeps every pixel where it is and is
channel-wise (`ChannelPickTileCategory`): its kernels run on row bands and 2-D windows.

Per-axis properties are in model (NCHW) order, resolved at conversion (ONNX's clamping of Slice
bounds, negative gather indices); the records carry slice and tile parameters in the runtime's
channels-last axis order, like tgr.pad. A gather changes the rank, so its `axis` stays in model
order and its kernel walks the tensors in model order.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, IntegerType, TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import expect_shape, ints, normalize_axis, shape_of
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.record_fields import Fields, to_runtime
from tigris.dialects.tgr.runtime_enums import OpType
from tigris.dialects.tgr.traits import ChannelPickTileCategory, RuntimeOp, TileCategory, TileKind

_STRUCTURAL = (Pure(), TileCategory(TileKind.STRUCTURAL))
_CHANNEL_PICK = (Pure(), ChannelPickTileCategory())


@irdl_op_definition
class SliceOp(PositionalSyntax):
    """Output index i of axis a reads input index starts[a] + i * steps[a] (steps may be negative).

    One start and one step per input axis; the result's shape gives the counts. Every index read
    lies inside the input (the conversion clamped ONNX's bounds)."""

    name = "tgr.slice"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    starts = prop_def(DenseArrayBase)
    steps = prop_def(DenseArrayBase)
    traits = traits_def(*_CHANNEL_PICK, RuntimeOp(OpType.SLICE))

    def verify_(self) -> None:
        x, y = shape_of(self.input), shape_of(self.output)
        starts, steps = ints(self, "starts") or [], ints(self, "steps") or []
        if not (len(starts) == len(steps) == len(x) == len(y)) or not x:
            raise VerifyException(f"tgr.slice needs one start and one step per axis of a rank >= 1 input {x}")
        for axis, (d, n, start, step) in enumerate(zip(x, y, starts, steps)):
            if step == 0:
                raise VerifyException(f"tgr.slice: step 0 on axis {axis}")
            if n > 0 and not (0 <= start < d and 0 <= start + (n - 1) * step < d):
                raise VerifyException(
                    f"tgr.slice: {n} elements from {start} by {step} leave axis {axis} of size {d}"
                )

    def runtime_fields(self) -> Fields:
        rank = len(shape_of(self.input))
        starts, steps = ints(self, "starts") or [], ints(self, "steps") or []
        return {"params": (*to_runtime(starts, rank), *to_runtime(steps, rank))}


@irdl_op_definition
class GatherOp(PositionalSyntax):
    """numpy's take(input, indices, axis): the result is input[:axis] + indices' shape + input[axis+1:].

    The indices are a constant (`indices`, flattened, each in [0, dim)) or, for an embedding
    lookup, an int32/int64 tensor computed at run time (operand `indices_in`; negative values count
    from the end, out-of-range values fail the run)."""

    name = "tgr.gather"
    input = operand_def(TensorType)
    indices_in = opt_operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    indices = opt_prop_def(DenseArrayBase)
    traits = traits_def(*_CHANNEL_PICK, RuntimeOp(OpType.GATHER))

    def verify_(self) -> None:
        x, y = shape_of(self.input), shape_of(self.output)
        if not x or not y:
            raise VerifyException(f"tgr.gather needs rank >= 1 input and result, got {x} -> {y}")
        axis = normalize_axis(self.axis.value.data, len(x))
        if (self.indices_in is None) == (self.indices is None):
            raise VerifyException("tgr.gather needs constant indices or an indices operand, not both")
        if self.indices_in is not None:
            element = self.indices_in.type.element_type  # type: ignore[union-attr]
            if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
                raise VerifyException(f"tgr.gather: indices must be int32 or int64, got {element}")
            index_shape = shape_of(self.indices_in)
        else:
            values = ints(self, "indices") or []
            index_shape = y[axis : axis + len(y) - len(x) + 1]
            if len(y) < len(x) - 1 or math.prod(index_shape) != len(values):
                raise VerifyException(
                    f"tgr.gather: {len(values)} indices do not fill result axes {index_shape}"
                )
            if any(not 0 <= v < x[axis] for v in values):
                raise VerifyException(f"tgr.gather: an index leaves axis {axis} of size {x[axis]}")
        expect_shape(self, y, [*x[:axis], *index_shape, *x[axis + 1 :]])

    def runtime_fields(self) -> Fields:
        fields: Fields = {"axis": normalize_axis(self.axis.value.data, len(shape_of(self.input)))}
        return fields | ({"params": tuple(ints(self, "indices") or [])} if self.indices is not None else {})


@irdl_op_definition
class TileOp(PositionalSyntax):
    """Axis a of the result is `repeats[a]` copies of axis a of the input (ONNX Tile; Expand's
    broadcast is a tile of size-1 axes)."""

    name = "tgr.tile"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    repeats = prop_def(DenseArrayBase)
    traits = traits_def(*_STRUCTURAL, RuntimeOp(OpType.TILE))

    def verify_(self) -> None:
        x = shape_of(self.input)
        repeats = ints(self, "repeats") or []
        if len(repeats) != len(x) or not x or min(repeats) < 0:
            raise VerifyException(f"tgr.tile needs one repeat count >= 0 per axis of a rank >= 1 input {x}")
        expect_shape(self, shape_of(self.output), [d * r for d, r in zip(x, repeats)])

    def runtime_fields(self) -> Fields:
        return {"params": tuple(to_runtime(ints(self, "repeats") or [], len(shape_of(self.input))))}
