"""The planner's memo survives tigris-plan's graph rebuilds, and only those (graph._MEMOS).

Each planning pass reads `@main` into a new `PlanGraph`; tile-chains then asks for every chain
partition-temporal already planned. `build_plan_graph` hands a graph of an unchanged function
the previous graph's memo, so those searches run once. The oracle for "the same plan" is the
compile with sharing switched off: the `.tgrs` bytes must not change.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.tools.cli import compile_bytes
from tigris.transforms.plan import graph as plan_graph
from tigris.transforms.plan.graph import build_plan_graph, main_func
from tigris.transforms.plan.passes import TigrisPlanPass

CONVS = """
func.func @main(%x: tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32> {
  %w = tgr.weight {tgr.name = "w"} dense<0.5> : tensor<4x4x3x3xf32>
  %b = tgr.weight {tgr.name = "b"} dense<0.0> : tensor<4xf32>
  %p = tgr.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x4x32x32xf32>) -> tensor<1x4x34x34xf32>
  %c1 = tgr.conv %p, %w, %b : (tensor<1x4x34x34xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x32x32xf32>
  %c2 = tgr.conv %c1, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x32x32xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x32x32xf32>
  %c3 = tgr.conv %c2, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x32x32xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x32x32xf32>
  func.return %c3 : tensor<1x4x32x32xf32>
}
"""
"""Three 16 KiB convs after a pad: at 12 KiB no stage fits untiled, so they chain."""


class _NoSharing:
    """A stand-in for `_MEMOS` that remembers nothing: every graph plans from scratch."""

    def get(self, key: object) -> None:
        return None

    def __setitem__(self, key: object, value: object) -> None:
        pass


def test_the_plan_passes_share_one_memo() -> None:
    module = Parser(make_context(), CONVS).parse_module()
    first = build_plan_graph(module)
    TigrisPlanPass(12288).apply(Context(), module)  # writes tgr.step, tgr.lifetime, tgr.stage: not facts
    again = build_plan_graph(module)
    assert again.memo is first.memo and again is not first
    assert any(isinstance(k, tuple) and k[0] == "chain" for k in first.memo), "tigris-plan searched chains in it"


def test_a_changed_function_gets_a_new_memo() -> None:
    """A different pad (a property row maps read when asked) or shape is another graph."""
    module = Parser(make_context(), CONVS).parse_module()
    first = build_plan_graph(module)
    pad = next(op for op in main_func(module).body.block.ops if op.name == "tgr.pad")
    pad.properties["pads"] = DenseArrayBase.from_list(i64, [0, 0, 2, 0, 0, 0, 0, 2])
    second = build_plan_graph(module)
    assert second.memo is not first.memo
    pad.properties["pads"] = DenseArrayBase.from_list(i64, [0, 0, 1, 1, 0, 0, 1, 1])
    assert build_plan_graph(module).memo is not second.memo  # back, but the last memo was the changed one's


def test_the_memo_does_not_keep_the_function_alive() -> None:
    gc.collect()
    before = len(plan_graph._MEMOS)  # noqa: SLF001
    module = Parser(make_context(), CONVS).parse_module()
    build_plan_graph(module)
    assert len(plan_graph._MEMOS) == before + 1  # noqa: SLF001
    del module
    gc.collect()
    assert len(plan_graph._MEMOS) == before  # noqa: SLF001


@pytest.mark.parametrize(("key", "budget", "compress"), [
    ("mobilenet_v2_int8", 16 << 10, "none"),  # chains of 2 and 3+, residual adds in tiles
    ("keras_mobilenet_v1", 16 << 10, "none"),  # 2-D tiles, stride-2 halos, chains
    ("mobilenet_v2", 64 << 10, "lz4"),  # the LZ4 reserve search plans at up to five budgets first
])  # fmt: skip
def test_sharing_the_memo_changes_no_byte(
    key: str, budget: int, compress: str, model_zoo: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = compile_bytes(str(model_zoo[key]), budget, compress=compress)
    monkeypatch.setattr(plan_graph, "_MEMOS", _NoSharing())
    assert compile_bytes(str(model_zoo[key]), budget, compress=compress) == shared
