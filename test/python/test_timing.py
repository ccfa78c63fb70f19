"""`tigris-opt --timing` and its timer tree (tools/timing.py).

The lit test (test/filecheck/tools/timing.onnxtxt) pins the report's shape on the
command line; these check what it is built from: nesting and merging, the two
displays' arithmetic, and that instrumenting pass classes leaves them as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tigris.tools.tigris_opt import main
from tigris.tools.timing import Timing, loaded_pass_classes, render


@dataclass(frozen=True)
class InnerPass(ModulePass):
    name = "test-inner"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


@dataclass(frozen=True)
class OuterPass(ModulePass):
    """A composite pass: calls its sub-pass directly, as tigris-plan does."""

    name = "test-outer"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        InnerPass().apply(ctx, op)
        InnerPass().apply(ctx, op)


@dataclass(frozen=True)
class RenamedOuterPass(OuterPass):
    """Inherits `apply`: timed through its parent's wrapper, under its own name."""

    name = "test-renamed-outer"


@dataclass(frozen=True)
class SuperCallingPass(InnerPass):
    """Overrides `apply` and calls `super().apply`: one timer, not one nested in itself."""

    name = "test-super-calling"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        super().apply(ctx, op)


def test_nested_passes_become_sub_timers_and_classes_are_restored() -> None:
    originals = {cls: cls.__dict__.get("apply") for cls in (InnerPass, OuterPass, RenamedOuterPass, SuperCallingPass)}
    timing = Timing()
    with timing.instrument(loaded_pass_classes()):
        for pass_ in (OuterPass(), RenamedOuterPass(), SuperCallingPass()):
            pass_.apply(Context(), ModuleOp([]))
    root = timing.stop()
    assert [c.name for c in root.children] == ["test-outer", "test-renamed-outer", "test-super-calling"]
    outer = root.children[0]
    assert [(c.name, c.count) for c in outer.children] == [("test-inner", 2)]  # repeats merge
    assert [c.name for c in root.children[1].children] == ["test-inner"]
    assert root.children[2].children == []
    assert all(cls.__dict__.get("apply") is apply for cls, apply in originals.items())


def test_instrument_restores_on_error() -> None:
    timing = Timing()
    apply = OuterPass.__dict__["apply"]
    with pytest.raises(RuntimeError), timing.instrument([OuterPass]):
        raise RuntimeError("a pass failed")
    assert OuterPass.__dict__["apply"] is apply


def rows(report: str) -> list[tuple[float, str]]:
    """(seconds, name with its indentation) per row under the header."""
    lines = report.splitlines()
    body = lines[lines.index("  ----Wall Time----  ----Name----") + 1 :]
    return [(float(line.split()[0]), line.split("%)  ", 1)[1]) for line in body]


def test_tree_and_list_displays() -> None:
    timing = Timing()
    with timing.scope("Parser"):
        pass
    with timing.scope("pipeline"):
        with timing.scope("slow"):
            sum(range(200_000))
        with timing.scope("fast"):
            pass
    root = timing.stop()
    tree = rows(render(root, "tree"))
    assert [name for _, name in tree] == ["Parser", "pipeline", "  slow", "  fast", "Rest", "Total"]
    listed = rows(render(root, "list"))
    names = [name for _, name in listed]
    assert names[-2:] == ["Rest", "Total"] and "pipeline" not in names and names[0] == "slow"
    times = [s for s, _ in listed[:-2]]
    assert times == sorted(times, reverse=True)
    for display in (tree, listed):  # the top-level rows and Rest add up to Total
        top = [s for s, name in display[:-1] if not name.startswith(" ")]
        assert sum(top) == pytest.approx(display[-1][0], abs=5e-4 * len(top))
    with pytest.raises(ValueError, match="unknown timing display 'pie'"):
        render(root, "pie")


def test_timing_goes_to_stderr_and_leaves_the_output_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "dead.mlir"
    source.write_text(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %unused = tgr.relu %x : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  func.return %x : tensor<4xf32>\n}\n"
    )
    assert main([str(source), "-p", "canonicalize"]) == 0
    plain = capsys.readouterr()
    assert main([str(source), "-p", "canonicalize", "--timing"]) == 0
    timed = capsys.readouterr()
    assert timed.out == plain.out and plain.err == ""
    names = [name for _, name in rows(timed.err)]
    assert names[0] == "Pass loading (2x)" and "Parser" in names and "canonicalize" in names
    assert names[-3:] == ["Output", "Rest", "Total"]
