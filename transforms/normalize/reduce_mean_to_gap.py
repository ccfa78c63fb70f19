"""reduce-mean-to-gap: a mean over every spatial axis is global average pooling.

With keepdims = 0 the pooled [N, C, 1, 1] is reshaped to the reduced [N, C]. An average pool
whose unpadded window is the whole map (Keras' `AveragePooling2D(pool_size=map)`, ResNet-8's and
DS-CNN's heads) is the same mean: as global pooling it can run in reduction tiles, a few input
rows at a time, where a window the size of the map needs the whole input at once."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.shapes import ints, shape_of
from tigris.dialects.tgr.ops_shape import ReduceMeanOp, ReshapeOp
from tigris.dialects.tgr.ops_window import AvgPoolOp, GlobalAvgPoolOp
from tigris.transforms.rewriting import apply_patterns, carry_name


class ReduceMeanToGap(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceMeanOp, rewriter: PatternRewriter) -> None:
        x = shape_of(op.input)
        if len(x) < 3 or sorted(ints(op, "axes") or []) != list(range(2, len(x))):
            return
        assert isinstance(op.output.type, TensorType)
        # the mean's own element type: int8 keeps the output scale, so nothing requantizes twice
        pooled_type = TensorType(op.output.type.element_type, [x[0], x[1], *([1] * (len(x) - 2))])
        gap = carry_name(op, GlobalAvgPoolOp.build(operands=[op.input], result_types=[pooled_type]))
        new_ops: list[Operation] = [gap]
        if op.keepdims.value.data == 0:
            new_ops.append(carry_name(op, ReshapeOp.build(operands=[gap.results[0]], result_types=[op.output.type])))
        rewriter.replace(op, new_ops)


class WholeMapAvgPoolToGap(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AvgPoolOp, rewriter: PatternRewriter) -> None:
        x, y = shape_of(op.input), shape_of(op.output)
        spatial = x[2:]
        if len(x) < 3 or list(y[2:]) != [1] * len(spatial) or list(ints(op, "kernel_shape") or []) != list(spatial):
            return
        if any(ints(op, "pads") or []):  # padded: the mean would count (or skip) the padding
            return
        rewriter.replace(op, carry_name(op, GlobalAvgPoolOp.build(operands=[op.input], result_types=[op.output.type])))


@dataclass(frozen=True)
class ReduceMeanToGapPass(ModulePass):
    name = "reduce-mean-to-gap"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, ReduceMeanToGap(), WholeMapAvgPoolToGap())
