"""Progress lines (tools/progress.py): on stderr, only for a terminal, never with --json."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from tigris.tools.cli import main
from tigris.tools.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_lines_only_on_a_terminal() -> None:
    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        progress = Progress("tool", 2, stream=stream)
        progress.phase("import")
        progress.phase("plan")
        progress.done()
    lines = tty.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines[:2]] == ["tool: [1/2] import", "tool: [2/2] plan"]
    assert lines[2].startswith("tool: done in ") and len(lines) == 3
    assert pipe.getvalue() == ""
    off = Terminal()
    Progress("tool", stream=off, enabled=False).phase("import")
    assert off.getvalue() == ""


@pytest.fixture
def model(tmp_path: Path) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 8, 8])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [x], [y])
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_analyze_shows_phases_on_a_terminal(model: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(model), "-m", "64K"]) == 0
    plain = capsys.readouterr()
    assert plain.err == ""  # not a terminal: nothing
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["analyze", str(model), "-m", "64K"]) == 0
    assert capsys.readouterr().out == plain.out
    phases = [line.split("] ")[1].split(" (")[0] for line in terminal.getvalue().splitlines() if "] " in line]
    assert phases == ["import", "normalize", "plan"]
    assert terminal.getvalue().splitlines()[-1].startswith("tigris analyze: done in ")


def test_json_stays_the_whole_output_on_a_terminal(model: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["analyze", str(model), "-m", "64K", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "fits"
    assert terminal.getvalue() == ""
