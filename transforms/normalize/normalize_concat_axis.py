"""normalize-concat-axis: a rank-4 Concat's axis in the runtime's NHWC order.

Tensors keep their NCHW types in the IR; the op records `layout = "nhwc"` so its
verifier (and the interpreter) still know which NCHW axis is meant. Other ranks have
no layout change and keep their (normalized, non-negative) axis."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.shapes import normalize_axis, shape_of
from tigris.dialects.tgr.ops_shape import ConcatOp
from tigris.transforms.rewriting import apply_patterns

NCHW_TO_NHWC = (0, 3, 1, 2)  # NCHW axis a is NHWC axis NCHW_TO_NHWC[a]


class ConcatAxisToNhwc(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.output))
        axis = normalize_axis(op.axis.value.data, rank)
        if op.layout.data == "nhwc" or (rank != 4 and axis == op.axis.value.data):
            return
        if rank == 4:
            op.axis = IntegerAttr(NCHW_TO_NHWC[axis], i64)
            op.layout = StringAttr("nhwc")
        else:
            op.axis = IntegerAttr(axis, i64)
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class NormalizeConcatAxisPass(ModulePass):
    name = "normalize-concat-axis"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, ConcatAxisToNhwc())
