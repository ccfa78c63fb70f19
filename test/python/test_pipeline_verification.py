"""Where the module is verified: after every pass in tests and `tigris-opt`, once after import and
once before emission in `tigris compile`/`analyze` (transforms/pipelines.py `run_passes`).

A pass that breaks the IR must still be caught at the pass that broke it wherever passes run with
per-pass verification; the CLI's path, which skips it for speed, must still refuse to emit it.
The broken pass here gives `tgr.relu` a result shape its operand does not have, which the op's
own verifier rejects.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from tigris import transforms
from tigris.dialects import make_context
from tigris.dialects.tgr.ops_elementwise import ReluOp
from tigris.tools.tigris_opt import TigrisOptMain
from tigris.transforms.pipelines import run_passes

RELU = """
func.func @main(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tgr.relu %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %0 : tensor<1x4x4x4xf32>
}
"""


@dataclass(frozen=True)
class BreakReluPass(ModulePass):
    """A deliberately wrong pass: every relu result becomes 1x4x2x2 (its operand stays 1x4x4x4)."""

    name = "break-relu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for relu in [o for o in op.walk() if isinstance(o, ReluOp)]:
            old = relu.results[0].type
            assert isinstance(old, TensorType)
            PatternRewriter(relu).replace_value_with_new_type(relu.results[0], TensorType(old.element_type, [1, 4, 2, 2]))


@dataclass(frozen=True)
class CountingPass(ModulePass):
    """Does nothing; records that it ran (the pass after the broken one must never run)."""

    name = "count-runs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        RAN.append(self.name)


RAN: list[str] = []


@pytest.fixture
def broken_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run_passes` looks names up in `get_all_passes`: add the broken and the counting pass."""
    real = transforms.get_all_passes

    def with_broken(*, plugins: bool = True) -> dict:
        return {**real(plugins=plugins), "break-relu": lambda: BreakReluPass, "count-runs": lambda: CountingPass}

    monkeypatch.setattr(transforms, "get_all_passes", with_broken)
    RAN.clear()


def relu_module() -> ModuleOp:
    return Parser(make_context(), RELU).parse_module()


def test_run_passes_verifies_after_each_pass_by_default(broken_registry: None) -> None:
    """The test path: the broken pass is caught before the next pass runs."""
    with pytest.raises(VerifyException, match="tgr.relu"):
        run_passes(("break-relu", "count-runs"), Context(), relu_module())
    assert RAN == []


def test_run_passes_without_verify_each_leaves_it_to_the_caller(broken_registry: None) -> None:
    """The CLI's path: no per-pass verification, so the next pass runs, and the one verification
    before emission (`module.verify()`, as `compile_bytes` does) catches the broken IR."""
    module = relu_module()
    run_passes(("break-relu", "count-runs"), Context(), module, verify_each=False)
    assert RAN == ["count-runs"]
    with pytest.raises(VerifyException, match="tgr.relu"):
        module.verify()


def test_tigris_opt_verifies_after_each_pass(tmp_path) -> None:
    """`tigris-opt` keeps xDSL's per-pass verification: the broken pass fails the run."""

    class Opt(TigrisOptMain):
        def register_all_passes(self) -> None:
            super().register_all_passes()
            self.register_pass("break-relu", lambda: BreakReluPass)

    source = tmp_path / "relu.mlir"
    source.write_text(RELU)
    out = tmp_path / "out.mlir"
    with pytest.raises(DiagnosticException, match="tgr.relu"):
        Opt(args=[str(source), "-p", "break-relu", "-o", str(out)]).run()
