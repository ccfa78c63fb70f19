"""layout-nhwc keeps the IR's meaning exactly: the reference interpreter's outputs are bit-identical
before and after the pass, on every zoo model (float and int8, after tigris-normalize) and on small
graphs for the cases the zoo lacks (a dense layer on a flattened feature map, transposed
convolutions, grouped ones included). The verifiers and kernels read weights through `weight_layout`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

from tigris.dialects.interpreter import run_module
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr import ops_window as win
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.weight import WeightOp, numpy_dtype
from tigris.transforms.pipelines import NORMALIZE, run_passes
from zoo import FLOAT_MODELS  # test/models, on sys.path via conftest

MODELS = list(FLOAT_MODELS)
WEIGHTED = {"tgr.conv", "tgr.depthwise_conv", "tgr.conv1d", "tgr.conv_transpose"}


def model_inputs(module: ModuleOp, seed: int) -> list[np.ndarray]:
    """Random inputs of @main's types: N(0, 1) floats, uniformly random stored int8 values."""
    rng = np.random.default_rng(seed)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    inputs = []
    for type_ in func.function_type.inputs.data:
        assert isinstance(type_, TensorType)
        shape = tuple(type_.get_shape())
        if isinstance(type_.element_type, QuantType):
            info = np.iinfo(numpy_dtype(type_.element_type))
            inputs.append(rng.integers(info.min, info.max, shape, endpoint=True).astype(info.dtype))
        else:
            inputs.append(rng.standard_normal(shape).astype(np.float32))
    return inputs


def assert_layout_keeps_outputs(module: ModuleOp, seeds: tuple[int, ...] = (0, 1)) -> dict[str, int]:
    """Run layout-nhwc on a normalized module; outputs must not change by a single bit.
    Returns how many ops got each layout."""
    feeds = [model_inputs(module, seed) for seed in seeds]
    before = [run_module(module, inputs) for inputs in feeds]
    run_passes(("layout-nhwc",), Context(), module)
    module.verify()
    after = [run_module(module, inputs) for inputs in feeds]
    for want, got in zip(before, after, strict=True):
        for w, g in zip(want, got, strict=True):
            assert w.dtype == g.dtype and w.shape == g.shape
            assert np.array_equal(w, g), f"outputs differ after layout-nhwc (max {np.max(np.abs(w - g))})"
    counts: dict[str, int] = {}
    for op in module.walk():
        layout = win.layout_of(op)
        if layout is not None:
            counts[layout] = counts.get(layout, 0) + 1
    return counts


def normalized(path: Path) -> ModuleOp:
    module = import_model_file(path)
    run_passes(NORMALIZE, Context(), module)
    return module


@pytest.mark.parametrize("int8", [False, True], ids=["float", "int8"])
@pytest.mark.parametrize("name", MODELS)
def test_layout_nhwc_is_bit_identical_on_the_zoo(name: str, int8: bool, model_zoo: dict[str, Path]) -> None:
    module = normalized(model_zoo[f"{name}_int8" if int8 else name])
    assert_layout_keeps_outputs(module)
    for op in module.walk():
        if op.name in WEIGHTED and isinstance(op.operands[1].owner, WeightOp):
            assert isinstance(op, win.WeightedOp)
            assert win.layout_of(op) == op.runtime_layout().name, f"{op.name} kept its ONNX layout"
            weight = op.operands[1].type
            assert isinstance(weight, TensorType)
            element = weight.element_type
            if isinstance(element, QuantType) and element.axis.data >= 0:
                assert element.axis.data == op.runtime_layout().channel_axis


# -- cases the zoo does not have -------------------------------------------------------------------


def _model(
    nodes: list[onnx.NodeProto], inits: dict[str, np.ndarray], x: tuple[int, ...], y: tuple[int, ...]
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "lowering_case",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x))],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, list(y))],
        initializer=[onnx.numpy_helper.from_array(a, n) for n, a in inits.items()],
    )
    opsets = [helper.make_opsetid("", 17)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))


def feature_map_dense() -> onnx.ModelProto:
    """Conv 3x3 stride 2 -> Relu -> Flatten of [1, 4, 4, 4] -> Gemm: the dense layer reads 64
    features in ONNX's (c, h, w) order."""
    rng = np.random.default_rng(7)
    inits = {
        "w": rng.normal(0, 0.3, (4, 3, 3, 3)).astype(np.float32),
        "b": rng.normal(0, 0.1, 4).astype(np.float32),
        "fw": rng.normal(0, 0.2, (5, 64)).astype(np.float32),
        "fb": rng.normal(0, 0.1, 5).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Flatten", ["r"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc", transB=1),
    ]
    return _model(nodes, inits, (1, 3, 8, 8), (1, 5))


