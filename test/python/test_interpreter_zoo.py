"""The reference interpreter on the model zoo, against onnxruntime.

End to end: float models within 1e-4 of the largest output magnitude; int8 QDQ
models (run in float with QuantizeLinear/DequantizeLinear, as onnxruntime runs
them with graph optimizations off) within one quantization step of the output's
DequantizeLinear scale. Op by op: every op of every model, fed onnxruntime's own
values for its inputs, must reproduce onnxruntime's outputs (integers exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest

from tigris.dialects.interpreter import make_interpreter, run_module
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.weight import WeightOp
from ort_helpers import output_dequantize_scales  # test/models, on sys.path via conftest
from zoo import FLOAT_MODELS  # test/models, on sys.path via conftest

Runner = Callable[[object, dict[str, np.ndarray]], list[np.ndarray]]
Inputs = Callable[[Path, int], dict[str, np.ndarray]]

MODELS = list(FLOAT_MODELS)
INT8_MODELS = [f"{name}_int8" for name in MODELS]
SEEDS = (0, 1)

INT8_STEPS: dict[str, int] = {"mobilenet_v2_int8": 6, "unet_int8": 4}
"""Allowed output error in quantization steps where it is not 1. numpy and MLAS sum a conv's
products in different orders (MLAS's K-blocking even depends on how it splits columns between
threads), so an activation lying within a few float32 ulps of a rounding boundary can quantize
one step apart; in these deep models such flips compound (measured: at most 4 and 3 steps over
20 seeds). `test_every_op_matches_onnxruntime_on_its_inputs` shows each op itself agrees exactly."""




@pytest.mark.parametrize("key", MODELS)
def test_float_model_matches_onnxruntime(
    key: str, model_zoo: dict[str, Path], run_onnxruntime: Runner, random_inputs: Inputs
) -> None:
    path = model_zoo[key]
    module = import_model_file(path)
    for seed in SEEDS:
        inputs = random_inputs(path, seed)
        want = run_onnxruntime(path, inputs)
        got = run_module(module, list(inputs.values()))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=0, atol=1e-4 * float(np.max(np.abs(w))))


@pytest.mark.parametrize("key", INT8_MODELS)
def test_int8_qdq_model_matches_onnxruntime(
    key: str, model_zoo: dict[str, Path], run_onnxruntime: Runner, random_inputs: Inputs
) -> None:
    path = model_zoo[key]
    module = import_model_file(path)
    scales = output_dequantize_scales(path)
    for seed in SEEDS:
        inputs = random_inputs(path, seed)
        want = run_onnxruntime(path, inputs)
        got = run_module(module, list(inputs.values()))
        assert len(got) == len(want) == len(scales)
        for g, w, scale in zip(got, want, scales):
            assert g.shape == w.shape and g.dtype == w.dtype
            steps = np.abs(g.astype(np.float64) - w) / scale
            assert steps.max() <= 1.01 * INT8_STEPS.get(key, 1), f"seed {seed}: off by {steps.max():.2f} steps"


def with_every_value_as_output(path: Path) -> tuple[onnx.ModelProto, list[str]]:
    """The model with every node output also a graph output (same computation in onnxruntime)."""
    model = onnx.load(str(path))
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    infos = {v.name: v for v in [*inferred.graph.value_info, *inferred.graph.output]}
    names = [o.name for o in model.graph.output]
    for node in model.graph.node:
        for out in node.output:
            if out and out not in names:
                model.graph.output.append(infos[out])
                names.append(out)
    return model, names


@pytest.mark.parametrize("key", [k for name in MODELS for k in (name, f"{name}_int8")])
def test_every_op_matches_onnxruntime_on_its_inputs(
    key: str, model_zoo: dict[str, Path], run_onnxruntime: Runner, random_inputs: Inputs
) -> None:
    path = model_zoo[key]
    model, names = with_every_value_as_output(path)
    inputs = random_inputs(path, 0)
    reference = dict(zip(names, run_onnxruntime(model, inputs)))
    reference.update(inputs)
    nodes = {node.name: node for node in model.graph.node}
    module = import_model_file(path)
    func = next(iter(module.ops))
    values = dict(zip(func.body.block.args, inputs.values()))
    interpreter = make_interpreter(module)
    compared = 0
    for op in func.body.block.ops:
        if isinstance(op, WeightOp):
            values[op.output] = op.array()
            continue
        if op.name == "func.return":
            continue
        node = nodes[op.attributes["tgr.name"].data]
        with np.errstate(all="ignore"):
            results = interpreter.run_op(op, tuple(values[v] for v in op.operands))
        for result, got, name in zip(op.results, results, node.output):
            want = reference[name]
            assert got.shape == want.shape and got.dtype == want.dtype, f"{node.name}: {got.shape} vs {want.shape}"
            if want.dtype.kind == "f":
                tolerance = 1e-5 * max(float(np.max(np.abs(want))), 1e-6) if want.size else 0.0
                np.testing.assert_allclose(got, want, rtol=0, atol=tolerance, err_msg=f"{node.name} ({node.op_type})")
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{node.name} ({node.op_type})")
            values[result] = want  # the next op sees onnxruntime's value, not ours
            compared += 1
    assert compared == sum(len(n.output) for n in model.graph.node)
