"""Small helpers every rewrite pass shares: running patterns and naming nodes in errors."""

from __future__ import annotations

from dataclasses import dataclass
from types import UnionType

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead
from xdsl.utils.exceptions import PassFailedException


def apply_patterns(module: ModuleOp, *patterns: RewritePattern) -> None:
    """Apply to a fixed point; the greedy driver also erases ops left dead."""
    PatternRewriteWalker(_TypeDispatchApplier(list(patterns)), apply_recursively=True).rewrite_module(module)


def matched_type(pattern: RewritePattern) -> type | UnionType | None:
    """The op type an `@op_type_rewrite_pattern` method matches (read from the closure of
    xDSL's wrapper, which skips any other op), or None: a pattern that may match any op (also
    what a future xDSL wrapper we cannot read gives: slower, never wrong)."""
    method = getattr(type(pattern).match_and_rewrite, "__code__", None)
    if method is None or "expected_type" not in method.co_freevars:
        return None
    closure = type(pattern).match_and_rewrite.__closure__ or ()
    return dict(zip(method.co_freevars, (c.cell_contents for c in closure))).get("expected_type")


@dataclass(eq=False, repr=False)
class _TypeDispatchApplier(GreedyRewritePatternApplier):
    """xDSL's greedy applier (without folding, which `apply_patterns` never asks for), trying
    on an op only the patterns that can match its class.

    The plain applier calls every pattern on every op, and each `@op_type_rewrite_pattern`
    pattern rejects an op of another type with an `isinstance` against an ABC: with ~20
    patterns over ~1500 ops that dispatch was over half of convert-onnx-to-tgr's time. The
    candidates keep the patterns' order (the first one that rewrites wins, as before) and
    are computed once per op class; a pattern of unknown type is always a candidate, so the
    rewrites are exactly the plain applier's."""

    def __post_init__(self) -> None:
        self._typed = [(p, matched_type(p)) for p in self.rewrite_patterns]
        self._by_class: dict[type, list[RewritePattern]] = {}

    def _candidates(self, cls: type) -> list[RewritePattern]:
        found = self._by_class.get(cls)
        if found is None:
            found = [p for p, t in self._typed if t is None or issubclass(cls, t)]
            self._by_class[cls] = found
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.dce_enabled and is_trivially_dead(op):
            rewriter.erase(op)
            return
        for pattern in self._candidates(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


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