def transposed(group: int) -> onnx.ModelProto:
    """ConvTranspose stride 2 of [1, 4, 4, 4] with weight [4, 6 / group, 3, 3]: [1, 6, 9, 9]."""
    rng = np.random.default_rng(8)
    inits = {
        "w": rng.normal(0, 0.3, (4, 6 // group, 3, 3)).astype(np.float32),
        "b": rng.normal(0, 0.1, 6).astype(np.float32),
    }
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="up", strides=[2, 2], group=group)
    ]
    return _model(nodes, inits, (1, 4, 4, 4), (1, 6, 9, 9))


def transposed_1d(group: int) -> onnx.ModelProto:
    """1-D ConvTranspose stride 2 of [1, 4, 5] with weight [4, 6 / group, 3]: [1, 6, 11]."""
    rng = np.random.default_rng(9)
    inits = {
        "w": rng.normal(0, 0.3, (4, 6 // group, 3)).astype(np.float32),
        "b": rng.normal(0, 0.1, 6).astype(np.float32),
    }
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="up", strides=[2], group=group)]
    return _model(nodes, inits, (1, 4, 5), (1, 6, 11))


def _quantized(model: onnx.ModelProto) -> onnx.ModelProto:
    from quantize import quantize_int8

    return quantize_int8(model)


CASES = {
    "feature_map_dense": feature_map_dense,
    "conv_transpose": lambda: transposed(1),
    "conv_transpose_group2": lambda: transposed(2),
    "conv_transpose_1d": lambda: transposed_1d(1),
    "conv_transpose_1d_group2": lambda: transposed_1d(2),
}


@pytest.mark.parametrize(
    ("case", "int8"),
    [(case, False) for case in CASES]
    + [("feature_map_dense", True), ("conv_transpose", True), ("conv_transpose_1d", True)],
)  # no int8 grouped transposed convolution: TFLite has no per-channel kernel for it
def test_layout_nhwc_is_bit_identical_on_small_graphs(case: str, int8: bool, tmp_path: Path) -> None:
    build = CASES[case]
    model = _quantized(build()) if int8 else build()
    path = tmp_path / f"{case}.onnx"
    onnx.save(model, str(path))
    module = normalized(path)
    counts = assert_layout_keeps_outputs(module, seeds=(0, 1, 2))
    conv_layout = "oki" if case.startswith("conv_transpose_1d") else "ohwi"
    expected = {"feature_map_dense": {"ohwi": 1, "nk_hwc": 1}}.get(case, {conv_layout: 1})
    assert counts == expected


def test_hwc_columns_order_features_as_an_nhwc_flatten() -> None:
    """The permuted weight applied to the NHWC flatten equals the ONNX weight on the NCHW flatten."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    w = rng.standard_normal((7, 60))
    chw = (3, 4, 5)
    nhwc = x.transpose(0, 2, 3, 1).reshape(2, 60)
    np.testing.assert_allclose(nhwc @ win.hwc_columns(w, chw).T, x.reshape(2, 60) @ w.T, rtol=1e-12)
    assert np.array_equal(win.chw_columns(win.hwc_columns(w, chw), chw), w)


@pytest.mark.parametrize(
    ("layout", "shape", "group"),
    [
        (win.ConvOp.WEIGHT_LAYOUT, (6, 2, 3, 5), 2),
        (win.DepthwiseConvOp.WEIGHT_LAYOUT, (6, 1, 3, 5), 6),
        (win.Conv1dOp.WEIGHT_LAYOUT, (6, 2, 5), 1),
        (win.ConvTransposeOp.WEIGHT_LAYOUT, (6, 2, 3, 5), 3),
        (win.ConvTransposeOp.WEIGHT_LAYOUT_1D, (6, 2, 5), 3),
    ],
)
def test_layouts_round_trip_and_agree_on_shapes(
    layout: win.WeightLayout, shape: tuple[int, ...], group: int
) -> None:
    w = np.arange(np.prod(shape)).reshape(shape)
    stored = layout.from_onnx(w, group)
    assert stored.ndim == layout.stored_rank and stored.flags.c_contiguous
    assert layout.onnx_shape(stored.shape, group) == shape
    assert np.array_equal(layout.to_onnx(stored, group), w)
