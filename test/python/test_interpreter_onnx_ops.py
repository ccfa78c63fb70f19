"""Every `onnx` op, one node at a time, against onnxruntime (the independent oracle).

Each case is a one-node ONNX model: imported with the real importer, interpreted,
and compared with onnxruntime's CPU provider (graph optimizations off). Float
results must agree within 1e-5 of the largest output magnitude; integer results
exactly. Silu (no onnxruntime kernel in any domain) is checked against its formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from tigris.dialects.onnx.errors import OnnxImportError
from onnx import TensorProto, helper, numpy_helper
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.interpreter import run_module
from tigris.dialects.onnx.dialect import ONNX_OPS
from tigris.dialects.onnx.importer import import_model

RNG = np.random.default_rng(2024)


def rand(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def ints(*values: int) -> np.ndarray:
    return np.asarray(values, np.int64)


@dataclass
class Case:
    """One node: runtime inputs (fed) and initializers, in node-input order; '' = absent input."""

    op: str
    inputs: dict[str, np.ndarray | None]
    attrs: dict[str, Any] = field(default_factory=dict)
    opset: int = 17
    fed: tuple[str, ...] = ("x",)
    domain: str = ""

    def model(self) -> onnx.ModelProto:
        names = [name if value is not None else "" for name, value in self.inputs.items()]
        node = helper.make_node(self.op, names, ["y"], name="node", domain=self.domain, **self.attrs)
        graph_inputs = [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for n, v in self.inputs.items()
            if n in self.fed and v is not None
        ]
        inits = [numpy_helper.from_array(v, n) for n, v in self.inputs.items() if n not in self.fed and v is not None]
        graph = helper.make_graph([node], "case", graph_inputs, [helper.make_value_info("y", onnx.TypeProto())], inits)
        opsets = [helper.make_opsetid("", self.opset)] + ([helper.make_opsetid(self.domain, 1)] if self.domain else [])
        return helper.make_model(graph, opset_imports=opsets, ir_version=10)

    def feeds(self) -> dict[str, np.ndarray]:
        return {n: v for n, v in self.inputs.items() if n in self.fed and v is not None}


def onnxruntime_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return [np.asarray(r) for r in session.run(None, feeds)]


def interpret(case: Case) -> np.ndarray:
    module = import_model(case.model())
    (result,) = run_module(module, list(case.feeds().values()))
    return result


def assert_matches(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind == "f":
        scale = max(float(np.max(np.abs(want))), 1e-30) if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale)
    else:
        np.testing.assert_array_equal(got, want)


X4 = rand(1, 4, 7, 6)
W = rand(6, 4, 3, 3)
B6 = rand(6)
INT_A = np.asarray([[7, -7, 9], [-9, 5, 0]], np.int64)
INT_B = np.asarray([[2, 2, -4], [4, -3, 7]], np.int64)
SCALES = {"scale": rand(4, low=0.5, high=1.5), "B": rand(4), "mean": rand(4), "var": rand(4, low=0.1, high=2.0)}


def resize_case(mode: str, ctm: str, scales: list[float] | None = None, sizes: list[int] | None = None, **extra: Any) -> Case:
    inputs: dict[str, np.ndarray | None] = {
        "x": rand(1, 2, 5, 4),
        "roi": None,
        "scales": np.asarray(scales, np.float32) if scales else None,
        "sizes": ints(*sizes) if sizes else None,
    }
    return Case("Resize", inputs, {"mode": mode, "coordinate_transformation_mode": ctm, **extra}, opset=19)


CASES: dict[str, Case] = {
    "conv_pads_strides": Case("Conv", {"x": X4, "w": W, "b": B6}, {"pads": [1, 0, 2, 1], "strides": [2, 1]}),
    "conv_dilated_grouped": Case("Conv", {"x": X4, "w": rand(6, 2, 2, 3)}, {"dilations": [2, 1], "group": 2}),
    "conv_same_upper": Case("Conv", {"x": X4, "w": W}, {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    "conv_same_lower": Case("Conv", {"x": X4, "w": rand(6, 4, 2, 2)}, {"auto_pad": "SAME_LOWER"}),
    "conv_valid": Case("Conv", {"x": X4, "w": W, "b": B6}, {"auto_pad": "VALID"}),
    "conv_1d": Case("Conv", {"x": rand(1, 3, 20), "w": rand(5, 3, 4)}, {"pads": [2, 1], "strides": [3]}),
    "conv_3d": Case("Conv", {"x": rand(1, 2, 4, 5, 6), "w": rand(3, 2, 2, 3, 2)}, {"pads": [1, 0, 1, 0, 1, 1]}),
    "conv_depthwise": Case("Conv", {"x": X4, "w": rand(8, 1, 3, 3)}, {"group": 4, "pads": [1, 1, 1, 1]}),
    "conv_transpose": Case("ConvTranspose", {"x": rand(1, 4, 5, 4), "w": rand(4, 3, 3, 3), "b": rand(3)},
                           {"strides": [2, 2], "pads": [1, 0, 0, 1], "output_padding": [1, 0]}),
    "conv_transpose_group_dilated": Case("ConvTranspose", {"x": rand(1, 4, 5, 4), "w": rand(4, 2, 2, 3)},
                                         {"group": 2, "dilations": [2, 1], "strides": [1, 2]}),
    "conv_transpose_output_shape": Case("ConvTranspose", {"x": rand(1, 2, 4, 4), "w": rand(2, 3, 3, 3)},
                                        {"strides": [2, 2], "output_shape": [9, 8]}),
    "conv_transpose_same_upper": Case("ConvTranspose", {"x": rand(1, 2, 4, 3), "w": rand(2, 3, 4, 3)},
                                      {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    "conv_transpose_same_lower": Case("ConvTranspose", {"x": rand(1, 2, 4, 3), "w": rand(2, 3, 4, 3)},
                                      {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    "batch_norm": Case("BatchNormalization", {"x": X4, **SCALES}, {"epsilon": 1e-3}),
    "instance_norm": Case("InstanceNormalization", {"x": X4, "scale": SCALES["scale"], "B": SCALES["B"]}),
    "max_pool_ceil": Case("MaxPool", {"x": X4}, {"kernel_shape": [3, 2], "strides": [2, 2], "ceil_mode": 1}),
    "max_pool_pads_dilations": Case("MaxPool", {"x": X4}, {"kernel_shape": [2, 2], "pads": [1, 1, 1, 0], "dilations": [2, 1]}),
    "max_pool_same_upper": Case("MaxPool", {"x": X4}, {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    "max_pool_ceil_last_window_dropped": Case("MaxPool", {"x": rand(1, 1, 5, 5)},
                                              {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0, 1, 1], "ceil_mode": 1}),
    "avg_pool_exclude_pad": Case("AveragePool", {"x": X4}, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]}),
    "avg_pool_include_pad": Case("AveragePool", {"x": X4},
                                 {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2], "count_include_pad": 1}),
    "avg_pool_ceil_include_pad": Case("AveragePool", {"x": X4},
                                      {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 0], "ceil_mode": 1,
                                       "count_include_pad": 1}),
    "avg_pool_ceil_exclude_pad": Case("AveragePool", {"x": X4}, {"kernel_shape": [2, 3], "strides": [2, 2], "ceil_mode": 1}),
    "global_average_pool": Case("GlobalAveragePool", {"x": X4}),
    "global_max_pool": Case("GlobalMaxPool", {"x": X4}),
    "lrn": Case("LRN", {"x": rand(1, 6, 3, 3)}, {"size": 3, "alpha": 0.01, "beta": 0.6, "bias": 1.5}),
    "lrn_defaults": Case("LRN", {"x": rand(1, 6, 3, 3)}, {"size": 5}),
    "gemm": Case("Gemm", {"x": rand(3, 5), "b": rand(5, 4), "c": rand(4)}),
    "gemm_trans_alpha_beta": Case("Gemm", {"x": rand(5, 3), "b": rand(4, 5), "c": rand(3, 1)},
                                  {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}),
    "gemm_no_c": Case("Gemm", {"x": rand(2, 5), "b": rand(5, 3)}, {"alpha": 1.5}),
    "matmul_batched": Case("MatMul", {"x": rand(2, 3, 4), "b": rand(4, 5)}),
    "matmul_vector": Case("MatMul", {"x": rand(4), "b": rand(2, 4, 3)}),
    "softmax_axis": Case("Softmax", {"x": X4}, {"axis": 1}, opset=13),
    "softmax_default": Case("Softmax", {"x": rand(2, 3, 5) * 10}, opset=13),
    "dropout": Case("Dropout", {"x": X4}),
    "relu": Case("Relu", {"x": X4}),
    "sigmoid": Case("Sigmoid", {"x": X4 * 20}),
    "tanh": Case("Tanh", {"x": X4 * 3}),
    "hard_swish": Case("HardSwish", {"x": X4 * 3}),
    "leaky_relu": Case("LeakyRelu", {"x": X4}, {"alpha": 0.2}),
    "leaky_relu_default": Case("LeakyRelu", {"x": X4}),
    "hard_sigmoid": Case("HardSigmoid", {"x": X4 * 3}, {"alpha": 0.3, "beta": 0.4}),
    "swish": Case("Swish", {"x": X4 * 3}, {"alpha": 1.702}, opset=24),
    "neg": Case("Neg", {"x": X4}),
    "abs": Case("Abs", {"x": X4}),
    "exp": Case("Exp", {"x": X4 * 5}),
    "log": Case("Log", {"x": rand(1, 4, 7, 6, low=0.01, high=50)}),
    "sqrt": Case("Sqrt", {"x": rand(1, 4, 7, 6, low=0.0, high=50)}),
    "reciprocal": Case("Reciprocal", {"x": X4}),
    "elu": Case("Elu", {"x": X4 * 3}, {"alpha": 0.7}),
    "selu": Case("Selu", {"x": X4 * 3}),
    "softplus": Case("Softplus", {"x": X4 * 30}),
    "softsign": Case("Softsign", {"x": X4 * 3}),
    "erf": Case("Erf", {"x": X4 * 2}),
    "gelu": Case("Gelu", {"x": X4 * 3}, opset=20),
    "gelu_tanh": Case("Gelu", {"x": X4 * 3}, {"approximate": "tanh"}, opset=20),
    "sign": Case("Sign", {"x": np.array([[-2.0, 0.0, 3.0, -0.0]], np.float32)}),
    "shrink": Case("Shrink", {"x": X4}, {"lambd": 0.6, "bias": 0.25}),
    "pow_scalar": Case("Pow", {"x": X4, "e": np.float32(3.0)}),
    "pow_broadcast_fed": Case("Pow", {"x": rand(1, 4, 7, 6, low=0.1, high=3), "e": rand(6)}, fed=("x", "e")),
    "clip_attrs": Case("Clip", {"x": X4}, {"min": -0.5, "max": 0.75}, opset=10),
    "clip_inputs": Case("Clip", {"x": X4, "lo": np.float32(-1.0), "hi": np.float32(0.5)}, opset=13),
    "clip_max_only": Case("Clip", {"x": X4, "lo": None, "hi": np.float32(0.5)}, opset=13),
    "clip_min_above_max": Case("Clip", {"x": X4, "lo": np.float32(1.0), "hi": np.float32(0.5)}, opset=13),
    "add_broadcast": Case("Add", {"x": X4, "b": rand(7, 1)}),
    "sub": Case("Sub", {"x": X4, "b": rand(1, 4, 1, 1)}),
    "mul": Case("Mul", {"x": X4, "b": rand(6)}),
    "div": Case("Div", {"x": X4, "b": rand(1, 4, 7, 6, low=0.5, high=2)}),
    "div_int_truncates": Case("Div", {"x": INT_A, "b": INT_B}),
    "add_int": Case("Add", {"x": INT_A, "b": INT_B}),
    "sum": Case("Sum", {"x": X4, "b": rand(6), "c": rand(4, 1, 1)}),
    "prelu_channel": Case("PRelu", {"x": X4, "s": rand(4, 1, 1)}),
    "prelu_scalar_fed": Case("PRelu", {"x": X4, "s": rand(1)}, fed=("x", "s")),
    "max_three": Case("Max", {"x": X4, "b": rand(6), "c": rand(4, 1, 1)}, fed=("x", "b")),
    "max_one": Case("Max", {"x": X4}),
    "min_three": Case("Min", {"x": X4, "b": rand(7, 1), "c": rand(1, 4, 1, 6)}, fed=("x", "c")),
    "mean_three": Case("Mean", {"x": X4, "b": rand(6), "c": rand(4, 1, 1)}, fed=("x", "b", "c")),
    "floor": Case("Floor", {"x": X4 * 3}),
    "ceil": Case("Ceil", {"x": X4 * 3}),
    "round_halves_to_even": Case("Round", {"x": np.asarray([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6], np.float32)}),
    "equal_int": Case("Equal", {"x": INT_A, "b": np.asarray([7, 5, 0], np.int64)}),
    "equal_float_broadcast": Case("Equal", {"x": np.asarray([[1.0, 2.0], [2.0, 3.0]], np.float32),
                                            "b": np.asarray([2.0], np.float32)}),
    "where": Case("Where", {"c": np.asarray([[True, False, True], [False, False, True]]), "a": rand(2, 3),
                            "b": rand(3)}, fed=("c", "a", "b")),
    "concat": Case("Concat", {"x": X4, "b": rand(1, 2, 7, 6)}, {"axis": 1}),
    "concat_negative_axis": Case("Concat", {"x": X4, "b": rand(1, 4, 7, 2)}, {"axis": -1}),
    "reshape": Case("Reshape", {"x": X4, "shape": ints(0, -1, 3)}),
    "reshape_allowzero": Case("Reshape", {"x": X4, "shape": ints(2, 2, 42)}, {"allowzero": 1}, opset=14),
    "flatten": Case("Flatten", {"x": X4}, {"axis": 2}),
    "flatten_zero": Case("Flatten", {"x": X4}, {"axis": 0}),
    "flatten_negative": Case("Flatten", {"x": X4}, {"axis": -1}),
    "squeeze_attr": Case("Squeeze", {"x": rand(1, 3, 1, 2)}, {"axes": [2]}, opset=11),
    "squeeze_input": Case("Squeeze", {"x": rand(1, 3, 1, 2), "axes": ints(0, -2)}, opset=13),
    "squeeze_all": Case("Squeeze", {"x": rand(1, 3, 1, 2)}, opset=13),
    "unsqueeze_attr": Case("Unsqueeze", {"x": rand(3, 2)}, {"axes": [0, 3]}, opset=11),
    "unsqueeze_input": Case("Unsqueeze", {"x": rand(3, 2), "axes": ints(-1, 1)}, opset=13),
    "transpose": Case("Transpose", {"x": X4}, {"perm": [0, 2, 3, 1]}),
    "transpose_default": Case("Transpose", {"x": rand(2, 3, 4)}),
    "pad_constant_inputs": Case("Pad", {"x": X4, "pads": ints(0, 1, 2, 0, 0, 0, 1, 3), "v": np.float32(1.5)}, opset=13),
    "pad_reflect": Case("Pad", {"x": X4, "pads": ints(0, 0, 2, 1, 0, 0, 1, 2)}, {"mode": "reflect"}, opset=13),
    "pad_edge": Case("Pad", {"x": X4, "pads": ints(0, 0, 2, 1, 0, 0, 1, 2)}, {"mode": "edge"}, opset=13),
    "pad_negative_crops": Case("Pad", {"x": X4, "pads": ints(0, 0, -1, 2, 0, 0, 1, -2)}, opset=13),
    "pad_attrs": Case("Pad", {"x": X4}, {"pads": [0, 0, 1, 1, 0, 0, 2, 0], "value": -3.0}, opset=10),
    "pad_axes": Case("Pad", {"x": X4, "pads": ints(1, 2, 3, 0), "v": None, "axes": ints(2, -1)}, opset=18),
    "resize_nearest_asymmetric_floor": resize_case("nearest", "asymmetric", [1, 1, 2, 3], nearest_mode="floor"),
    "resize_nearest_half_pixel": resize_case("nearest", "half_pixel", [1, 1, 1.6, 2.5]),
    "resize_nearest_prefer_ceil": resize_case("nearest", "half_pixel", [1, 1, 2, 2], nearest_mode="round_prefer_ceil"),
    "resize_nearest_align_corners": resize_case("nearest", "align_corners", None, [1, 2, 9, 7]),
    "resize_nearest_ceil_down": resize_case("nearest", "pytorch_half_pixel", [1, 1, 0.6, 0.5], nearest_mode="ceil"),
    "resize_linear_half_pixel": resize_case("linear", "half_pixel", [1, 1, 2, 2]),
    "resize_linear_align_corners": resize_case("linear", "align_corners", None, [1, 2, 8, 11]),
    "resize_linear_asymmetric": resize_case("linear", "asymmetric", [1, 1, 1.5, 3]),
    "resize_linear_pytorch_down": resize_case("linear", "pytorch_half_pixel", None, [1, 2, 3, 1]),
    "resize_linear_symmetric": resize_case("linear", "half_pixel_symmetric", [1, 1, 1.7, 0.8]),
    "resize_axes": Case("Resize", {"x": rand(1, 2, 5, 4), "roi": None, "scales": np.asarray([2.0, 3.0], np.float32)},
                        {"axes": [2, 3]}, opset=19),
    "resize_opset11_empty_scales": Case("Resize", {"x": rand(1, 2, 3, 4), "roi": np.zeros(0, np.float32),
                                                   "scales": np.zeros(0, np.float32), "sizes": ints(1, 2, 6, 5)},
                                        {"mode": "nearest"}, opset=11),
    "upsample_attr": Case("Upsample", {"x": rand(1, 2, 3, 4)}, {"scales": [1.0, 1.0, 2.0, 3.0]}, opset=7),
    "upsample_input_linear": Case("Upsample", {"x": rand(1, 2, 3, 4), "s": np.asarray([1, 1, 2, 2], np.float32)},
                                  {"mode": "linear"}, opset=9),
    "constant_of_shape_default": Case("ConstantOfShape", {"x": ints(2, 3)}, fed=()),
    "constant_of_shape_int": Case("ConstantOfShape", {"x": ints(3, 1)},
                                  {"value": numpy_helper.from_array(np.asarray([7], np.int32))}, fed=()),
    "shape": Case("Shape", {"x": X4}),
    "size": Case("Size", {"x": X4}),
    "expand_both_ways": Case("Expand", {"x": rand(3, 1), "s": ints(2, 1, 4)}),
    "tile": Case("Tile", {"x": rand(2, 3), "r": ints(2, 3)}),
    "range_int": Case("Range", {"a": np.int64(2), "b": np.int64(11), "d": np.int64(3)}, fed=()),
    "range_float_down": Case("Range", {"a": np.float32(1.0), "b": np.float32(-1.0), "d": np.float32(-0.3)}, fed=()),
    "range_empty": Case("Range", {"a": np.int64(5), "b": np.int64(1), "d": np.int64(2)}, fed=()),
    "shape_start_end": Case("Shape", {"x": X4}, {"start": 1, "end": -1}, opset=15),
    "gather": Case("Gather", {"x": X4, "i": ints(2, -1, 0)}, {"axis": 2}),
    "gather_2d_indices": Case("Gather", {"x": rand(5, 3), "i": np.asarray([[0, 4], [-2, 1]], np.int64)}),
    "gather_scalar_index": Case("Gather", {"x": rand(5, 3), "i": np.asarray(-1, np.int64)}, {"axis": 0}),
    "slice_steps_negative": Case("Slice", {"x": X4, "s": ints(-1, 1), "e": ints(-100, 7), "a": ints(3, 2), "st": ints(-2, 3)}),
    "slice_clamped": Case("Slice", {"x": X4, "s": ints(1, -3), "e": ints(2**62, 100)}, opset=13),
    "slice_attrs": Case("Slice", {"x": X4}, {"starts": [1, 0], "ends": [3, -1], "axes": [1, 3]}, opset=9),
    "cast_to_int32": Case("Cast", {"x": X4 * 10}, {"to": TensorProto.INT32}),
    "cast_to_int8": Case("Cast", {"x": X4 * 30}, {"to": TensorProto.INT8}),
    "cast_int_to_float": Case("Cast", {"x": INT_A}, {"to": TensorProto.FLOAT}),
    "cast_to_bool": Case("Cast", {"x": np.asarray([0.0, -0.5, 2.0], np.float32)}, {"to": TensorProto.BOOL}),
    "identity": Case("Identity", {"x": INT_A}),
    "reduce_mean_attr": Case("ReduceMean", {"x": X4}, {"axes": [2, 3]}),
    "reduce_mean_input_nokeep": Case("ReduceMean", {"x": X4, "a": ints(1, -1)}, {"keepdims": 0}, opset=18),
    "reduce_mean_all": Case("ReduceMean", {"x": X4}, {"keepdims": 0}),
    "reduce_max_attr": Case("ReduceMax", {"x": X4}, {"axes": [1]}),
    "reduce_max_noop": Case("ReduceMax", {"x": X4}, {"noop_with_empty_axes": 1}, opset=18),
    "reduce_sum_attr": Case("ReduceSum", {"x": X4}, {"axes": [2], "keepdims": 0}, opset=11),
    "reduce_sum_input": Case("ReduceSum", {"x": X4, "a": ints(1, -1)}),
    "reduce_min_attr": Case("ReduceMin", {"x": X4}, {"axes": [0, 3]}),
    "reduce_min_input_nokeep": Case("ReduceMin", {"x": X4, "a": ints(1)}, {"keepdims": 0}, opset=18),
    "log_softmax_axis1": Case("LogSoftmax", {"x": X4 * 10}, {"axis": 1}),
    "log_softmax_last": Case("LogSoftmax", {"x": X4}),
    "layer_norm_last": Case("LayerNormalization", {"x": X4, "s": rand(6), "b": rand(6)}, {"epsilon": 1e-3}),
    "layer_norm_axis1_no_bias": Case("LayerNormalization", {"x": X4, "s": rand(4, 7, 6)}, {"axis": 1}),
    "quantize_int8": Case("QuantizeLinear", {"x": X4 * 4, "s": np.float32(0.02), "z": np.int8(-3)}),
    "quantize_uint8": Case("QuantizeLinear", {"x": X4 * 4, "s": np.float32(0.01), "z": np.uint8(128)}),
    "quantize_no_zero_point": Case("QuantizeLinear", {"x": X4, "s": np.float32(0.01)}),
    "quantize_ties_to_even": Case("QuantizeLinear", {"x": np.asarray([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], np.float32),
                                                     "s": np.float32(1.0), "z": np.int8(0)}),
    "quantize_per_axis": Case("QuantizeLinear", {"x": X4, "s": rand(4, low=0.005, high=0.02),
                                                 "z": np.asarray([0, 5, -5, 100], np.int8)}, {"axis": 1}),
    "dequantize_int8": Case("DequantizeLinear", {"x": RNG.integers(-128, 128, (1, 4, 3, 3)).astype(np.int8),
                                                 "s": np.float32(0.05), "z": np.int8(7)}),
    "dequantize_per_axis": Case("DequantizeLinear", {"x": RNG.integers(-128, 128, (4, 3, 2)).astype(np.int8),
                                                     "s": rand(4, low=0.01, high=0.1), "z": np.zeros(4, np.int8)}, {"axis": 0}),
    "dequantize_int32": Case("DequantizeLinear", {"x": RNG.integers(-(2**20), 2**20, (6,)).astype(np.int32),
                                                  "s": rand(6, low=1e-4, high=1e-3), "z": np.zeros(6, np.int32)},
                              {"axis": 0}),
    "dequantize_uint8": Case("DequantizeLinear", {"x": RNG.integers(0, 256, (5, 2)).astype(np.uint8),
                                                  "s": np.float32(0.1), "z": np.uint8(128)}),
}  # fmt: skip

CONSTANT_CASES: dict[str, Case] = {
    "constant_value": Case("Constant", {}, {"value": numpy_helper.from_array(rand(2, 3))}, fed=()),
    "constant_value_float": Case("Constant", {}, {"value_float": 2.5}, fed=()),
    "constant_value_floats": Case("Constant", {}, {"value_floats": [1.0, -2.0]}, fed=()),
    "constant_value_int": Case("Constant", {}, {"value_int": -4}, fed=()),
    "constant_value_ints": Case("Constant", {}, {"value_ints": [3, 1, 4]}, fed=()),
}


@pytest.mark.parametrize("name", sorted({**CASES, **CONSTANT_CASES}))
def test_op_matches_onnxruntime(name: str) -> None:
    case = {**CASES, **CONSTANT_CASES}[name]
    (want,) = onnxruntime_run(case.model(), case.feeds())
    assert_matches(interpret(case), want)


SPLITS: dict[str, tuple[int, dict[str, Any], np.ndarray | None]] = {
    # name: (opset, attributes, sizes input); X4 is [1, 4, 7, 6]
    "split_attribute": (11, {"axis": 1, "split": [1, 3]}, None),
    "split_input_negative_axis": (13, {"axis": -1}, ints(2, 1, 3)),
    "split_equal": (13, {"axis": 3}, None),
    "split_num_outputs_uneven": (18, {"axis": 2, "num_outputs": 3}, None),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_matches_onnxruntime(name: str) -> None:
    """Split has several outputs (Case builds one): every output against onnxruntime."""
    opset, attrs, sizes = SPLITS[name]
    count = len(attrs.get("split", [])) or (len(sizes) if sizes is not None else attrs.get("num_outputs", 2))
    outs = [f"y{i}" for i in range(count)]
    inputs = ["x"] + (["sizes"] if sizes is not None else [])
    node = helper.make_node("Split", inputs, outs, name="node", **attrs)
    inits = [numpy_helper.from_array(sizes, "sizes")] if sizes is not None else []
    graph = helper.make_graph([node], "split", [helper.make_tensor_value_info("x", TensorProto.FLOAT, X4.shape)],
                              [helper.make_value_info(o, onnx.TypeProto()) for o in outs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    want = onnxruntime_run(model, {"x": X4})
    got = run_module(import_model(model), [X4])
    assert len(got) == len(want) == count
    for g, w in zip(got, want, strict=True):
        assert_matches(g, w)


def test_every_onnx_op_is_covered() -> None:
    covered = {c.op for c in [*CASES.values(), *CONSTANT_CASES.values()]} | {"Silu", "Split"}
    assert {op.name.removeprefix("onnx.") for op in ONNX_OPS} == covered


def test_silu_is_x_times_sigmoid() -> None:
    x = rand(2, 3, 4) * 8
    case = Case("Silu", {"x": x}, domain="com.microsoft")
    expected = x.astype(np.float64) / (1.0 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(interpret(case), expected, rtol=1e-6, atol=1e-7)


def test_generic_op_raises_naming_its_type() -> None:
    graph = helper.make_graph(
        [helper.make_node("Foo", ["x"], ["y"], name="foo", domain="my.domain")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("my.domain", 1)]
    module = import_model(helper.make_model(graph, opset_imports=opsets, ir_version=10))
    with pytest.raises(InterpretationError, match="'my.domain.Foo'"):
        run_module(module, [rand(2)])


def test_dropout_mask_is_all_true_in_inference() -> None:
    graph = helper.make_graph(
        [helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_value_info("y", onnx.TypeProto()), helper.make_value_info("mask", onnx.TypeProto())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    x = rand(2, 3)
    y, mask = run_module(import_model(model), [x])
    want_y, want_mask = onnxruntime_run(model, {"x": x})
    assert_matches(y, want_y)
    assert mask.dtype == want_mask.dtype == np.bool_ and mask.all() and want_mask.all()


def test_dropout_in_training_mode_is_refused() -> None:
    case = Case("Dropout", {"x": rand(3), "r": np.float32(0.5), "t": np.asarray(True)}, opset=13)
    with pytest.raises(InterpretationError, match="training_mode"):
        interpret(case)


def test_softmax_before_opset_13_normalizes_the_flattened_tail() -> None:
    """Pre-13 Softmax coerces to 2-D at `axis`; the importer emits Reshape/Softmax/Reshape."""
    case = Case("Softmax", {"x": rand(2, 3, 4)}, {"axis": 1}, opset=11)
    (want,) = onnxruntime_run(case.model(), case.feeds())
    assert_matches(interpret(case), want)


def test_ceil_mode_pool_whose_last_window_starts_in_the_padding_is_a_clear_error() -> None:
    """ONNX shape inference keeps a ceil-mode window that starts in the end padding (3x3);
    onnxruntime drops it (2x2). The importer refuses the disagreement, naming the node."""
    case = Case("MaxPool", {"x": rand(1, 1, 4, 4)}, {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0, 1, 1], "ceil_mode": 1})
    (want,) = onnxruntime_run(case.model(), case.feeds())
    assert want.shape == (1, 1, 2, 2)
    with pytest.raises(OnnxImportError, match=r"MaxPool.*with ceil_mode the output is \(1, 1, 2, 2\)"):
        interpret(case)
