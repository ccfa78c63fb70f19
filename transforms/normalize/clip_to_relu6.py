"""clip-to-relu6: Clip(0, 6) is Relu6 and Clip(0, unbounded) is Relu; other clips stay."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.tgr.ops_elementwise import ClipOp, Relu6Op, ReluOp
from tigris.transforms.rewriting import apply_patterns, carry_name


class ClipToRelu(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClipOp, rewriter: PatternRewriter) -> None:
        low = op.min.value.data if op.min is not None else -math.inf
        high = op.max.value.data if op.max is not None else math.inf
        if low != 0.0:
            return
        if high == 6.0:
            target: type[ReluOp] | type[Relu6Op] = Relu6Op
        elif high == math.inf:
            target = ReluOp
        else:
            return
        rewriter.replace(op, carry_name(op, target.build(operands=[op.input], result_types=[op.output.type])))


@dataclass(frozen=True)
class ClipToRelu6Pass(ModulePass):
    name = "clip-to-relu6"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, ClipToRelu())
