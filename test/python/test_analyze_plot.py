"""`tigris analyze --plot / --plot-tiles`: the figures' data (tools/report/memory_profile.py)
agrees with the report, the files are written with their labels, and a missing matplotlib
or a bad file name is one line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from tigris.tools.report import analyze_module
from tigris.tools.report.analysis import normalized_module
from tigris.tools.report.memory_profile import memory_profile
from tigris.tools.cli import main

K = 1024


@pytest.mark.parametrize(("name", "budget"), [("mobilenet_v2", 64 * K), ("unet", 32 * K), ("yolo", 16 * K),
                                              ("resnet", 512 * K)])
def test_profile_agrees_with_the_report(name: str, budget: int, model_zoo: dict[str, Path]) -> None:
    module = normalized_module(model_zoo[name])
    report = analyze_module(module, name, budget)
    profile = memory_profile(module, name, budget, report.align)
    assert len(profile.steps) == len(profile.planned) == len(profile.unscheduled) == report.op_count
    assert profile.scheduled_peak == report.scheduled_peak  # the curve peaks where the plan does
    assert profile.unscheduled_peak == report.unscheduled_peak
    assert [(s.index, s.strategy) for s in profile.stages] == [(s.index, s.strategy) for s in report.stages]
    assert len(profile.tiled) == report.tiled_stages + report.chains
    lasts = {s.last for s in profile.stages}
    assert all(spill.step in lasts for spill in profile.spills)
    assert bool(profile.spills) == (report.stage_count > 1)
    for group in profile.tiled:  # the bands cover the output rows once, in order; inputs reach back by the halo
        outs = [band.out_rows for band in group.bands]
        assert outs[0][0] == 0 and outs[-1][1] == group.output_height
        assert all(a[1] == b[0] for a, b in zip(outs, outs[1:]))
        assert all(0 <= band.in_rows[0] < band.in_rows[1] <= group.input_height for band in group.bands)


def test_figures_are_written_with_their_labels(model_zoo: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    memory, tiles = tmp_path / "memory.svg", tmp_path / "tiles.svg"
    # at 48K with the greedy's cuts: normal, tiled and chained stages
    model = str(model_zoo["mobilenet_v2"])
    assert main(["analyze", model, "-m", "48K", "--cuts", "greedy"]) == 0
    report = capsys.readouterr().out
    assert main(["analyze", model, "-m", "48K", "--cuts", "greedy", "--plot", str(memory), "--plot-tiles", str(tiles)]) == 0
    assert capsys.readouterr().out == report  # the figures add files, not output
    svg = memory.read_text()
    assert svg.startswith("<?xml") and "</svg>" in svg
    stages = json.loads(_json(model, capsys))["stage_count"]
    for label in ("budget 48.0 KiB", "S0", f"S{stages - 1}", "unscheduled (whole model at once)", "planned: peak",
                  "tiled stage", "chained stages", "spill to slow memory", "execution step", "live memory (KiB)",
                  "mobilenet_v2.onnx"):
        assert f">{label}" in svg, label
    tiles_svg = tiles.read_text()
    assert re.search(r">stage \d+: tile_h \d+, halo \d+, \d+ tiles<", tiles_svg)  # a tiled stage
    assert re.search(r">stages \d+-\d+ \(chain\): tile_h", tiles_svg)  # a chain
    for label in ("halo: rows read again", "input rows (input, 96)", "rows", "tile"):
        assert f">{label}" in tiles_svg, label
    memory.rename(tmp_path / "first.svg")  # same input, same bytes
    assert main(["analyze", model, "-m", "48K", "--cuts", "greedy", "--plot", str(memory)]) == 0
    assert memory.read_bytes() == (tmp_path / "first.svg").read_bytes()


def _json(model: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["analyze", model, "-m", "48K", "--cuts", "greedy", "--json"]) == 0
    return capsys.readouterr().out


@pytest.fixture
def relu(tmp_path: Path) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 8, 8])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [x], [y])
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_png_with_json_and_no_tiled_stages(relu: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png, tiles = tmp_path / "m.png", tmp_path / "t.svg"
    assert main(["analyze", str(relu), "-m", "64K", "--json", "--plot", str(png), "--plot-tiles", str(tiles)]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "fits"  # stdout is still only the JSON
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "no tiled or chained stages at a 64.0 KiB budget" in tiles.read_text()


@pytest.mark.parametrize("flag", ["--plot", "--plot-tiles"])
def test_missing_matplotlib_is_one_line(flag: str, relu: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now raises ImportError
    figure = tmp_path / "m.svg"
    assert main(["analyze", str(relu), "-m", "64K", flag, str(figure)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: {flag} needs matplotlib: pip install 'tigris[plot]'\n"
    assert not figure.exists()


def test_bad_figure_paths_are_one_line(relu: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["--plot", "m.jpgx"], "error: --plot: cannot write 'm.jpgx': use a .svg, .png or .pdf file name"),
        (["--plot-tiles", "tiles"], "error: --plot-tiles: cannot write 'tiles': use a .svg, .png or .pdf file name"),
        (["--plot", str(tmp_path / "no" / "m.svg")], f"error: cannot write '{tmp_path / 'no' / 'm.svg'}': "
                                                      "No such file or directory"),
    ]
    for flags, message in cases:
        assert main(["analyze", str(relu), "-m", "64K", *flags]) == 1
        captured = capsys.readouterr()
        assert captured.err == message + "\n" and captured.out == ""
