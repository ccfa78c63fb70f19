"""The example plugin end to end: an ONNX model Conv -> ThresholdedRelu -> Conv compiled with the
plugin's op, tiled, run by the C runtime with the plugin's kernel, against onnxruntime and the
reference interpreter.

These tests need the plugin installed (`pip install -e examples/extension`); without it the
first test fails and says so (nothing is skipped).
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

BUDGETS = {"tiled": 3072, "chain": 16 * 1024, "normal": 256 * 1024}
"""Budgets at which the ThresholdedRelu's stage is tiled, chained with the convs, or not cut."""
THRESHOLDED_RELU = 130
TIGRIS_OPT = "import sys; from tigris.tools.tigris_opt import main; sys.exit(main())"
TIGRIS = "import sys; from tigris.tools.cli import main; sys.exit(main())"


def build_model(path: Path) -> Path:
    """x [1, 4, 32, 32] -> Conv 3x3 (8, bias) -> ThresholdedRelu(alpha 0.3) -> Conv 3x3 (4)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    weights = {
        "w1": (rng.standard_normal((8, 4, 3, 3)) * 0.3).astype(np.float32),
        "b1": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((4, 8, 3, 3)) * 0.3).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("ThresholdedRelu", ["c"], ["h"], name="thresholded_relu", alpha=0.3),
        helper.make_node("Conv", ["h", "w2"], ["y"], name="conv2", pads=[1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes, "ext_example",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 32, 32])],
        [numpy_helper.from_array(a, name) for name, a in weights.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("ext") / "ext_example.onnx")


@pytest.fixture(scope="module")
def x() -> np.ndarray:
    return np.random.default_rng(7).standard_normal((1, 4, 32, 32)).astype(np.float32) * 2


@cache
def _compiled(path: str, budget: int, cuts: str = "shortest") -> bytes:
    """`tigris compile MODEL -m BUDGET --cuts CUTS` (the CLI, as a user runs it)."""
    out = Path(path).with_suffix(f".{budget}.{cuts}.tgrs")
    proc = subprocess.run([sys.executable, "-c", TIGRIS, "compile", path, "-m", str(budget), "--cuts", cuts,
                           "-o", str(out)], capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out.read_bytes()


def test_the_plugin_is_installed() -> None:
    from tigris.dialects import get_all_dialects
    from tigris.dialects.plugins import installed_plugins

    assert "ext" in installed_plugins(), "not installed: pip install -e examples/extension"
    assert "ext" in get_all_dialects()


def test_normalize_uses_the_plugin_op(model: Path) -> None:
    from xdsl.context import Context

    from tigris.dialects.onnx.importer import import_model_file
    from tigris.transforms.pipelines import TigrisNormalizePass
    from tigris_ext_example.dialect import ThresholdedReluOp

    module = import_model_file(model)
    TigrisNormalizePass().apply(Context(), module)  # ends with check-legal: every op is a runtime op
    (op,) = [op for op in module.walk() if isinstance(op, ThresholdedReluOp)]
    assert op.alpha.value.data == pytest.approx(0.3)


@pytest.mark.parametrize("strategy", [*BUDGETS, "fused"])
def test_the_plan_cuts_the_plugin_op_as_planned(model: Path, strategy: str) -> None:
    """The plugin op in a tiled stage, a chain (the greedy's cuts make chains), a fused stage
    with row caches (the default cuts at the chain's budget) and a normal stage."""
    from tigris.emit.tgrs import read_plan

    budget = BUDGETS["chain" if strategy == "fused" else strategy]
    plan = read_plan(_compiled(str(model), budget, "greedy" if strategy == "chain" else "shortest"))
    (index,) = [i for i, op in enumerate(plan.ops) if op.op_type == THRESHOLDED_RELU]
    op = plan.ops[index]
    assert op.alpha == pytest.approx(0.3)  # runtime_fields()
    (stage,) = [s for s in plan.stages if index in s.ops]
    tile = plan.tile_plans[stage.tile_plan] if stage.tile_plan is not None else None
    if strategy == "normal":
        assert tile is None
    else:
        assert tile is not None and tile.num_tiles > 1
        assert (tile.chain >= 0) == (strategy == "chain")
        assert tile.row_cache == (strategy == "fused")


def test_runtime_matches_onnxruntime_and_the_interpreter(model: Path, x: np.ndarray) -> None:
    import onnxruntime as ort
    from xdsl.context import Context

    from tigris.dialects.interpreter import run_module
    from tigris.dialects.onnx.importer import import_model_file
    from tigris.tools.runtime_binding import run_plan
    from tigris.transforms.pipelines import TigrisNormalizePass

    (expected,) = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    module = import_model_file(model)
    TigrisNormalizePass().apply(Context(), module)
    (interpreted,) = run_module(module, [x])
    np.testing.assert_allclose(interpreted, expected, rtol=1e-4, atol=1e-4)
    outputs = {}
    for strategy, budget in BUDGETS.items():
        result = run_plan(_compiled(str(model), budget), [x], fast=budget)
        if strategy != "normal":
            assert result.stats["stages_tiled"] + result.stats["stages_chain"] > 0, result.stats
        outputs[strategy] = result.outputs[0]
        np.testing.assert_allclose(result.outputs[0], expected, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(result.outputs[0], interpreted, rtol=1e-5, atol=1e-5)
    # the budget changes where the rows are computed, never the values
    assert outputs["tiled"].tobytes() == outputs["chain"].tobytes() == outputs["normal"].tobytes()


def test_the_command_line_tools(model: Path, x: np.ndarray, tmp_path: Path) -> None:
    """`tigris run` and `tigris-opt --interpret` on the same input agree (the interpreter prints
    the first 16 values, to 6 decimals)."""
    np.save(tmp_path / "x.npy", x)
    plan = tmp_path / "m.tgrs"
    plan.write_bytes(_compiled(str(model), BUDGETS["tiled"]))
    run = subprocess.run(
        [sys.executable, "-c", TIGRIS, "run", str(plan), "-m", "4K", "--input", str(tmp_path / "x.npy"),
         "--output", str(tmp_path / "y.npy")], capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    y = np.load(tmp_path / "y.npy")
    interp = subprocess.run(
        [sys.executable, "-c", TIGRIS_OPT, str(model), "-p", "tigris-normalize", "--interpret",
         "--input", str(tmp_path / "x.npy")], capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert interp.returncode == 0, interp.stderr
    lines = interp.stdout.split("// --interpret outputs\n", 1)[1].splitlines()
    assert lines[0] == "// output 0: shape [1, 4, 32, 32] float32"
    first = np.array(lines[1].removeprefix("//   [").removesuffix("] ...").split(), dtype=np.float64)
    np.testing.assert_allclose(first, y.reshape(-1)[:16], atol=2e-6)
