"""`apply_patterns` tries on an op only the patterns that can match its class (issue G5):
the same rewrites, in the same order, as xDSL's greedy applier trying every pattern.

The expectations are written out by hand from the patterns below, not taken from a run."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.dialects import test as xdsl_test
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.transforms.rewriting import apply_patterns, matched_type


class SeeAddi(RewritePattern):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        self.seen.append(f"addi:{op.name}")


class SeeArith(RewritePattern):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp | arith.MuliOp, rewriter: PatternRewriter) -> None:
        self.seen.append(f"sub|mul:{op.name}")


class SeeAny(RewritePattern):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.seen.append(f"any:{op.name}")


class SubiToAddi(RewritePattern):
    """Rewrites, so the patterns after it must not see the subi."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, arith.AddiOp(op.lhs, op.rhs))


def _module() -> ModuleOp:
    """c2, c3, subi, muli, addi, and a `test.op` using the sum: an op without the Pure trait,
    so the greedy driver's dead-code elimination keeps the chain alive."""
    a = arith.ConstantOp(IntegerAttr(2, i32))
    b = arith.ConstantOp(IntegerAttr(3, i32))
    sub = arith.SubiOp(a, b)
    mul = arith.MuliOp(sub, b)
    add = arith.AddiOp(mul, a)
    return ModuleOp([a, b, sub, mul, add, xdsl_test.TestOp((add.result,))])


def test_matched_type_reads_the_decorated_annotation() -> None:
    assert matched_type(SeeAddi([])) is arith.AddiOp
    assert matched_type(SeeArith([])) == arith.SubiOp | arith.MuliOp
    assert matched_type(SeeAny([])) is None  # undecorated: may match anything


def test_typed_patterns_see_only_their_ops_and_untyped_ones_see_all() -> None:
    seen: list[str] = []
    apply_patterns(_module(), SeeAddi(seen), SeeArith(seen), SeeAny(seen))
    assert sorted(seen) == sorted([
        "any:arith.constant", "any:arith.constant",
        "sub|mul:arith.subi", "any:arith.subi",
        "sub|mul:arith.muli", "any:arith.muli",
        "addi:arith.addi", "any:arith.addi",
        "any:test.op",
    ])  # fmt: skip
    for name, typed in (("arith.subi", "sub|mul"), ("arith.muli", "sub|mul"), ("arith.addi", "addi")):
        assert seen.index(f"{typed}:{name}") < seen.index(f"any:{name}")  # the patterns' order


def test_the_first_rewrite_wins_and_the_new_op_is_tried_again() -> None:
    seen: list[str] = []
    module = _module()
    apply_patterns(module, SeeAddi(seen), SubiToAddi(), SeeArith(seen), SeeAny(seen))
    names = [op.name for op in module.ops]
    assert names == ["arith.constant", "arith.constant", "arith.addi", "arith.muli", "arith.addi", "test.op"]
    # the subi was replaced by SubiToAddi: no pattern after it saw it
    assert "sub|mul:arith.subi" not in seen and "any:arith.subi" not in seen
    # the muli: SeeAddi skips it; SeeArith, then SeeAny see it
    assert "addi:arith.muli" not in seen
    assert seen.index("sub|mul:arith.muli") < seen.index("any:arith.muli")
    # both addi (the original and the one replacing the subi) are seen by SeeAddi and SeeAny
    assert seen.count("addi:arith.addi") >= 2 and seen.count("any:arith.addi") >= 2
