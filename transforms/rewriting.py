"""Small helpers every rewrite pass shares: running patterns and naming nodes in errors."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.exceptions import PassFailedException


def apply_patterns(module: ModuleOp, *patterns: RewritePattern) -> None:
    """Apply to a fixed point; the greedy driver also erases ops left dead."""
    PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns)), apply_recursively=True).rewrite_module(module)


def node_name(op: Operation) -> str:
    """The ONNX node name an op came from (`tgr.name`), or its op name."""
    name = op.attributes.get("tgr.name")
    return name.data if isinstance(name, StringAttr) else op.name


def node_label(op: Operation) -> str:
    """`'conv1' (onnx.Conv)`: how errors name the ONNX node an op came from."""
    shown = node_name(op)
    op_type = op.properties.get("op_type")
    kind = op_type.data if isinstance(op_type, StringAttr) else op.name
    return f"'{shown}' ({kind})"


def fail(op: Operation, message: str) -> PassFailedException:
    """A user-facing pass error naming the node; `raise fail(op, "...")`."""
    return PassFailedException(f"node {node_label(op)}: {message}")


def carry_name(source: Operation, target: Operation) -> Operation:
    """Keep the ONNX node name (and location) on the op that replaces it."""
    if "tgr.name" in source.attributes:
        target.attributes["tgr.name"] = source.attributes["tgr.name"]
    target.location = source.location
    return target
