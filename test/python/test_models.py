"""Tests for the deterministic ONNX test-model builders in test/models."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, numpy_helper

import graph_builder
import quantize
import zoo
from mobilenet_v2 import build_mobilenet_v2

Runner = Callable[[Path, dict[str, np.ndarray]], list[np.ndarray]]
Inputs = Callable[[Path, int], dict[str, np.ndarray]]

# name -> (input shape, {output name: shape}, op types that must be present)
EXPECTED: dict[str, tuple[tuple[int, ...], dict[str, tuple[int, ...]], set[str]]] = {
    "mobilenet_v2": ((1, 3, 96, 96), {"logits": (1, 10)},
                     {"Conv", "BatchNormalization", "Clip", "Add", "GlobalAveragePool",
                      "Flatten", "Gemm"}),
    "resnet": ((1, 3, 64, 64), {"logits": (1, 10)},
               {"Conv", "BatchNormalization", "Relu", "MaxPool", "Add", "Gemm"}),
    "unet": ((1, 3, 64, 64), {"mask_logits": (1, 2, 64, 64)},
             {"Conv", "Relu", "MaxPool", "Resize", "Concat"}),
    "yolo": ((1, 3, 64, 64), {"det_p3": (1, 8, 8, 24), "det_p4": (1, 4, 4, 24)},
             {"Conv", "BatchNormalization", "Sigmoid", "Mul", "Resize", "Concat", "Transpose"}),
    "conv1d": ((1, 8, 128), {"logits": (1, 5)},
               {"Conv", "Relu", "MaxPool", "BatchNormalization", "GlobalAveragePool", "Gemm"}),
    "dense_autoencoder": ((1, 64), {"reconstruction": (1, 64)},
                          {"Gemm", "Relu", "MatMul", "Add", "Sigmoid"}),
    "pytorch_idioms": ((1, 3, 32, 32), {"logits_t": (10, 1)},
                       {"Clip", "Constant", "HardSwish", "Identity", "ReduceMean", "Shape",
                        "Gather", "Unsqueeze", "Concat", "Reshape", "Dropout", "Transpose"}),
    "silu_ops": ((1, 3, 32, 32), {"logits": (1, 10)}, {"Swish", "HardSwish", "Gemm"}),
    "keras_mobilenet_v1": ((1, 96, 96, 3), {"probabilities": (1, 2)},
                           {"Transpose", "Conv", "BatchNormalization", "Clip", "Pad", "ReduceMean",
                            "Reshape", "Softmax"}),
    "keras_mobilenet_v2": ((1, 96, 96, 3), {"probabilities": (1, 2)},
                           {"Transpose", "Conv", "BatchNormalization", "Clip", "Pad", "Add",
                            "ReduceMean", "MatMul", "Softmax"}),
    "ds_cnn": ((1, 49, 10, 1), {"probabilities": (1, 12)},
               {"Transpose", "Conv", "BatchNormalization", "Relu", "AveragePool", "Reshape",
                "MatMul", "Add", "Softmax"}),
    "resnet8": ((1, 32, 32, 3), {"probabilities": (1, 10)},
                {"Transpose", "Conv", "BatchNormalization", "Relu", "Add", "AveragePool", "Reshape",
                 "MatMul", "Softmax"}),
    # the G1 families (architectures.py): the idiom each brings must be in the graph
    "mobilenet_v3": ((1, 3, 64, 64), {"logits": (1, 10)},
                     {"Conv", "HardSwish", "HardSigmoid", "GlobalAveragePool", "Mul", "Add", "Dropout"}),
    "shufflenet_v2": ((1, 3, 64, 64), {"logits": (1, 10)},
                      {"Conv", "Split", "Concat", "Reshape", "Transpose", "MaxPool"}),
    "efficientnet": ((1, 3, 64, 64), {"logits": (1, 10)},
                     {"Conv", "Sigmoid", "Mul", "GlobalAveragePool", "Add", "Dropout"}),
    "squeezenet": ((1, 3, 64, 64), {"logits": (1, 10)}, {"Conv", "Relu", "MaxPool", "Concat", "Dropout"}),
    "mnasnet": ((1, 3, 64, 64), {"logits": (1, 10)}, {"Conv", "BatchNormalization", "Relu", "Add", "Gemm"}),
}
OPSETS = {"silu_ops": 24, **{name: 13 for name in zoo.KERAS_MODELS}}  # tf2onnx's default opset: 13
ALL_KEYS = [k for name in EXPECTED for k in (name, zoo.int8_name(name))]


def base_name(key: str) -> str:
    return key.removesuffix("_int8")


def test_registry_matches_expectations() -> None:
    assert list(zoo.FLOAT_MODELS) == list(EXPECTED)


@pytest.mark.parametrize("key", ALL_KEYS)
def test_model_is_valid_and_runs(key: str, model_zoo: dict[str, Path],
                                 run_onnxruntime: Runner, random_inputs: Inputs) -> None:
    path = model_zoo[key]
    onnx.checker.check_model(str(path), full_check=True)
    model = onnx.load(str(path))
    in_shape, out_shapes, _ = EXPECTED[base_name(key)]
    inputs = random_inputs(path, 7)
    assert [x.shape for x in inputs.values()] == [in_shape]
    assert all(x.dtype == np.float32 for x in inputs.values())
    assert [o.name for o in model.graph.output] == list(out_shapes)
    outputs = run_onnxruntime(path, inputs)
    for out, shape in zip(outputs, out_shapes.values(), strict=True):
        assert out.shape == shape
        assert out.dtype == np.float32
        assert np.all(np.isfinite(out))
        assert out.std() > 1e-3, "output is (nearly) constant"


@pytest.mark.parametrize("name", list(EXPECTED))
def test_float_model_structure(name: str, model_zoo: dict[str, Path]) -> None:
    model = onnx.load(str(model_zoo[name]))
    ops = {n.op_type for n in model.graph.node}
    assert EXPECTED[name][2] <= ops, f"missing {EXPECTED[name][2] - ops}"
    names = [n.name for n in model.graph.node]
    assert all(names) and len(set(names)) == len(names)
    opset = {o.domain: o.version for o in model.opset_import}
    assert opset == {"": OPSETS.get(name, 17)}
    assert all(i.data_type in (TensorProto.FLOAT, TensorProto.INT64)
               for i in model.graph.initializer)


def test_mobilenet_has_depthwise_and_residuals(model_zoo: dict[str, Path]) -> None:
    model = onnx.load(str(model_zoo["mobilenet_v2"]))
    counts = Counter(n.op_type for n in model.graph.node)
    groups = [a.i for n in model.graph.node if n.op_type == "Conv"
              for a in n.attribute if a.name == "group"]
    assert sum(g > 1 for g in groups) == 17  # one depthwise conv per block
    assert counts["Add"] == 10  # residual blocks in the MobileNetV2 table


@pytest.mark.parametrize("name", list(EXPECTED))
def test_int8_model_is_qdq(name: str, model_zoo: dict[str, Path]) -> None:
    model = onnx.load(str(model_zoo[zoo.int8_name(name)]))
    counts = Counter(n.op_type for n in model.graph.node)
    assert counts["QuantizeLinear"] > 0 and counts["DequantizeLinear"] > 0
    assert counts["BatchNormalization"] == 0, "BatchNorm must be folded before quantizing"
    inits = {i.name: i for i in model.graph.initializer}
    assert any(i.data_type == TensorProto.INT8 and len(i.dims) > 1 for i in inits.values())
    per_channel = [n for n in model.graph.node if n.op_type == "DequantizeLinear"
                   and n.input[0] in inits and len(inits[n.input[1]].dims) == 1
                   and inits[n.input[1]].dims[0] > 1]
    assert per_channel, "weights should be quantized per channel"
    for dq in per_channel:  # symmetric weights: all zero points are 0
        assert not numpy_helper.to_array(inits[dq.input[2]]).any()


@pytest.mark.parametrize("name", list(EXPECTED))
def test_int8_close_to_float(name: str, model_zoo: dict[str, Path],
                             run_onnxruntime: Runner, random_inputs: Inputs) -> None:
    """Observed: corr >= 0.998 and relative L2 error <= 0.07 for every model.

    8-bit per-channel weights / per-tensor activations on nets this shallow
    should stay within ~10 % L2; 0.15 leaves headroom for platform rounding
    while still catching a broken scale, axis or zero point.
    """
    for seed in (11, 12):
        inputs = random_inputs(model_zoo[name], seed)
        ref = run_onnxruntime(model_zoo[name], inputs)
        got = run_onnxruntime(model_zoo[zoo.int8_name(name)], inputs)
        for r, q in zip(ref, got, strict=True):
            corr = np.corrcoef(r.ravel(), q.ravel())[0, 1]
            rel = np.linalg.norm(r - q) / np.linalg.norm(r)
            assert corr > 0.97, f"corr {corr:.4f}"
            assert rel < 0.15, f"relative L2 error {rel:.4f}"


@pytest.mark.parametrize("name", list(EXPECTED))
def test_float_build_is_deterministic(name: str, model_zoo: dict[str, Path]) -> None:
    rebuilt = zoo.FLOAT_MODELS[name]().SerializeToString(deterministic=True)
    assert rebuilt == model_zoo[name].read_bytes()


@pytest.mark.parametrize("name", ["yolo", "pytorch_idioms"])
def test_int8_build_is_deterministic(name: str, model_zoo: dict[str, Path]) -> None:
    rebuilt = quantize.quantize_int8(zoo.FLOAT_MODELS[name]())
    assert rebuilt.SerializeToString(deterministic=True) == \
        model_zoo[zoo.int8_name(name)].read_bytes()


def test_bn_folding_preserves_outputs(run_onnxruntime: Runner, random_inputs: Inputs) -> None:
    model = zoo.FLOAT_MODELS["resnet"]()
    folded = quantize.fold_batchnorm(model)
    assert not any(n.op_type == "BatchNormalization" for n in folded.graph.node)
    onnx.checker.check_model(folded, full_check=True)
    inputs = random_inputs(model, 3)
    for a, b in zip(run_onnxruntime(model, inputs), run_onnxruntime(folded, inputs), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_full_size_mobilenet_v2_parameter_count() -> None:
    model = build_mobilenet_v2(resolution=224, width=1.0)
    params = graph_builder.count_params(model)
    assert 3.0e6 < params < 4.0e6, params
    out = model.graph.output[0].type.tensor_type.shape
    assert [d.dim_value for d in out.dim] == [1, 1000]


# -- Keras models (keras_models.py) ---------------------------------------------------------------

KERAS = sorted(zoo.KERAS_MODELS)


@pytest.mark.parametrize("name", KERAS)
def test_keras_exports_compute_the_same_function(name: str, model_zoo: dict[str, Path],
                                                 run_onnxruntime: Runner, random_inputs: Inputs) -> None:
    """The channels-first export is the same network: onnxruntime gives the same outputs on
    the same values, laid out NHWC for one and NCHW for the other."""
    first = zoo.FLOAT_MODELS[name](channels_last=False)
    assert not any(n.op_type == "Transpose" for n in first.graph.node)
    for seed in (0, 1):
        (x,) = random_inputs(model_zoo[name], seed).values()
        (want,) = run_onnxruntime(model_zoo[name], {"input_1": x})
        (got,) = run_onnxruntime(first, {"input_1": np.ascontiguousarray(x.transpose(0, 3, 1, 2))})
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", KERAS)
def test_keras_int8_quantizes_the_float_input_inside_the_graph(name: str, model_zoo: dict[str, Path]) -> None:
    """As a QDQ TensorFlow export has it: the NHWC float input's Transpose runs in float and a
    QuantizeLinear follows it; the Softmax is quantized like every other op (QDQ around it) and
    the output is its dequantized value."""
    graph = onnx.load(str(model_zoo[zoo.int8_name(name)])).graph
    readers = {i: n for n in graph.node for i in n.input}
    transpose = readers["input_1"]
    assert transpose.op_type == "Transpose" and list(transpose.attribute[0].ints) == [0, 3, 1, 2]
    assert readers[transpose.output[0]].op_type == "QuantizeLinear"
    softmax = next(n for n in graph.node if n.op_type == "Softmax")
    producer = next(n for n in graph.node if softmax.input[0] in n.output)
    (reader,) = [n for n in graph.node if softmax.output[0] in n.input]
    (output,) = [n for n in graph.node if graph.output[0].name in n.output]
    assert producer.op_type == "DequantizeLinear" and reader.op_type == "QuantizeLinear"
    assert output.op_type == "DequantizeLinear" and output.input[0] == reader.output[0]


def test_resnet8_has_the_mlperf_tiny_parameter_count() -> None:
    """MLPerf Tiny's Keras ResNet-8 summary: 78,666 parameters. By hand (weights + bias, BN's
    4 per channel): stem 3*3*3*16+16 + 64 = 512; stack 1: 2 * (3*3*16*16+16 + 64) = 4768;
    stack 2: 3*3*16*32+32 + 128 + 3*3*32*32+32 + 128 + 16*32+32 = 14688; stack 3:
    3*3*32*64+64 + 256 + 3*3*64*64+64 + 256 + 32*64+64 = 58048; dense 64*10+10 = 650."""
    assert graph_builder.count_params(zoo.FLOAT_MODELS["resnet8"]()) == 512 + 4768 + 14688 + 58048 + 650 == 78666
