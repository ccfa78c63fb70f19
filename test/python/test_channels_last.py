"""Channels-last (TensorFlow/Keras) models cost what the same network exported channels-first
costs (issue G8).

tf2onnx writes a Keras model with an NHWC input, a Transpose to NCHW and transposes around every
layout-dependent layer (test/models/keras_models.py). fold-layout-transposes folds them into the
model input (and outputs) or cancels them; the runtime keeps activations channels-last anyway,
so the user's NHWC bytes are the stored bytes of the NCHW-shaped plan input. Checked here on the
four Keras models of the zoo, float and int8, against their channels-first exports: the same
smallest budget, no transpose op in the plan, the input's recorded layout, the host passing the
user's bytes through untouched, and `tigris run` in the model's declared layout. The end-to-end
matrix (test_end_to_end.py) runs them at several budgets against onnxruntime.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import zoo  # test/models
from end_to_end import normalized, run_once  # test/support
from keras_models import float_nodes  # test/models
from quantize import quantize_int8  # test/models
from tigris.dialects.tgr.ops_shape import TransposeOp
from tigris.tools.report import analyze_module
from tigris.tools.report.analysis import Verdict
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import OpType
from tigris.tools.cli import compile_bytes, main
from tigris.tools.runtime_binding import input_bytes
from tigris.transforms.normalize.model_layout import recorded_perms
from tigris.transforms.plan.graph import main_func

KERAS = sorted(zoo.KERAS_MODELS)
KEYS = [k for name in KERAS for k in (name, zoo.int8_name(name))]
CHANNELS_LAST = [0, 2, 3, 1]
"""The user's NHWC tensor is the NCHW plan input transposed by this: the channels-last order."""


@pytest.fixture(scope="module")
def channels_first(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same networks exported channels-first (no transposes), float and int8."""
    out = tmp_path_factory.mktemp("channels_first")
    paths = {}
    for name in KERAS:
        model = zoo.FLOAT_MODELS[name](channels_last=False)
        paths[name] = zoo.save(model, out / f"{name}.onnx")
        qdq = quantize_int8(model, exclude=float_nodes(model))
        paths[zoo.int8_name(name)] = zoo.save(qdq, out / f"{name}_int8.onnx")
    return paths


@pytest.mark.parametrize("key", KEYS)
def test_the_layout_costs_nothing(key: str, model_zoo: dict[str, Path], channels_first: dict[str, Path]) -> None:
    last, first = normalized(model_zoo[key]), normalized(channels_first[key])
    assert not any(isinstance(op, TransposeOp) for op in last.walk())
    assert recorded_perms(main_func(last)) == ([CHANNELS_LAST], [None])
    ours, theirs = analyze_module(last, key, 64 << 10), analyze_module(first, key, 64 << 10)
    assert ours.min_budget == theirs.min_budget, f"{key}: {ours.min_budget} vs {theirs.min_budget} channels-first"
    assert ours.smallest_fitting_budget == theirs.smallest_fitting_budget
    assert ours.unscheduled_peak == theirs.unscheduled_peak
    plan = read_plan(compile_bytes(str(model_zoo[key]), ours.min_budget))
    assert OpType.TRANSPOSE not in {op.op_type for op in plan.ops}
    (x,) = [plan.tensors[i] for i in plan.inputs]
    n, h, w, c = onnx.load(str(model_zoo[key])).graph.input[0].type.tensor_type.shape.dim
    assert x.shape == (n.dim_value, c.dim_value, h.dim_value, w.dim_value) and x.perm == tuple(CHANNELS_LAST)


@pytest.mark.parametrize("key", ["resnet8", "resnet8_int8"])
def test_the_host_passes_the_users_nhwc_bytes_as_they_are(key: str, model_zoo: dict[str, Path]) -> None:
    """What a firmware does for a channels-last model: the input bytes in their NHWC order
    (quantized at the input's parameters for int8), no transpose."""
    plan = read_plan(compile_bytes(str(model_zoo[key]), 64 << 10))
    x = np.random.default_rng(4).standard_normal((1, 32, 32, 3)).astype(np.float32)
    tensor = plan.tensors[plan.inputs[0]]
    if tensor.quant is None:
        want = x
    else:  # ONNX QuantizeLinear: round half to even, saturate to int8
        q = plan.quant_params[tensor.quant]
        want = np.clip(np.rint(x / np.float32(q.scales[0])) + q.zero_points[0], -128, 127).astype(np.int8)
    assert input_bytes(plan, [x]) == want.tobytes()


def test_tigris_run_takes_and_gives_the_declared_layout(
    model_zoo: dict[str, Path], run_onnxruntime, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = model_zoo["ds_cnn"]
    plan, x_path, y_path = tmp_path / "m.tgrs", tmp_path / "x.npy", tmp_path / "y.npy"
    assert main(["compile", str(model), "-m", "32K", "-o", str(plan)]) == 0
    x = np.random.default_rng(5).standard_normal((1, 49, 10, 1)).astype(np.float32)
    np.save(x_path, x)
    assert main(["run", str(plan), "--input", str(x_path), "--output", str(y_path)]) == 0
    capsys.readouterr()
    (want,) = run_onnxruntime(model, {"input_1": x})
    got = np.load(y_path)
    assert got.shape == want.shape == (1, 12)
    assert float(np.abs(got - want).max()) <= 1e-4 * float(np.abs(want).max())
    assert main(["run", str(plan)]) == 0  # a random input of the declared shape
    assert capsys.readouterr().out.startswith("probabilities 1x12 float32")
    np.save(x_path, np.ascontiguousarray(x.transpose(0, 3, 1, 2)))  # NCHW: not the declared layout
    assert main(["run", str(plan), "--input", str(x_path)]) == 1
    assert "has shape (1, 1, 49, 10), the plan takes (1, 49, 10, 1)" in capsys.readouterr().err


def test_quantize_and_dequantize_run_in_tiles(tmp_path: Path) -> None:
    """QuantizeLinear/DequantizeLinear where a float part meets int8 (a float Sigmoid on the
    float input, another on the int8 result) are pointwise ops: their stages tile like any
    other, and every budget gives the one-stage plan's bytes."""
    from graph_builder import GraphBuilder  # test/models

    g = GraphBuilder("float_ends", 5)
    x = g.unary("Sigmoid", g.add_input("input", (1, 3, 32, 32)))
    x = g.relu(g.conv(g.relu(g.conv(x, 16, 3)), 16, 3, 2))
    model = quantize_int8(g.build({"y": g.unary("Sigmoid", x)}), exclude=["Sigmoid_0", "Sigmoid_1"])
    path = zoo.save(model, tmp_path / "float_ends_int8.onnx")
    module = normalized(path)
    whole = run_once("float_ends", path, module, 1 << 20)
    for budget in (3 << 10, 6 << 10):
        run = run_once("float_ends", path, module, budget)
        plan = run.c.plan
        tiled = {o for s in plan.stages if s.tile_plan is not None for o in s.ops}
        for kind in (OpType.QUANTIZE, OpType.DEQUANTIZE):
            (index,) = [i for i, op in enumerate(plan.ops) if op.op_type == kind]
            assert index in tiled, f"{kind.name} runs untiled at {budget}"
        assert run.stats["total_tiles"] > 0 and run.stats["slow_overflow_count"] == 0
        assert run.output_bytes == whole.output_bytes
    assert analyze_module(module, "float_ends", 3 << 10).verdict == Verdict.FITS_TILED
