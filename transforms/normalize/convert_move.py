"""convert-onnx-to-tgr's data-movement patterns: Slice, Split, Gather, Tile and Expand on activations.

`fold-constants` has already folded these ops when every operand is a constant; what is left moves
an activation. The per-axis parameters (Slice bounds, Split sizes, Tile repeats, Expand's shape)
must be constants by then; a Gather's indices may be computed at run time (an embedding lookup).

- Slice -> tgr.slice with one start and step per axis, ONNX's clamping resolved.
- Split (every opset form: `split` attribute or input, `num_outputs`, equal parts) -> one
  tgr.slice per output; there is no runtime Split.
- Gather -> tgr.gather (constant indices in the record, or an int32/int64 indices operand).
- Tile -> tgr.tile; Expand -> tgr.reshape (when it adds leading axes) + tgr.tile of the size-1 axes.
- DepthToSpace (DCR, CRD) and SpaceToDepth -> tgr.reshape + tgr.transpose + tgr.reshape.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array, constant_ints
from tigris.dialects.onnx import ops_tensor as ot
from tigris.dialects.onnx.ops_quant import GenericOp
from tigris.dialects.shapes import ints, normalize_axis, shape_of, slice_indices
from tigris.dialects.tgr import ops_move as tm
from tigris.dialects.tgr import ops_shape as ts
from tigris.transforms.rewriting import carry_name, fail


def _i64s(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def _slice(
    source: Operation, x: SSAValue, result: Attribute, starts: list[int], steps: list[int]
) -> Operation:
    props = {"starts": _i64s(starts), "steps": _i64s(steps)}
    return carry_name(source, tm.SliceOp.build(operands=[x], result_types=[result], properties=props))


def _constant_input(op: Operation, value: SSAValue | None, attr: str, what: str) -> list[int] | None:
    """A Slice bound from its input (opset >= 10) or attribute; the node's error when not constant."""
    if value is None:
        return ints(op, attr) if attr else None
    found = constant_ints(value)
    if found is None:
        raise fail(op, f"Slice {what} must be constant (computed at run time here)")
    return found


class ConvertSlice(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.SliceOp, rewriter: PatternRewriter) -> None:
        x = shape_of(op.data)
        starts = _constant_input(op, op.starts_in, "starts", "starts")
        ends = _constant_input(op, op.ends_in, "ends", "ends")
        axes = _constant_input(op, op.axes_in, "axes", "axes")
        steps = _constant_input(op, op.steps_in, "", "steps")
        if starts is None or ends is None or len(starts) != len(ends):
            raise fail(op, "Slice needs as many starts as ends")
        axes = axes if axes is not None else list(range(len(starts)))
        steps = steps if steps is not None else [1] * len(starts)
        if len(axes) != len(starts) or len(steps) != len(starts):
            raise fail(op, "Slice needs one axis and one step per start")
        first, step = [0] * len(x), [1] * len(x)
        for start, end, axis, by in zip(starts, ends, axes, steps):
            if by == 0:
                raise fail(op, "Slice step must not be 0")
            axis = normalize_axis(axis, len(x))
            picked = slice_indices(x[axis], start, end, by)
            first[axis], step[axis] = (picked[0] if picked else 0), by
        rewriter.replace(op, _slice(op, op.data, op.output.type, first, step))


