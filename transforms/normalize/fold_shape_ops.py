"""fold-shape-ops: Reshape with a computed target shape -> `tgr.reshape`.

Shape inference already gave every Reshape a static result type, so the target is
known; the Shape -> Gather -> Unsqueeze -> Concat chain (PyTorch's
`x.view(x.size(0), -1)`) that computed it is left dead and erased."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.onnx.ops_tensor import ReshapeOp as OnnxReshape
from tigris.dialects.tgr.ops_shape import ReshapeOp
from tigris.transforms.rewriting import apply_patterns, carry_name


class StaticReshape(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OnnxReshape, rewriter: PatternRewriter) -> None:
        new = ReshapeOp.build(operands=[op.data], result_types=[op.reshaped.type])
        rewriter.replace(op, carry_name(op, new))  # the greedy driver erases the dead chain


@dataclass(frozen=True)
class FoldShapeOpsPass(ModulePass):
    name = "fold-shape-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, StaticReshape())
