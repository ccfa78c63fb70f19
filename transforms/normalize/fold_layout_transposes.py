"""fold-layout-transposes: the layout transposes of channels-last (TensorFlow) models vanish.

tf2onnx writes a Keras model as NHWC input -> Transpose(0, 3, 1, 2) -> NCHW convs, and
wraps every layout-dependent layer (padding, pooling, reshape) in a Transpose to NHWC and
back. The runtime keeps every activation channels-last already, so these transposes only
copy data. Each rewrite removes at least one transpose (so the pass ends):

1. To a model input (`FoldIntoInput`): a transpose whose input is a model argument used
   only by it, possibly through a chain of layout-agnostic ops (layout_agnostic.py), e.g.
   QuantizeLinear/DequantizeLinear. The argument takes the transposed shape and records the
   layout the user gives it in (`tgr.input_perm`, model_layout.py): for NHWC -> NCHW that is
   the channels-last order, so the user's bytes are the stored bytes.
2. Down to where it is absorbed (`SinkTranspose`), through a single-use chain of
   layout-agnostic ops, whose axes are remapped:
   - another transpose: the two compose (a pair that cancels disappears);
   - a model output: the permutation is recorded (`tgr.output_perm`, as
     trim-output-transpose records it);
   - a reshape, when the transpose moves only axes of size 1 (the element order is the
     same): the reshape reads the untransposed value;
   - a reduce_mean with keepdims = 0 whose kept axes stay in order: it reduces the remapped
     axes of the untransposed value.

A transpose that really moves data (its chain ends at a conv, an add of two maps, ...)
stays. Runs before fold-qdq, so QDQ pairs are still ops the chains can cross, and a model
input left reading only a QuantizeLinear becomes an int8 input there.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.onnx.ops_tensor import ReshapeOp as OnnxReshapeOp
from tigris.dialects.shapes import ints, shape_of
from tigris.dialects.tgr.ops_shape import FlattenOp, ReshapeOp, SqueezeOp, TransposeOp, UnsqueezeOp
from tigris.transforms.normalize.layout_agnostic import Through, per_axis_quantized, through
from tigris.transforms.normalize.model_layout import (
    compose, fold_into_input, fold_into_output, inverse, permuted_shape, recorded_perms,
)  # fmt: skip
from tigris.transforms.rewriting import apply_patterns, carry_name

_RESHAPES = (ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, OnnxReshapeOp)

Step = tuple[Operation, Through]


def _perm(op: TransposeOp) -> list[int]:
    return ints(op, "perm") or []


def _retype(rewriter: PatternRewriter, value: SSAValue, shape: list[int]) -> None:
    assert isinstance(value.type, TensorType)
    rewriter.replace_value_with_new_type(value, TensorType(value.type.element_type, shape))


def _apply(rewriter: PatternRewriter, steps: list[Step]) -> None:
    """Each op of the chain now reads its untransposed operand: new properties, and its
    result is the old one untransposed (old = new.transpose(perm after the op))."""
    for op, (properties, after) in steps:
        op.properties.update(properties)
        rewriter.notify_op_modified(op)
        _retype(rewriter, op.results[0], permuted_shape(shape_of(op.results[0]), inverse(after)))


def _moves_only_unit_axes(shape: tuple[int, ...], perm: list[int]) -> bool:
    """y.transpose(perm) has y's elements in y's order: only axes of size 1 move."""
    moved = [a for a in perm if shape[a] != 1]
    return moved == sorted(moved)


def _folded(func: FuncOp, arg: BlockArgument) -> bool:
    """The argument took a transpose already: the one that made it the layout the model
    computes in. Another transpose meeting it is one of a pair, for SinkTranspose."""
    return recorded_perms(func)[0][arg.index] is not None


class FoldIntoInput(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if per_axis_quantized(op.input):
            return
        perm = _perm(op)
        back = inverse(perm)  # each op of the chain read the new value transposed by this
        steps: list[Step] = []
        value = op.input
        while not isinstance(value, BlockArgument):  # up the single-use layout-agnostic chain
            owner = value.owner
            step = through(owner, back) if isinstance(owner, Operation) else None
            if step is None or step[1] != back or not value.has_one_use():
                return
            steps.append((owner, step))
            value = owner.operands[0]
        func = value.block.parent_op()
        if not isinstance(func, FuncOp) or not value.has_one_use() or _folded(func, value):
            return
        if any(isinstance(use.operation, ReturnOp) for use in op.output.uses):
            return  # a returned input would need two layouts: SinkTranspose records the output's
        new_arg = fold_into_input(rewriter, func, value, perm)
        _apply(rewriter, steps[::-1])
        rewriter.replace(op, [], [steps[0][0].results[0] if steps else new_arg])


class SinkTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if per_axis_quantized(op.input):
            return
        perm, value, steps = _perm(op), op.output, []
        absorber: Operation | None = None
        while True:  # down the single-use layout-agnostic chain; `value` is y.transpose(perm)
            uses = list(value.uses)
            if len(uses) != 1:
                return
            user, index = uses[0].operation, uses[0].index
            untransposed = tuple(permuted_shape(shape_of(value), inverse(perm)))
            if isinstance(user, ReturnOp | TransposeOp) or (
                isinstance(user, _RESHAPES) and index == 0 and _moves_only_unit_axes(untransposed, perm)
            ):
                absorber = user
                break
            step = through(user, perm) if index == 0 else None
            if step is None:
                return
            steps.append((user, step))
            perm, value = step[1], user.results[0]
            if perm == sorted(perm):
                break  # a reduction dropped every moved axis
        rewriter.replace(op, [], [op.input])
        _apply(rewriter, steps)
        if isinstance(absorber, TransposeOp):
            total = compose(perm, _perm(absorber))
            if total == sorted(total):
                rewriter.replace(absorber, [], [absorber.input])
            else:
                absorber.properties["perm"] = DenseArrayBase.from_list(i64, total)
                rewriter.notify_op_modified(absorber)
        elif isinstance(absorber, ReturnOp):
            func = absorber.parent_op()
            assert isinstance(func, FuncOp)
            fold_into_output(func, index, perm)
            rewriter.notify_op_modified(func)
        elif absorber is not None:  # a reshape: the same elements in the same order
            reshape = ReshapeOp.build(operands=[absorber.operands[0]], result_types=[absorber.results[0].type])
            rewriter.replace(absorber, carry_name(absorber, reshape))


@dataclass(frozen=True)
class FoldLayoutTransposesPass(ModulePass):
    name = "fold-layout-transposes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, FoldIntoInput())  # first: the inputs take the layout the convs compute in
        apply_patterns(op, SinkTranspose())
