"""relabel-depthwise-conv and relabel-conv1d: pick the runtime kernel a conv needs.

A 2-D conv whose group equals its input channels (and is > 1) is depthwise; a conv
over [N, C, L] is a Conv1D. Depthwise runs first, so only rank-4 convs are depthwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.ops_window import Conv1dOp, ConvOp, DepthwiseConvOp
from tigris.transforms.rewriting import apply_patterns, carry_name


def _relabel(op: ConvOp, target: type[ConvOp] | type[DepthwiseConvOp] | type[Conv1dOp], keep_group: bool) -> ConvOp:
    props = {k: v for k, v in op.properties.items() if keep_group or k != "group"}
    operands = [op.input, op.weight, [op.bias] if op.bias is not None else []]
    return carry_name(op, target.build(operands=operands, result_types=[op.output.type], properties=props))


class RelabelDepthwise(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvOp, rewriter: PatternRewriter) -> None:
        channels = shape_of(op.input)[1]
        if len(shape_of(op.input)) == 4 and op.group.value.data == channels > 1:
            rewriter.replace(op, _relabel(op, DepthwiseConvOp, keep_group=False))


class RelabelConv1d(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvOp, rewriter: PatternRewriter) -> None:
        if len(shape_of(op.input)) == 3:
            rewriter.replace(op, _relabel(op, Conv1dOp, keep_group=True))


@dataclass(frozen=True)
class RelabelDepthwiseConvPass(ModulePass):
    name = "relabel-depthwise-conv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, RelabelDepthwise())


@dataclass(frozen=True)
class RelabelConv1dPass(ModulePass):
    name = "relabel-conv1d"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, RelabelConv1d())