class ConvertSplit(RewritePattern):
    """ONNX Split: one tgr.slice per output along `axis` (the outputs' shapes say where)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.SplitOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.input))
        axis = normalize_axis(op.axis.value.data, rank)
        sizes = [shape_of(r)[axis] for r in op.outputs]
        given = _split_sizes(op)
        if given is not None and given != sizes:
            raise fail(op, f"Split sizes {given} disagree with the outputs' {sizes}")
        slices, offset = [], 0
        for result, size in zip(op.outputs, sizes):
            starts = [0] * rank
            starts[axis] = offset if size else 0
            slices.append(_slice(op, op.input, result.type, starts, [1] * rank))
            offset += size
        rewriter.replace(op, slices, [s.results[0] for s in slices])


def _split_sizes(op: ot.SplitOp) -> list[int] | None:
    """The `split` sizes, from the attribute (opset < 13) or the second input; None when absent."""
    if op.split is not None:
        return [int(v) for v in op.split.get_values()]
    if op.split_in is not None:
        sizes = constant_ints(op.split_in)
        if sizes is None:
            raise fail(op, "Split sizes must be constant (computed at run time here)")
        return sizes
    return None


class ConvertGather(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.GatherOp, rewriter: PatternRewriter) -> None:
        x, y = shape_of(op.data), shape_of(op.output)
        if not y:
            raise fail(op, "Gather of a single element (a rank-0 result) is not supported")
        axis = normalize_axis(op.axis.value.data, len(x))
        props: dict[str, Attribute] = {"axis": IntegerAttr(axis, i64)}
        indices = constant_array(op.indices)
        operands: list[SSAValue | list[SSAValue]] = [op.data]
        if indices is not None:
            flat = [int(v) for v in np.asarray(indices).reshape(-1)]
            if any(not -x[axis] <= v < x[axis] for v in flat):
                raise fail(op, f"Gather index out of range for axis {axis} of size {x[axis]}")
            props["indices"] = _i64s([v % x[axis] for v in flat])
            operands.append([])
        else:
            element = op.indices.type.element_type  # type: ignore[union-attr]
            if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
                raise fail(op, f"Gather indices computed at run time must be int32 or int64, got {element}")
            operands.append([op.indices])
        new = tm.GatherOp.build(operands=operands, result_types=[op.output.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


def _reshape(source: Operation, x: SSAValue, result: Attribute) -> Operation:
    return carry_name(source, ts.ReshapeOp.build(operands=[x], result_types=[result]))


def _tile(source: Operation, x: SSAValue, result: Attribute, repeats: list[int]) -> Operation:
    props = {"repeats": _i64s(repeats)}
    return carry_name(source, tm.TileOp.build(operands=[x], result_types=[result], properties=props))


class ConvertTile(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.TileOp, rewriter: PatternRewriter) -> None:
        repeats = constant_ints(op.repeats)
        if repeats is None:
            raise fail(op, "Tile repeats must be constant (computed at run time here)")
        if min(repeats, default=0) < 0:
            raise fail(op, f"Tile repeats {repeats} must not be negative")
        rewriter.replace(op, _tile(op, op.input, op.output.type, repeats))


class ConvertExpand(RewritePattern):
    """The result's static shape says what Expand does (its `shape` input may even be a model
    input): leading axes added by a reshape, then every size-1 axis that grows tiled."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.ExpandOp, rewriter: PatternRewriter) -> None:
        x, y = shape_of(op.input), shape_of(op.output)
        shape = constant_ints(op.shape)
        if shape is not None and tuple(np.broadcast_shapes(x, tuple(shape))) != y:
            raise fail(op, f"Expand of {x} to {shape} does not give the result's shape {y}")
        lead = len(y) - len(x)
        padded = (1,) * lead + x
        if lead < 0 or any(d not in (1, t) for d, t in zip(padded, y)):
            raise fail(op, f"Expand cannot broadcast {x} to {y}")
        if padded == y and not lead:  # a copy: the result is the input
            rewriter.replace(op, [], [op.input])
            return
        element = op.input.type.element_type  # type: ignore[union-attr]
        new_ops: list[Operation] = []
        value = op.input
        if lead:
            reshape = _reshape(op, value, TensorType(element, padded))
            new_ops.append(reshape)
            value = reshape.results[0]
        if padded != y:
            new_ops.append(_tile(op, value, op.output.type, [t // d if d else 1 for d, t in zip(padded, y)]))
        rewriter.replace(op, new_ops, [new_ops[-1].results[0]])


def _depth_space_plan(op: GenericOp) -> tuple[list[int], list[int]]:
    """DepthToSpace (DCR or CRD) / SpaceToDepth as ONNX defines them: the rank-6 view of the
    input and the permutation of it that, reshaped to the result, is the result."""
    n, c, h, w = shape_of(op.inputs[0])
    attrs = op.node_attributes.data
    block = attrs.get("blocksize")
    b = block.value.data if isinstance(block, IntegerAttr) else 0
    if b < 1:
        raise fail(op, f"{op.op_type.data} needs a blocksize >= 1")
    if op.op_type.data == "SpaceToDepth":
        if h % b or w % b:
            raise fail(op, f"SpaceToDepth: H {h} and W {w} must be multiples of the blocksize {b}")
        return [n, c, h // b, b, w // b, b], [0, 3, 5, 1, 2, 4]
    mode = attrs.get("mode")
    mode_name = mode.data if isinstance(mode, StringAttr) else "DCR"
    if c % (b * b) or mode_name not in ("DCR", "CRD"):
        raise fail(op, f"DepthToSpace: C {c} must be a multiple of blocksize² {b * b}, mode DCR or CRD")
    if mode_name == "DCR":
        return [n, b, b, c // (b * b), h, w], [0, 3, 4, 1, 5, 2]
    return [n, c // (b * b), b, b, h, w], [0, 1, 4, 2, 5, 3]


class ConvertDepthSpace(RewritePattern):
    """DepthToSpace / SpaceToDepth (imported as onnx.generic) -> reshape, transpose, reshape:
    the ops PyTorch's PixelShuffle is exported as, which the runtime has."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        kinds = ("DepthToSpace", "SpaceToDepth")
        if not isinstance(op, GenericOp) or op.op_type.data not in kinds or op.domain.data:
            return
        if len(shape_of(op.inputs[0])) != 4 or len(op.outputs) != 1:
            raise fail(op, f"{op.op_type.data} needs one rank-4 [N, C, H, W] input and one result")
        view, perm = _depth_space_plan(op)
        element = op.inputs[0].type.element_type  # type: ignore[union-attr]
        split = _reshape(op, op.inputs[0], TensorType(element, view))
        moved = carry_name(op, ts.TransposeOp.build(
            operands=[split.results[0]], result_types=[TensorType(element, [view[p] for p in perm])],
            properties={"perm": _i64s(perm)}))  # fmt: skip
        joined = _reshape(op, moved.results[0], op.outputs[0].type)
        rewriter.replace(op, [split, moved, joined], [joined.results[0]])


MOVE_PATTERNS = (ConvertSlice, ConvertSplit, ConvertGather, ConvertTile, ConvertExpand, ConvertDepthSpace)
"""The patterns of this module, in the order convert-onnx-to-tgr applies them."""
