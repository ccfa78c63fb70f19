"""fuse-activations: a Relu/Relu6 right after an op that can absorb it becomes that op's
`fused_activation`. Which ops can is their `FusesActivation` trait, not a list here.
Runs last, so every relabeling and rewiring has happened."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tigris.dialects.tgr.ops_elementwise import Relu6Op, ReluOp
from tigris.dialects.tgr.traits import FusesActivation
from tigris.transforms.rewriting import apply_patterns


class FuseActivation(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ReluOp | Relu6Op):
            return
        value = op.input
        producer = value.owner
        if not isinstance(producer, Operation) or not producer.has_trait(FusesActivation):
            return
        current = producer.properties.get("fused_activation")
        if (isinstance(current, StringAttr) and current.data != "none") or not value.has_one_use():
            return
        if op.output.type != value.type:  # int8: the activation requantizes; keep it separate
            return
        producer.properties["fused_activation"] = StringAttr("relu" if isinstance(op, ReluOp) else "relu6")
        rewriter.notify_op_modified(producer)
        rewriter.replace(op, [], [value])


@dataclass(frozen=True)
class FuseActivationsPass(ModulePass):
    name = "fuse-activations"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, FuseActivation())
