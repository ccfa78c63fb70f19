"""The C float32 reference kernels, op by op and on the model zoo, against onnxruntime.

Each case is a small ONNX model (mostly one node) compiled with `compile_bytes` at a budget
where it is one untiled stage, run op by op by runtime/tests/run_ops.c (no executor: every
tensor has its own buffer), plain and under ASan/UBSan, and compared with onnxruntime: within
1e-5 of the largest output magnitude per op, 1e-4 for whole zoo models. Each case also names
the `.tgrs` op types the plan must contain, so a case tests the kernel it means to.

Band cases run one op (or a short chain) with its output held as rows [a, b) and every
input holding only the rows `transforms/plan/bands.py` says that band needs, as a tiled
stage does: the band must equal the same rows of the whole result, and dropping a needed
row must be reported as TIGRIS_KERNEL_ERR_BAND. Window cases do the same for 2-D tiles
(rows x columns, test/support/kernel_windows.py) on random convolutions and pools, in the fast
and the reference-only build. A few plans the compiler does not emit (negative pads,
CHANNELS_LAST constants) are written directly with the `.tgrs` writer.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from kernel_windows import WindowOp, assert_refused, builds, check_windows, random_window_op, run_tiles
from runtime_ops import RunOpsError, run_ops_binary, run_plan_ops, to_runtime
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.enums import DType, OpFlag, OpType, WeightLayout
from tigris.emit.tgrs.model import Op, PlanFile, Stage, Tensor, Weight, WeightBlock
from tigris.tools.cli import compile_bytes

BUDGET = 64 << 20  # every case fits in one untiled stage
OP_TOL = 1e-5
MODEL_TOL = 1e-4
RNG = np.random.default_rng(7)


def rand(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def ints(*values: int) -> np.ndarray:
    return np.asarray(values, np.int64)


def f32(value: float) -> np.ndarray:
    return np.asarray(value, np.float32)


@dataclass
class Case:
    """Nodes over graph inputs `fed` (name -> shape) and initializers `consts`; the last
    node's first output `y` is the model output (`outputs` may name more). `expect` names op
    types the plan holds."""

    nodes: list[onnx.NodeProto]
    fed: dict[str, tuple[int, ...]]
    expect: tuple[str, ...]
    consts: dict[str, np.ndarray] = field(default_factory=dict)
    opset: int = 17
    outputs: tuple[str, ...] = ("y",)

    def model(self) -> onnx.ModelProto:
        inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in self.fed.items()]
        inits = [numpy_helper.from_array(v, n) for n, v in self.consts.items()]
        outputs = [helper.make_value_info(name, onnx.TypeProto()) for name in self.outputs]
        graph = helper.make_graph(self.nodes, "case", inputs, outputs, inits)
        opsets = [helper.make_opsetid("", self.opset)]
        model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
        return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def node(op: str, inputs: list[str], out: str = "y", **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, inputs, [out], **attrs)


def one(op: str, fed: dict[str, tuple[int, ...]], consts: dict[str, np.ndarray] | None = None,
        order: list[str] | None = None, expect: tuple[str, ...] = (), opset: int = 17, **attrs: Any) -> Case:
    """One node; operands in `order` (default: fed inputs, then constants; '' = absent)."""
    consts = consts or {}
    names = order if order is not None else [*fed, *consts]
    return Case([node(op, names, **attrs)], fed, expect, consts, opset)


# -- cases --------------------------------------------------------------------------------------


def conv(cin: int, cout: int, k: tuple[int, int], group: int = 1, bias: bool = True, shape=(1, 8, 8),
         expect: str = "CONV", **attrs: Any) -> Case:
    n, h, w = shape
    consts = {"w": rand(cout, cin // group, *k, scale=0.3)}
    if bias:
        consts["b"] = rand(cout, scale=0.1)
    return one("Conv", {"x": (n, cin, h, w)}, consts, expect=(expect,), group=group, kernel_shape=list(k), **attrs)


def conv1d(cin: int, cout: int, k: int, group: int = 1, length: int = 16, **attrs: Any) -> Case:
    consts = {"w": rand(cout, cin // group, k, scale=0.3), "b": rand(cout, scale=0.1)}
    return one("Conv", {"x": (2, cin, length)}, consts, expect=("CONV1D",), group=group, kernel_shape=[k], **attrs)


def conv_transpose(cin: int, cout: int, k: tuple[int, ...], group: int = 1, spatial=(5, 6), **attrs: Any) -> Case:
    consts = {"w": rand(cin, cout // group, *k, scale=0.3), "b": rand(cout, scale=0.1)}
    return one("ConvTranspose", {"x": (1, cin, *spatial)}, consts, expect=("CONV_TRANSPOSE",), group=group,
               kernel_shape=list(k), **attrs)


def fused(act: str) -> Case:
    """Conv + Relu / Clip(0, 6): the activation is fused into the conv (no op of its own)."""
    consts = {"w": rand(6, 3, 3, 3, scale=0.5), "b": rand(6, scale=0.5)}
    nodes = [node("Conv", ["x", "w", "b"], "c", kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    if act == "relu":
        nodes.append(node("Relu", ["c"]))
    else:
        consts.update(lo=f32(0.0), hi=f32(6.0))
        nodes.append(node("Clip", ["c", "lo", "hi"]))
    return Case(nodes, {"x": (1, 3, 7, 7)}, ("CONV",), consts)


def pool(op: str, shape=(1, 4, 9, 10), **attrs: Any) -> Case:
    return one(op, {"x": shape}, expect=("MAX_POOL" if op == "MaxPool" else "AVG_POOL",), **attrs)


def binary(op: str, a: tuple[int, ...] | np.ndarray, b: tuple[int, ...] | np.ndarray) -> Case:
    """An element-wise op; a shape is a graph input, an array a constant (kept in its operand slot)."""
    fed, consts = {}, {}
    for name, v in (("a", a), ("b", b)):
        if isinstance(v, np.ndarray):
            consts[name] = v
        else:
            fed[name] = v
    return one(op, fed, consts, order=["a", "b"], expect=(op.upper(),))


def then_relu(case: Case, expect: tuple[str, ...]) -> Case:
    """`case` followed by Relu, so a data-movement op is not the (trimmed) model output."""
    case.nodes[-1].output[0] = "t"
    return Case([*case.nodes, node("Relu", ["t"])], case.fed, expect, case.consts, case.opset)


def pinned_transpose(shape: tuple[int, ...], perm: list[int]) -> Case:
    """x + a -> Transpose -> + b, a and b full-size constants: adds of a tensor pin the layout on
    both sides (fold-layout-transposes moves a transpose only through layout-agnostic ops; alone,
    this one would fold into the model input), so the plan keeps the TRANSPOSE."""
    out = tuple(shape[p] for p in perm)
    nodes = [node("Add", ["x", "a"], "xa"), node("Transpose", ["xa"], "t", perm=perm), node("Add", ["t", "b"])]
    return Case(nodes, {"x": shape}, ("ADD", "TRANSPOSE"), {"a": rand(*shape), "b": rand(*out)})


def resize(mode: str, ctm: str, scales: tuple[float, ...], nearest: str = "round_prefer_floor",
           shape=(1, 3, 5, 4)) -> Case:
    consts = {"scales": np.asarray(scales, np.float32)}
    return one("Resize", {"x": shape}, consts, order=["x", "", "scales"], expect=("RESIZE",), mode=mode,
               coordinate_transformation_mode=ctm, nearest_mode=nearest)


def pad(mode: str, pads: tuple[int, ...], value: float | None = None, shape=(1, 3, 5, 6)) -> Case:
    consts = {"pads": ints(*pads)}
    order = ["x", "pads"]
    if value is not None:
        consts["value"] = f32(value)
        order.append("value")
    return one("Pad", {"x": shape}, consts, order=order, expect=("PAD",), mode=mode)


def clip(lo: float | None, hi: float | None) -> Case:
    consts, order = {}, ["x"]
    for name, v in (("lo", lo), ("hi", hi)):
        if v is None:
            order.append("")
        else:
            consts[name] = f32(v)
            order.append(name)
    while order[-1] == "":
        order.pop()
    return one("Clip", {"x": (1, 4, 5, 5)}, consts, order=order, expect=("CLIP",))


def norm(op: str, shape: tuple[int, ...]) -> Case:
    c = shape[1]
    consts = {"scale": rand(c), "bias": rand(c)}
    if op == "BatchNormalization":
        consts.update(mean=rand(c, scale=0.3), var=(RNG.uniform(0.5, 2.0, c)).astype(np.float32))
        return one(op, {"x": shape}, consts, expect=("BATCH_NORM",), epsilon=1e-3)
    return one(op, {"x": shape}, consts, expect=("INST_NORM",), epsilon=1e-4)


def reduce_mean(shape: tuple[int, ...], axes: list[int], keepdims: int) -> Case:
    return one("ReduceMean", {"x": shape}, expect=("REDUCE_MEAN",), axes=axes, keepdims=keepdims)


def reduce_op(op: str, shape: tuple[int, ...], axes: list[int], keepdims: int) -> Case:
    """ReduceSum (axes an input from opset 13), ReduceMax/ReduceMin (an attribute before 18)."""
    expect = ("REDUCE_" + op.removeprefix("Reduce").upper(),)
    if op == "ReduceSum":
        return one(op, {"x": shape}, {"axes": ints(*axes)}, expect=expect, keepdims=keepdims)
    return one(op, {"x": shape}, expect=expect, axes=axes, keepdims=keepdims)


def layer_norm(shape: tuple[int, ...], axis: int, bias: bool = True) -> Case:
    params = shape[axis % len(shape):]
    consts = {"scale": rand(*params) + 1.0, **({"b": rand(*params)} if bias else {})}
    return one("LayerNormalization", {"x": shape}, consts, expect=("LAYER_NORM",), axis=axis, epsilon=1e-3)


def conv_flatten_gemm(also_output: bool = False) -> Case:
    """Conv -> Flatten -> Gemm; with `also_output` the flatten is a model output too (second)."""
    consts = {"w": rand(4, 3, 3, 3, scale=0.3), "b": rand(4, scale=0.1), "fw": rand(5, 4 * 5 * 6, scale=0.2),
              "fb": rand(5)}
    nodes = [node("Conv", ["x", "w", "b"], "c", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             node("Flatten", ["c"], "f", axis=1), node("Gemm", ["f", "fw", "fb"], transB=1)]
    return Case(nodes, {"x": (2, 3, 5, 6)}, ("CONV", "FLATTEN", "FULLY_CONN"), consts,
                outputs=("y", "f") if also_output else ("y",))


def matmul(a: tuple[int, ...] | np.ndarray, b: tuple[int, ...] | np.ndarray, expect: str = "MATMUL") -> Case:
    case = binary("MatMul", a, b)
    case.expect = (expect,)
    return case


def split(shape: tuple[int, ...], axis: int, outs: list[str], consts: dict[str, np.ndarray] | None = None,
          opset: int = 17, **attrs: Any) -> Case:
    """Split of input x (sizes from `consts`' one input, or attributes) into `outs`, all outputs."""
    consts = consts or {}
    nodes = [helper.make_node("Split", ["x", *consts], outs, axis=axis, **attrs)]
    return Case(nodes, {"x": shape}, ("SLICE",), consts, opset, tuple(outs))


CASES: dict[str, Callable[[], Case]] = {
    # convolutions
    "conv_3x3_pad1": lambda: conv(3, 8, (3, 3), pads=[1, 1, 1, 1]),
    "conv_stride2_asym_pads": lambda: conv(4, 6, (3, 3), strides=[2, 2], pads=[0, 1, 1, 0], shape=(1, 9, 10)),
    "conv_dilation2": lambda: conv(3, 5, (3, 3), dilations=[2, 2], pads=[2, 1, 2, 1], shape=(1, 11, 9)),
    "conv_groups2": lambda: conv(4, 6, (3, 3), group=2, pads=[1, 1, 1, 1]),
    "conv_1x1_no_bias_batch2": lambda: conv(5, 7, (1, 1), bias=False, shape=(2, 6, 5)),
    "conv_5x3_stride_2x1": lambda: conv(3, 4, (5, 3), strides=[2, 1], pads=[2, 1, 2, 1], shape=(1, 12, 7)),
    "conv_fused_relu": lambda: fused("relu"),
    "conv_fused_relu6": lambda: fused("relu6"),
    "depthwise_3x3": lambda: conv(6, 6, (3, 3), group=6, pads=[1, 1, 1, 1], expect="DEPTHWISE"),
    "depthwise_multiplier2_stride2": lambda: conv(4, 8, (3, 3), group=4, strides=[2, 2], pads=[1, 1, 1, 1],
                                                  expect="DEPTHWISE"),
    "depthwise_dilation2_5x5": lambda: conv(3, 3, (5, 5), group=3, dilations=[2, 2], pads=[4, 4, 4, 4],
                                            shape=(2, 9, 8), expect="DEPTHWISE"),
    "conv1d_k3": lambda: conv1d(3, 6, 3, pads=[1, 1]),
    "conv1d_stride2_dilation2_groups2": lambda: conv1d(4, 6, 3, group=2, strides=[2], dilations=[2], pads=[2, 1]),
    "conv_transpose_s2_outpad": lambda: conv_transpose(4, 6, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1],
                                                       output_padding=[1, 1]),
    "conv_transpose_groups2_dilation2": lambda: conv_transpose(4, 6, (3, 2), group=2, dilations=[2, 2],
                                                               strides=[1, 2], pads=[0, 1, 2, 0]),
    "conv_transpose_1d": lambda: conv_transpose(3, 4, (4,), spatial=(7,), strides=[3], pads=[1, 2]),
    "conv_transpose_1d_groups2_outpad_dilation2": lambda: conv_transpose(4, 6, (3,), group=2, spatial=(6,),
                                                                         strides=[2], dilations=[2], pads=[1, 0],
                                                                         output_padding=[1]),
    # dense
    "gemm_bias": lambda: one("Gemm", {"x": (3, 20)}, {"w": rand(7, 20), "b": rand(7)}, expect=("FULLY_CONN",),
                             transB=1),
    "matmul_constant_2d": lambda: matmul((4, 9), rand(9, 5), expect="FULLY_CONN"),
    "flatten_gemm_nk_hwc": lambda: Case(
        [node("Flatten", ["x"], "f", axis=1), node("Gemm", ["f", "w", "b"], transB=1)],
        {"x": (2, 3, 4, 5)}, ("FLATTEN", "FULLY_CONN"), {"w": rand(6, 60, scale=0.2), "b": rand(6)}),
    "matmul_activations_batched": lambda: matmul((2, 3, 4), (2, 4, 5)),
    "matmul_broadcast_batch": lambda: matmul((3, 4), (2, 4, 6)),
    "matmul_rank4_constant_rhs": lambda: matmul((2, 3, 4, 5), rand(5, 6)),
    "matmul_constant_lhs_rank3": lambda: matmul(rand(2, 3, 4), (2, 4, 5)),
    "matmul_broadcast_rank4": lambda: matmul((2, 1, 3, 4), (1, 3, 4, 2)),
    # pools
    "max_pool_3x3_s2_p1": lambda: pool("MaxPool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "max_pool_ceil": lambda: pool("MaxPool", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "max_pool_dilation2": lambda: pool("MaxPool", kernel_shape=[2, 3], dilations=[2, 2], pads=[1, 0, 1, 2]),
    "max_pool_1d": lambda: pool("MaxPool", shape=(2, 3, 11), kernel_shape=[3], strides=[2], pads=[1, 1]),
    "avg_pool_exclude_pad": lambda: pool("AveragePool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "avg_pool_include_pad": lambda: pool("AveragePool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                         count_include_pad=1),
    "avg_pool_ceil_include_pad": lambda: pool("AveragePool", kernel_shape=[3, 2], strides=[2, 2], pads=[1, 1, 1, 0],
                                              ceil_mode=1, count_include_pad=1),
    "avg_pool_ceil_exclude_pad": lambda: pool("AveragePool", shape=(1, 4, 10, 10), kernel_shape=[2, 3], strides=[3, 2],
                                              ceil_mode=1),
    "avg_pool_1d": lambda: pool("AveragePool", shape=(1, 4, 10), kernel_shape=[4], strides=[3], pads=[1, 2]),
    "global_avg_pool": lambda: one("GlobalAveragePool", {"x": (2, 5, 7, 6)}, expect=("GLOBAL_AVG",)),
    "global_avg_pool_1d": lambda: one("GlobalAveragePool", {"x": (1, 5, 13)}, expect=("GLOBAL_AVG",)),
    "global_max_pool": lambda: one("GlobalMaxPool", {"x": (2, 5, 7, 6)}, expect=("GLOBAL_MAX",)),
    "reduce_max_spatial": lambda: one("ReduceMax", {"x": (1, 4, 6, 5)}, expect=("GLOBAL_MAX",), axes=[2, 3],
                                      keepdims=1),
    # element-wise with broadcasting
    "add_same_shape": lambda: binary("Add", (2, 3, 4, 5), (2, 3, 4, 5)),
    "add_channel_constant": lambda: binary("Add", (1, 4, 5, 6), rand(1, 4, 1, 1)),
    "add_chw_constant": lambda: binary("Add", (1, 3, 4, 5), rand(3, 4, 5)),
    "add_scalar_constant": lambda: binary("Add", (1, 3, 4, 5), f32(0.75)),
    "sub_row_constant": lambda: binary("Sub", (2, 3, 4, 5), rand(5)),
    "sub_height_column_constant": lambda: binary("Sub", (1, 3, 4, 5), rand(4, 1)),
    "sub_constant_first": lambda: binary("Sub", rand(1, 3, 1, 5), (2, 3, 4, 5)),
    "mul_activation_broadcast": lambda: binary("Mul", (2, 3, 4, 5), (2, 1, 4, 5)),
    "mul_se_gate": lambda: binary("Mul", (1, 6, 4, 4), (1, 6, 1, 1)),
    "mul_both_broadcast": lambda: binary("Mul", (1, 3, 1, 5), (2, 1, 4, 1)),
    "div_rank3": lambda: binary("Div", (2, 4, 7), np.abs(rand(7)) + 0.5),
    "div_rank2_by_rank1": lambda: binary("Div", (3, 8), np.abs(rand(8)) + 0.5),
    "div_constant_numerator": lambda: binary("Div", rand(4, 1, 1), (1, 4, 3, 2)),
    "add_rank5": lambda: binary("Add", (1, 2, 3, 4, 5), rand(2, 1, 1, 5)),
    # prelu, max, min (variadic: a chain), mean (adds, then a mul by 1/n), gemm of two activations
    "prelu_channel_4d": lambda: binary("PRelu", (1, 4, 5, 6), rand(4, 1, 1)),
    "prelu_scalar_slope": lambda: binary("PRelu", (1, 4, 5, 6), rand(1)),
    "prelu_channel_3d": lambda: binary("PRelu", (2, 3, 7), rand(3, 1)),
    "prelu_last_axis_4d": lambda: binary("PRelu", (2, 3, 4, 5), rand(5)),
    "prelu_channel_2d": lambda: binary("PRelu", (3, 6), rand(6)),
    "prelu_slope_activation": lambda: binary("PRelu", (1, 3, 4, 5), (3, 1, 1)),
    "max_same_shape": lambda: binary("Max", (2, 3, 4, 5), (2, 3, 4, 5)),
    "max_broadcast_both": lambda: binary("Max", (1, 3, 1, 5), (2, 1, 4, 1)),
    "max_channel_constant": lambda: binary("Max", (1, 4, 5, 6), rand(4, 1, 1)),
    "min_rank3_row": lambda: binary("Min", (2, 4, 7), (7,)),
    "min_constant_first": lambda: binary("Min", rand(1, 3, 1, 5), (2, 3, 4, 5)),
    "max_of_three": lambda: one("Max", {"a": (1, 3, 4, 5), "b": (1, 3, 4, 5), "c": (1, 1, 4, 5)}, expect=("MAX",)),
    "min_of_three": lambda: one("Min", {"a": (2, 6), "b": (1, 6), "c": (2, 1)}, expect=("MIN",)),
    "mean_of_three": lambda: one("Mean", {"a": (1, 3, 4, 5), "b": (1, 3, 4, 5), "c": (1, 3, 1, 1)},
                                 expect=("ADD", "MUL")),
    "gemm_activations": lambda: one("Gemm", {"a": (3, 5), "b": (5, 4)}, expect=("MATMUL",)),
    "gemm_activations_trans_alpha_beta": lambda: one("Gemm", {"a": (5, 3), "b": (4, 5), "c": (3, 4)},
                                                     expect=("MATMUL", "MUL", "ADD"), transA=1,
                                                     transB=1, alpha=0.5, beta=-1.5),
    "gemm_activations_constant_c": lambda: one("Gemm", {"a": (3, 6), "b": (6, 4)}, {"c": rand(1, 4)},
                                               expect=("MATMUL", "ADD"), beta=2.0),
    # activations
    "relu": lambda: one("Relu", {"x": (1, 4, 5, 6)}, expect=("RELU",)),
    "relu6": lambda: Case([node("Clip", ["x", "lo", "hi"])], {"x": (1, 4, 5, 6)}, ("RELU6",),
                          {"lo": f32(0.0), "hi": f32(6.0)}),
    "clip_both": lambda: clip(-0.5, 0.7),
    "clip_min_only": lambda: clip(-0.3, None),
    "clip_max_only": lambda: clip(None, 0.4),
    "leaky_relu": lambda: one("LeakyRelu", {"x": (1, 4, 5, 6)}, expect=("LEAKY_RELU",), alpha=0.2),
    "sigmoid": lambda: one("Sigmoid", {"x": (2, 3, 4, 5)}, expect=("SIGMOID",)),
    "sigmoid_rank2": lambda: one("Sigmoid", {"x": (3, 17)}, expect=("SIGMOID",)),
    "tanh": lambda: one("Tanh", {"x": (1, 4, 5, 6)}, expect=("TANH",)),
    "hard_swish": lambda: one("HardSwish", {"x": (1, 4, 5, 6)}, expect=("HARD_SWISH",)),
    # data movement on activations (kernels_move.c)
    "slice_hw_negative_step": lambda: one("Slice", {"x": (1, 6, 9, 10)}, {"s": ints(1, 8), "e": ints(8, 0),
                                          "a": ints(2, 3), "t": ints(2, -3)}, expect=("SLICE",)),
    "slice_channels_clamped": lambda: one("Slice", {"x": (2, 8, 5, 4)}, {"s": ints(-1, 1),
                                          "e": ints(-100, 99), "a": ints(1, 0), "t": ints(-2, 1)},
                                          expect=("SLICE",)),
    "slice_rank2_default_axes": lambda: one("Slice", {"x": (5, 7)}, {"s": ints(1, -100), "e": ints(100, 5)},
                                            expect=("SLICE",)),
    "split_three_channels": lambda: split((1, 7, 4, 5), 1, ["y", "y1", "y2"], {"s": ints(2, 3, 2)}),
    "split_equal_width_opset18": lambda: split((2, 3, 4, 6), -1, ["y", "y1"], opset=18, num_outputs=2),
    "split_attribute_opset11_rank3": lambda: split((3, 6, 5), 2, ["y", "y1"], opset=11, split=[1, 4]),
    "gather_channel_scalar_index": lambda: one("Gather", {"x": (1, 6, 4, 5)}, {"i": np.asarray(3, np.int64)},
                                               expect=("GATHER",), axis=1),
    "gather_rows_matrix_indices": lambda: one("Gather", {"x": (2, 3, 7, 4)},
                                              {"i": ints(6, 0, -1, 2).reshape(2, 2)}, expect=("GATHER",), axis=2),
    "gather_last_axis_int32": lambda: one("Gather", {"x": (3, 5, 6)}, {"i": np.asarray([5, 1, 1], np.int32)},
                                          expect=("GATHER",), axis=-1),
    "tile_every_axis": lambda: one("Tile", {"x": (1, 3, 2, 4)}, {"r": ints(2, 1, 3, 2)}, expect=("TILE",)),
    "tile_rank2": lambda: one("Tile", {"x": (3, 5)}, {"r": ints(2, 3)}, expect=("TILE",)),
    "expand_adds_leading_axes": lambda: one("Expand", {"x": (3, 1, 1)}, {"s": ints(2, 3, 4, 5)},
                                            expect=("TILE",)),
    "expand_channels_and_width": lambda: one("Expand", {"x": (1, 1, 4, 1)}, {"s": ints(1, 3, 1, 5)},
                                             expect=("TILE",)),
    "depth_to_space_dcr": lambda: one("DepthToSpace", {"x": (2, 8, 3, 4)}, expect=("TRANSPOSE",), blocksize=2),
    "depth_to_space_crd": lambda: one("DepthToSpace", {"x": (1, 18, 2, 3)}, expect=("TRANSPOSE",), blocksize=3,
                                      mode="CRD"),
    "space_to_depth": lambda: one("SpaceToDepth", {"x": (2, 3, 4, 6)}, expect=("TRANSPOSE",), blocksize=2),
    # element-wise math (kernels_f32_math.c); log, sqrt and pow 0.5 read |x| (standard normal inputs)
    "neg": lambda: one("Neg", {"x": (1, 4, 5, 6)}, expect=("NEG",)),
    "abs": lambda: one("Abs", {"x": (2, 3, 7)}, expect=("ABS",)),
    "exp": lambda: one("Exp", {"x": (1, 4, 5, 6)}, expect=("EXP",)),
    "log_of_abs": lambda: Case([node("Abs", ["x"], "a"), node("Log", ["a"])], {"x": (1, 4, 5, 6)}, ("ABS", "LOG")),
    "sqrt_of_abs": lambda: Case([node("Abs", ["x"], "a"), node("Sqrt", ["a"])], {"x": (3, 8)}, ("SQRT",)),
    "reciprocal": lambda: one("Reciprocal", {"x": (1, 4, 5, 6)}, expect=("RECIPROCAL",)),
    "elu": lambda: one("Elu", {"x": (1, 4, 5, 6)}, expect=("ELU",), alpha=0.7),
    "selu_default": lambda: one("Selu", {"x": (1, 4, 5, 6)}, expect=("SELU",)),
    "selu_params": lambda: one("Selu", {"x": (2, 9)}, expect=("SELU",), alpha=1.3, gamma=0.8),
    "softplus": lambda: Case([node("Mul", ["x", "k"], "m"), node("Softplus", ["m"])], {"x": (1, 4, 5, 6)},
                             ("SOFTPLUS",), {"k": f32(30.0)}),  # |x| up to ~100: the stable form
    "softsign": lambda: one("Softsign", {"x": (1, 4, 5, 6)}, expect=("SOFTSIGN",)),
    "erf": lambda: one("Erf", {"x": (1, 4, 5, 6)}, expect=("ERF",)),
    "gelu": lambda: one("Gelu", {"x": (1, 4, 5, 6)}, expect=("GELU",), opset=20),
    "gelu_tanh": lambda: one("Gelu", {"x": (2, 3, 10)}, expect=("GELU",), opset=20, approximate="tanh"),
    "hard_sigmoid": lambda: one("HardSigmoid", {"x": (1, 4, 5, 6)}, expect=("HARD_SIGMOID",), alpha=0.3,
                                beta=0.4),
    "sign": lambda: one("Sign", {"x": (1, 4, 5, 6)}, expect=("SIGN",)),
    "shrink": lambda: one("Shrink", {"x": (1, 4, 5, 6)}, expect=("SHRINK",), lambd=0.6, bias=0.25),
    "pow_square": lambda: one("Pow", {"x": (1, 4, 5, 6)}, {"e": f32(2.0)}, expect=("POW",)),
    "pow_cube_rank1_exponent": lambda: one("Pow", {"x": (2, 7)}, {"e": np.asarray([3.0], np.float32)},
                                           expect=("POW",)),
    "pow_half_of_abs": lambda: Case([node("Abs", ["x"], "a"), node("Pow", ["a", "e"])], {"x": (1, 4, 5, 6)},
                                    ("POW",), {"e": f32(0.5)}),
    "pow_tensor_exponent": lambda: Case([node("Abs", ["x"], "a"), node("Pow", ["a", "e"])],
                                        {"x": (1, 4, 5, 6), "e": (1, 4, 5, 6)}, ("POW_TENSOR",)),
    "pow_tensor_broadcast_channel_exponent": lambda: Case([node("Abs", ["x"], "a"), node("Pow", ["a", "e"])],
                                                          {"x": (1, 4, 5, 6)}, ("POW_TENSOR",), {"e": rand(4, 1, 1)}),
    "pow_tensor_base_broadcast_to_exponent": lambda: Case([node("Abs", ["x"], "a"), node("Pow", ["a", "e"])],
                                                          {"x": (5, 1), "e": (2, 5, 3)}, ("POW_TENSOR",)),
    "silu_swish": lambda: one("Swish", {"x": (1, 4, 5, 6)}, expect=("SILU",), opset=24),
    "swish_alpha_decomposed": lambda: one("Swish", {"x": (1, 4, 5, 6)}, expect=("MUL", "SIGMOID"), opset=24,
                                          alpha=1.702),
    # softmax
    "softmax_channels": lambda: one("Softmax", {"x": (1, 5, 3, 4)}, expect=("SOFTMAX",), axis=1),
    "softmax_last_rank4": lambda: one("Softmax", {"x": (2, 3, 4, 5)}, expect=("SOFTMAX",), axis=-1),
    "softmax_rank2": lambda: one("Softmax", {"x": (4, 10)}, expect=("SOFTMAX",), axis=-1),
    "softmax_rank3_axis2": lambda: one("Softmax", {"x": (2, 3, 6)}, expect=("SOFTMAX",), axis=2),
    # concat
    "concat_channels": lambda: one("Concat", {"a": (1, 3, 4, 5), "b": (1, 2, 4, 5), "c": (1, 4, 4, 5)},
                                   expect=("CONCAT",), axis=1),
    "concat_height": lambda: one("Concat", {"a": (1, 3, 4, 5), "b": (1, 3, 2, 5)}, expect=("CONCAT",), axis=2),
    "concat_width": lambda: one("Concat", {"a": (2, 3, 4, 5), "b": (2, 3, 4, 1)}, expect=("CONCAT",), axis=-1),
    "concat_batch": lambda: one("Concat", {"a": (1, 3, 4, 5), "b": (2, 3, 4, 5)}, expect=("CONCAT",), axis=0),
    "concat_constant_operand": lambda: one("Concat", {"x": (1, 2, 3, 4)}, {"c": rand(1, 3, 3, 4)},
                                           expect=("CONCAT",), axis=1),
    "concat_rank2": lambda: one("Concat", {"a": (2, 3), "b": (2, 5)}, expect=("CONCAT",), axis=1),
    "concat_rank3_length": lambda: one("Concat", {"a": (1, 3, 4), "b": (1, 3, 6)}, expect=("CONCAT",), axis=2),
    # pad
    "pad_constant_value": lambda: pad("constant", (0, 0, 1, 2, 0, 0, 2, 1), value=1.5),
    "pad_constant_channels": lambda: pad("constant", (0, 1, 0, 0, 0, 2, 0, 0)),
    "pad_reflect": lambda: pad("reflect", (0, 0, 2, 3, 0, 0, 1, 2)),
    "pad_edge": lambda: pad("edge", (0, 0, 3, 1, 0, 0, 2, 4)),
    "pad_edge_rank3": lambda: pad("edge", (0, 0, 2, 0, 0, 3), shape=(1, 4, 5)),
    "pad_reflect_rank2": lambda: pad("reflect", (1, 2, 0, 3), shape=(3, 6)),
    # resize
    "resize_nearest_asymmetric_floor": lambda: resize("nearest", "asymmetric", (1, 1, 2, 2), "floor"),
    "resize_nearest_half_pixel": lambda: resize("nearest", "half_pixel", (1, 1, 2, 3)),
    "resize_nearest_pytorch_half_pixel": lambda: resize("nearest", "pytorch_half_pixel", (1, 1, 3, 2)),
    "resize_nearest_channels": lambda: resize("nearest", "asymmetric", (1, 2, 2, 1), "floor"),
    "resize_nearest_rank3": lambda: resize("nearest", "asymmetric", (1, 1, 3), "floor", shape=(2, 3, 5)),
    "resize_linear_half_pixel": lambda: resize("linear", "half_pixel", (1, 1, 2, 3)),
    "resize_linear_asymmetric": lambda: resize("linear", "asymmetric", (1, 1, 3, 2)),
    "resize_linear_align_corners": lambda: resize("linear", "align_corners", (1, 1, 2, 2)),
    "resize_linear_pytorch_half_pixel": lambda: resize("linear", "pytorch_half_pixel", (1, 1, 4, 2)),
    # data movement
    "reshape_rank2": lambda: then_relu(one("Reshape", {"x": (4, 6)}, {"s": ints(3, 8)}), ("RESHAPE", "RELU")),
    "flatten_rank2": lambda: one("Flatten", {"x": (2, 3, 1, 1)}, expect=("FLATTEN",), axis=1),
    "squeeze": lambda: one("Squeeze", {"x": (1, 5, 1, 1)}, {"axes": ints(2, 3)}, expect=("SQUEEZE",)),
    "unsqueeze": lambda: one("Unsqueeze", {"x": (2, 5)}, {"axes": ints(2, 3)}, expect=("UNSQUEEZE",)),
    # reshapes between stored orders that differ: element i in model order goes to element i
    "flatten_feature_map": lambda: one("Flatten", {"x": (1, 2, 3, 4)}, expect=("FLATTEN",), axis=1),
    "flatten_axis2_batch2": lambda: one("Flatten", {"x": (2, 3, 4, 5)}, expect=("FLATTEN",), axis=2),
    "flatten_softmax": lambda: Case([node("Flatten", ["x"], "f", axis=1), node("Softmax", ["f"], axis=-1)],
                                    {"x": (1, 2, 3, 4)}, ("FLATTEN", "SOFTMAX")),
    "reshape_rank4_to_rank3": lambda: one("Reshape", {"x": (1, 2, 3, 4)}, {"s": ints(1, 6, 4)},
                                          expect=("RESHAPE",)),
    "reshape_rank3_to_rank4_relu": lambda: then_relu(one("Reshape", {"x": (2, 6, 5)}, {"s": ints(2, 3, 2, 5)}),
                                                     ("RESHAPE", "RELU")),
    "reshape_rank4_regroup_channels": lambda: one("Reshape", {"x": (1, 4, 3, 2)}, {"s": ints(1, 2, 6, 2)},
                                                  expect=("RESHAPE",)),
    "squeeze_unit_channels_batch2": lambda: one("Squeeze", {"x": (2, 1, 3, 4)}, {"axes": ints(1)},
                                                expect=("SQUEEZE",)),
    "unsqueeze_rank2_to_rank3": lambda: one("Unsqueeze", {"x": (3, 4)}, {"axes": ints(0)}, expect=("UNSQUEEZE",)),
    "unsqueeze_rank3_to_rank5": lambda: one("Unsqueeze", {"x": (2, 3, 4)}, {"axes": ints(1, 4)},
                                            expect=("UNSQUEEZE",)),
    # the NK_HWC path: a flatten only a dense layer reads stays a byte copy of the NHWC map
    "conv_flatten_gemm_nk_hwc": lambda: conv_flatten_gemm(),
    "transpose_to_nhwc": lambda: pinned_transpose((1, 3, 4, 5), [0, 2, 3, 1]),
    "transpose_swap_hw": lambda: pinned_transpose((2, 3, 4, 5), [0, 1, 3, 2]),
    "transpose_rank3": lambda: pinned_transpose((2, 3, 7), [2, 0, 1]),
    "transpose_rank2": lambda: pinned_transpose((3, 7), [1, 0]),
    # normalization and reduction
    "batch_norm": lambda: norm("BatchNormalization", (2, 5, 4, 3)),
    "batch_norm_rank2": lambda: norm("BatchNormalization", (3, 6)),
    "instance_norm": lambda: norm("InstanceNormalization", (2, 4, 6, 5)),
    "instance_norm_rank3": lambda: norm("InstanceNormalization", (1, 3, 20)),
    "reduce_mean_channels_keep": lambda: reduce_mean((2, 5, 3, 4), [1], 1),
    "reduce_mean_channels_drop": lambda: reduce_mean((2, 5, 3, 4), [1], 0),
    "reduce_mean_height_drop": lambda: reduce_mean((1, 3, 4, 5), [2], 0),
    "reduce_mean_width_keep": lambda: reduce_mean((1, 3, 4, 5), [-1], 1),
    "reduce_mean_all_but_batch": lambda: reduce_mean((2, 3, 4, 5), [1, 2, 3], 0),
    "reduce_mean_rank3": lambda: reduce_mean((2, 3, 8), [1], 1),
    "reduce_mean_no_axes_is_all": lambda: one("ReduceMean", {"x": (2, 3, 4, 5)}, expect=("REDUCE_MEAN",),
                                              opset=18, keepdims=1),
    "reduce_mean_noop_with_empty_axes": lambda: then_relu(one("ReduceMean", {"x": (2, 3, 4, 5)}, opset=18,
                                                              noop_with_empty_axes=1), ("RELU",)),
    # reductions, log_softmax, lrn, layer_norm (kernels_f32_reduce.c)
    "reduce_sum_channels_keep": lambda: reduce_op("ReduceSum", (2, 5, 3, 4), [1], 1),
    "reduce_sum_height_drop_attr": lambda: one("ReduceSum", {"x": (1, 2, 3, 4)}, expect=("REDUCE_SUM",), opset=11,
                                               axes=[2], keepdims=0),
    "reduce_sum_hw_drop": lambda: reduce_op("ReduceSum", (2, 3, 4, 5), [2, 3], 0),
    "reduce_sum_rank3_last": lambda: reduce_op("ReduceSum", (2, 3, 8), [-1], 1),
    "reduce_sum_all": lambda: one("ReduceSum", {"x": (2, 3, 4, 5)}, expect=("REDUCE_SUM",), keepdims=1),
    "reduce_max_channels_drop": lambda: reduce_op("ReduceMax", (2, 5, 3, 4), [1], 0),
    "reduce_max_width_keep": lambda: reduce_op("ReduceMax", (1, 3, 4, 5), [3], 1),
    "reduce_max_spatial_drop": lambda: reduce_op("ReduceMax", (1, 3, 4, 5), [2, 3], 0),
    "reduce_max_rank2": lambda: reduce_op("ReduceMax", (3, 7), [0], 1),
    "reduce_min_channels_width": lambda: reduce_op("ReduceMin", (2, 4, 3, 5), [1, 3], 1),
    "reduce_min_rank3": lambda: reduce_op("ReduceMin", (2, 3, 8), [1], 0),
    "log_softmax_axis1": lambda: one("LogSoftmax", {"x": (2, 5, 3, 4)}, expect=("LOG_SOFTMAX",), axis=1),
    "log_softmax_last": lambda: one("LogSoftmax", {"x": (2, 5, 3, 4)}, expect=("LOG_SOFTMAX",), axis=-1),
    "log_softmax_rank2_opset11": lambda: one("LogSoftmax", {"x": (4, 10)}, expect=("LOG_SOFTMAX",), opset=11),
    "lrn_size3": lambda: one("LRN", {"x": (2, 6, 4, 5)}, expect=("LRN",), size=3, alpha=0.02, beta=0.6, bias=1.5),
    "lrn_size5": lambda: one("LRN", {"x": (1, 8, 5, 3)}, expect=("LRN",), size=5),
    "lrn_size3_few_channels": lambda: one("LRN", {"x": (2, 2, 3, 6)}, expect=("LRN",), size=3, alpha=0.1, beta=0.9),
    "layer_norm_last_rank3": lambda: layer_norm((2, 5, 8), -1),
    "layer_norm_last_rank2": lambda: layer_norm((3, 16), -1, bias=False),
    "layer_norm_two_axes_rank4": lambda: layer_norm((2, 3, 4, 5), 2),
    "layer_norm_axis1_rank4": lambda: layer_norm((2, 3, 4, 5), 1),
}


def _op_names(data: bytes) -> set[str]:
    return {OpType(op.op_type).name for op in read_plan(data).ops}


def _inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
        for vi in model.graph.input
    }


def _error(got: np.ndarray, ref: np.ndarray) -> float:
    assert got.shape == ref.shape, f"shape {got.shape}, onnxruntime {ref.shape}"
    return float(np.max(np.abs(got - ref)) / max(float(np.max(np.abs(ref))), 1e-30))


def compile_model(model: onnx.ModelProto, tmp_path: Path, name: str = "case.onnx") -> tuple[Path, bytes]:
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path, compile_bytes(str(path), BUDGET)


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_onnxruntime(name: str, tmp_path: Path, run_onnxruntime: Callable) -> None:
    case = CASES[name]()
    model = case.model()
    path, data = compile_model(model, tmp_path)
    ops = _op_names(data)
    assert set(case.expect) <= ops, f"plan has {sorted(ops)}, the case tests {case.expect}"
    assert len(read_plan(data).stages) == 1
    inputs = _inputs(model)
    ref = run_onnxruntime(path, inputs)
    for sanitize in (False, True):
        got = run_plan_ops(data, list(inputs.values()), sanitize=sanitize)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            assert _error(g, r) <= OP_TOL, f"sanitize={sanitize}: error {_error(g, r):.3g}"


def test_zoo_models_match_onnxruntime(model_zoo: dict[str, Path], run_onnxruntime: Callable,
                                      random_inputs: Callable) -> None:
    errors: dict[str, float] = {}
    for name, path in model_zoo.items():
        if name.endswith("_int8"):
            continue
        data = compile_bytes(str(path), BUDGET)
        inputs = random_inputs(path, 0)
        ref = run_onnxruntime(path, inputs)
        for sanitize in (False, True):
            got = run_plan_ops(data, list(inputs.values()), sanitize=sanitize)
            errors[name] = max(_error(g, r) for g, r in zip(got, ref))
    print("max error vs onnxruntime:", {k: f"{v:.2e}" for k, v in errors.items()})
    assert errors and all(e <= MODEL_TOL for e in errors.values()), errors


# -- gather with indices computed at run time (an embedding lookup) -------------------------------


@pytest.mark.parametrize("index_type", [TensorProto.INT64, TensorProto.INT32])
def test_embedding_lookup_reads_run_time_indices(index_type: int, tmp_path: Path, run_onnxruntime: Callable,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Gather(constant table, int64/int32 model input): negative indices count from the end; an
    index outside [-10, 10) fails the run (TIGRIS_KERNEL_ERR_PARAMS), reading nothing."""
    table = rand(10, 3)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["y"], axis=0)], "embedding",
        [helper.make_tensor_value_info("ids", index_type, [2, 3])], [helper.make_value_info("y", onnx.TypeProto())],
        [numpy_helper.from_array(table, "table")])  # fmt: skip
    opsets = [helper.make_opsetid("", 17)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
    path, data = compile_model(onnx.shape_inference.infer_shapes(model, strict_mode=True), tmp_path)
    assert "GATHER" in _op_names(data)
    dtype = np.int64 if index_type == TensorProto.INT64 else np.int32
    ids = np.array([[9, 0, -1], [-10, 4, 4]], dtype)
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=0")  # run_ops exits without freeing on a kernel error
    (want,) = run_onnxruntime(path, {"ids": ids})
    for sanitize in (False, True):
        (got,) = run_plan_ops(data, [ids], sanitize=sanitize)
        np.testing.assert_array_equal(got, want)
        with pytest.raises(RunOpsError, match="missing table, scales, parameters"):
            run_plan_ops(data, [np.array([[0, 1, 2], [3, 10, 5]], dtype)], sanitize=sanitize)


# -- the reshape family: model order, or the stored bytes (TIGRIS_OPF_STORED_ORDER) ---------------


def _flatten_and_dense(data: bytes) -> tuple[Op, WeightLayout]:
    plan = read_plan(data)
    flatten = next(op for op in plan.ops if op.op_type == OpType.FLATTEN)
    dense = next(op for op in plan.ops if op.op_type == OpType.FULLY_CONN)
    assert dense.weight is not None
    weight = plan.tensors[dense.weight].weight
    assert weight is not None
    return flatten, plan.weights[weight].layout


def test_conv_transpose_1d_weight_is_oki(tmp_path: Path) -> None:
    """A 1-D conv_transpose's weight is stored OKI [O, K, I/g], like conv1d's (2-D: OHWI)."""
    _, data = compile_model(CASES["conv_transpose_1d_groups2_outpad_dilation2"]().model(), tmp_path)
    plan = read_plan(data)
    (op,) = plan.ops
    assert op.weight is not None
    weight = plan.tensors[op.weight]
    assert weight.weight is not None and plan.weights[weight.weight].layout == WeightLayout.OKI
    assert weight.shape == (6, 3, 2) and op.params == (1,)


def test_flatten_read_by_a_dense_layer_only_copies_the_stored_bytes(tmp_path: Path) -> None:
    """Conv -> Flatten -> Gemm: the flatten is a byte copy of the NHWC map (STORED_ORDER) and the
    dense weight's columns are in (h, w, c) order (NK_HWC); the result is ONNX's."""
    _, data = compile_model(conv_flatten_gemm().model(), tmp_path)
    flatten, layout = _flatten_and_dense(data)
    assert OpFlag.STORED_ORDER in flatten.flags and layout == WeightLayout.NK_HWC


def test_emitter_refuses_an_nk_hwc_layer_behind_a_model_order_flatten(tmp_path: Path) -> None:
    """A dense layer whose columns are in (h, w, c) order needs the flatten to copy the stored
    bytes: without `tgr.stored_order` (IR written by hand) the emitter refuses the module."""
    from xdsl.context import Context

    from tigris.dialects.onnx.importer import import_model_file
    from tigris.dialects.tgr.ops_shape import FlattenOp
    from tigris.emit.tgrs.from_ir import FromIrError, plan_file_from_module
    from tigris.dialects.tgr.plan_attrs import STORED_ORDER
    from tigris.transforms.pipelines import TigrisCompilePass

    path, _ = compile_model(conv_flatten_gemm().model(), tmp_path)
    module = import_model_file(path)
    TigrisCompilePass(budget=BUDGET).apply(Context(), module)
    (flatten,) = [op for op in module.walk() if isinstance(op, FlattenOp)]
    del flatten.attributes[STORED_ORDER]
    with pytest.raises(FromIrError, match="reads a flatten that is not tgr.stored_order"):
        plan_file_from_module(module)


def test_flatten_also_read_as_a_model_output_copies_in_model_order(tmp_path: Path,
                                                                    run_onnxruntime: Callable) -> None:
    """The same flatten as a model output too: it copies in model order (no STORED_ORDER), the dense
    layer keeps ONNX's columns (PLAIN), and both outputs are onnxruntime's."""
    model = conv_flatten_gemm(also_output=True).model()
    path, data = compile_model(model, tmp_path)
    flatten, layout = _flatten_and_dense(data)
    assert OpFlag.STORED_ORDER not in flatten.flags and layout == WeightLayout.PLAIN
    inputs = _inputs(model)
    ref = run_onnxruntime(path, inputs)
    got = run_plan_ops(data, list(inputs.values()), sanitize=True)
    assert len(got) == len(ref) == 2
    for g, r in zip(got, ref):
        assert _error(g, r) <= OP_TOL


def test_reshape_copies_stored_bytes_with_the_flag(tmp_path: Path) -> None:
    """A flatten of [1, 2, 3, 4] gives ONNX's order without the flag; with STORED_ORDER it copies
    the NHWC bytes, features in (h, w, c) order."""
    import dataclasses

    _, data = compile_model(CASES["flatten_feature_map"]().model(), tmp_path)
    x = rand(1, 2, 3, 4)
    nhwc = to_runtime(x).reshape(1, 24)
    (got,) = run_plan_ops(data, [x], sanitize=True)
    np.testing.assert_array_equal(got, x.reshape(1, 24))
    plan = read_plan(data)
    (op,) = plan.ops
    flagged = dataclasses.replace(plan, ops=[dataclasses.replace(op, flags=op.flags | OpFlag.STORED_ORDER)])
    (got,) = run_plan_ops(write_plan(flagged), [x], sanitize=True)
    np.testing.assert_array_equal(got, nhwc)


# -- reduce_mean without axes ------------------------------------------------------------------------

REDUCE_NOTHING = """
func.func @main(%x: tensor<2x3x4x5x{x}>) -> tensor<2x3x4x5x{y}> {{
  %r = tgr.relu %x : (tensor<2x3x4x5x{x}>) -> tensor<2x3x4x5x{x}>
  %m = tgr.reduce_mean %r {{axes = array<i64>, keepdims = 0 : i64}} : (tensor<2x3x4x5x{x}>) -> tensor<2x3x4x5x{y}>
  func.return %m : tensor<2x3x4x5x{y}>
}}
"""


@pytest.mark.parametrize(("x", "y"), [("f32", "f32"), ("!tgr.quant<i8, 0.05:3>", "!tgr.quant<i8, 0.1:-2>")],
                         ids=["float", "int8"])
def test_reduce_mean_without_axes_reduces_nothing(x: str, y: str) -> None:
    """A tgr.reduce_mean with empty axes reduces nothing, as its verifier and the interpreter read
    it (ONNX's noop_with_empty_axes; convert-onnx-to-tgr itself writes the axes out or drops the
    op): the plan's params are empty, and both kernel sets copy (int8: requantize) as the
    interpreter does."""
    from xdsl.context import Context
    from xdsl.parser import Parser

    from tigris.dialects import make_context
    from tigris.dialects.interpreter import run_module
    from tigris.emit.tgrs.from_ir import plan_file_from_module
    from tigris.transforms.pipelines import TigrisCompilePass

    module = Parser(make_context(), REDUCE_NOTHING.format(x=x, y=y)).parse_module()
    TigrisCompilePass(budget=BUDGET).apply(Context(), module)
    data = write_plan(plan_file_from_module(module))
    mean = next(op for op in read_plan(data).ops if op.op_type == OpType.REDUCE_MEAN)
    assert mean.params == ()
    rng = np.random.default_rng(5)
    if x == "f32":
        inputs = [rand(2, 3, 4, 5)]
    else:
        inputs = [rng.integers(-128, 128, (2, 3, 4, 5)).astype(np.int8)]
    (want,) = run_module(module, inputs)
    (got,) = run_plan_ops(data, inputs, sanitize=True)
    np.testing.assert_array_equal(got, want)
    if x == "f32":
        np.testing.assert_array_equal(got, np.maximum(inputs[0], 0))


# -- plans the compiler does not emit -----------------------------------------------------------


def _tensor(name: str, shape: tuple[int, ...], weight: int | None = None) -> Tensor:
    return Tensor(name, DType.F32, shape, weight=weight)


def _plan(tensors: list[Tensor], op: Op, weights: list[Weight] = ()) -> bytes:
    inputs = tuple(i for i, t in enumerate(tensors) if t.weight is None and i not in op.outputs)
    stage = Stage((0,), (), op.outputs, 0)
    return write_plan(PlanFile("hand", tensors, [op], [stage], inputs, op.outputs, weights=list(weights)))


def test_pad_negative_pads_crop_first() -> None:
    """pads may be negative (crop) in every mode; params in runtime order [N, H, W, C]."""
    x = rand(1, 3, 6, 7)
    model_pads = [0, 1, -2, 2, 0, -1, 1, -3]  # NCHW begins, ends
    runtime = [0, -2, 2, 1, 0, 1, -3, -1]
    for mode, name in ((0, "constant"), (1, "reflect"), (2, "edge")):
        out_shape = tuple(d + model_pads[i] + model_pads[4 + i] for i, d in enumerate(x.shape))
        op = Op(OpType.PAD, "pad", (0,), (1,), params=tuple(runtime), mode=mode, pad_value=-0.5)
        data = _plan([_tensor("x", x.shape), _tensor("y", out_shape)], op)
        crop = tuple(slice(max(0, -model_pads[i]), d - max(0, -model_pads[4 + i])) for i, d in enumerate(x.shape))
        widths = [(max(0, model_pads[i]), max(0, model_pads[4 + i])) for i in range(4)]
        kw = {"constant_values": -0.5} if name == "constant" else {}
        want = np.pad(x[crop], widths, mode=name, **kw)
        (got,) = run_plan_ops(data, [x], sanitize=True)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("const_shape", [(1, 4, 3, 5), (4, 3, 1), (1, 4, 1, 5)])
def test_add_channels_last_constant(const_shape: tuple[int, ...]) -> None:
    """A CHANNELS_LAST constant of rank >= 3 is stored like an activation; PLAIN in ONNX order."""
    x = rand(2, 4, 3, 5)
    c = rand(*const_shape)
    for layout, stored in ((WeightLayout.CHANNELS_LAST, to_runtime(c)), (WeightLayout.PLAIN, c)):
        tensors = [_tensor("x", x.shape), _tensor("c", c.shape, weight=0), _tensor("y", x.shape)]
        op = Op(OpType.ADD, "add", (0, 1), (2,))
        data = _plan(tensors, op, [Weight(np.ascontiguousarray(stored), layout)])
        (got,) = run_plan_ops(data, [x], sanitize=True)
        np.testing.assert_array_equal(got, x + c)


def test_lz4_block_weight_is_read_through_tensor_ptrs() -> None:
    """A weight in an LZ4 block has no in-place address (tigris_tensor_weight is NULL): the
    kernels read it where the executor (here run_ops) decompressed it, mem->tensor_ptrs."""
    x = rand(1, 4, 8, 8)
    c = np.tile(np.arange(8, dtype=np.float32), (1, 4, 8, 1))
    tensors = [_tensor("x", x.shape), _tensor("c", c.shape, weight=0), _tensor("y", x.shape)]
    op = Op(OpType.MUL, "mul", (0, 1), (2,))
    stage = Stage((0,), (), (2,), 0, weight_block=0)
    plan = PlanFile("lz4", tensors, [op], [stage], (0,), (2,), weights=[Weight(c, WeightLayout.PLAIN, block=0)],
                    weight_blocks=[WeightBlock()])
    data = write_plan(plan, compress="lz4")
    (got,) = run_plan_ops(data, [x], sanitize=True)
    np.testing.assert_array_equal(got, x * c)


def test_unsupported_dtype_is_reported() -> None:
    """A float kernel refuses operands of another dtype (I32 here) instead of misreading them."""
    tensors = [Tensor("x", DType.I32, (2, 8)), Tensor("y", DType.I32, (2, 8))]
    data = _plan(tensors, Op(OpType.RELU, "relu", (0,), (1,)))
    with pytest.raises(RunOpsError, match="not implemented"):
        run_plan_ops(data, [np.zeros((2, 8), np.int32)])


def test_custom_op_type_is_unsupported(tmp_path: Path) -> None:
    """Op types from TIGRIS_OP_CUSTOM_FIRST (128) on are a user callback's: the loader passes
    them on, the reference kernels refuse them. The plan is patched: no core op has such a type."""
    import struct
    import zlib

    data = bytearray(_plan([_tensor("x", (2, 8)), _tensor("y", (2, 8))], Op(OpType.RELU, "relu", (0,), (1,))))
    (num_sections,) = struct.unpack_from("<H", data, 40)
    for i in range(num_sections):
        kind, _, offset, _, _ = struct.unpack_from("<HHIII", data, 64 + 16 * i)
        if kind == 2:  # OPS: op_type is byte 20 of the first record
            data[offset + 20] = 200
    struct.pack_into("<I", data, 16, zlib.crc32(bytes(data[64:])))
    (tmp_path / "plan.tgrs").write_bytes(bytes(data))
    (tmp_path / "in.bin").write_bytes(np.zeros((2, 8), np.float32).tobytes())
    args = [str(tmp_path / name) for name in ("plan.tgrs", "in.bin", "out.bin")]
    binary = run_ops_binary()
    result = subprocess.run([str(binary), *args], capture_output=True, text=True)
    assert result.returncode == 3 and "type 200" in result.stderr and "not implemented" in result.stderr, result.stderr


# -- bands --------------------------------------------------------------------------------------

BAND_CASES: dict[str, Callable[[], Case]] = {
    "conv_3x3": lambda: conv(3, 4, (3, 3), pads=[1, 1, 1, 1], shape=(2, 9, 6)),
    "conv_stride2_dilation2": lambda: conv(3, 4, (3, 3), strides=[2, 1], dilations=[2, 1], pads=[2, 1, 1, 1],
                                           shape=(1, 13, 5)),
    "depthwise_5x5_stride2": lambda: conv(4, 8, (5, 5), group=4, strides=[2, 2], pads=[2, 2, 2, 2], shape=(1, 12, 7),
                                          expect="DEPTHWISE"),
    "conv1d": lambda: conv1d(3, 4, 5, length=17, pads=[2, 2]),
    "max_pool_3x3_s2": lambda: pool("MaxPool", shape=(1, 3, 11, 6), kernel_shape=[3, 3], strides=[2, 2],
                                    pads=[1, 1, 1, 1]),
    "avg_pool_include_pad": lambda: pool("AveragePool", shape=(1, 3, 10, 6), kernel_shape=[3, 3], strides=[2, 1],
                                         pads=[1, 1, 1, 1], count_include_pad=1),
    "resize_nearest_x2": lambda: resize("nearest", "asymmetric", (1, 1, 2, 2), "floor", shape=(1, 3, 6, 4)),
    "resize_linear_half_pixel": lambda: resize("linear", "half_pixel", (1, 1, 2, 2), shape=(1, 3, 6, 4)),
    "resize_linear_asymmetric_x3": lambda: resize("linear", "asymmetric", (1, 1, 3, 1), shape=(1, 2, 5, 4)),
    "pad_constant": lambda: pad("constant", (0, 0, 2, 1, 0, 0, 3, 1), value=0.25, shape=(1, 3, 7, 5)),
    "global_avg_pool": lambda: one("GlobalAveragePool", {"x": (2, 3, 5, 4)}, expect=("GLOBAL_AVG",)),
    "lrn_after_conv": lambda: Case(
        [node("Conv", ["x", "w"], "c", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), node("LRN", ["c"], size=3, alpha=0.5)],
        {"x": (1, 3, 9, 5)}, ("CONV", "LRN"), {"w": rand(5, 3, 3, 3, scale=0.3)}),
    "add_relu_chain": lambda: Case(
        [node("Conv", ["x", "w"], "c", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), node("Add", ["c", "x"], "s"),
         node("Relu", ["s"], "r"), node("MaxPool", ["r"], kernel_shape=[2, 2], strides=[2, 2])],
        {"x": (1, 3, 12, 5)}, ("CONV", "ADD", "RELU", "MAX_POOL"), {"w": rand(3, 3, 3, 3, scale=0.3)}),
}


def _band_ranges(path: Path) -> tuple[Callable[[tuple[int, int]], dict[int, tuple[int, int]]], int]:
    """For output rows `out` of the (one) stage, bands.py's row range of every activation of
    rank >= 3; and the output tensor."""
    from xdsl.context import Context

    from tigris.dialects.onnx.importer import import_model_file
    from tigris.transforms.pipelines import TigrisCompilePass
    from tigris.transforms.plan.bands import band_ranges
    from tigris.transforms.plan.graph import build_plan_graph
    from tigris.transforms.plan.temporal import Stage as PlanStage

    module = import_model_file(path)
    TigrisCompilePass(budget=BUDGET).apply(Context(), module)
    graph = build_plan_graph(module)
    output = next(t.index for t in graph.tensors if t.is_output)
    stage = PlanStage(0, 0, graph.last_step, 0, [], [output])

    def ranges(out: tuple[int, int]) -> dict[int, tuple[int, int]]:
        found = band_ranges(graph, [stage], out)
        return {t: r for t, r in found.items() if len(graph.tensors[t].shape) >= 3}

    return ranges, output


@pytest.mark.parametrize("name", list(BAND_CASES))
def test_band_rows_match_the_whole_result(name: str, tmp_path: Path) -> None:
    case = BAND_CASES[name]()
    model = case.model()
    path, data = compile_model(model, tmp_path)
    assert set(case.expect) <= _op_names(data)
    inputs = list(_inputs(model, seed=3).values())
    (full,) = run_plan_ops(data, inputs)
    height = full.shape[2]
    band_ranges, output = _band_ranges(path)
    bands = {(0, 1), (0, height // 2), (height // 3, height // 3 + 2), (height - 2, height), (1, height)}
    for start, end in sorted((s, e) for s, e in bands if 0 <= s < e <= height):
        ranges = band_ranges((start, end))
        (band,) = run_plan_ops(data, inputs, bands=ranges, sanitize=True)
        np.testing.assert_array_equal(band, full[:, :, start:end], err_msg=f"rows [{start}, {end})")
        if start != height // 3:
            continue
        # one needed row less (one inside the image) must be caught, not read out of bounds
        for tensor, (lo, hi) in ranges.items():
            if tensor == output or hi - lo < 2:
                continue
            for shrunk in ((lo + 1, hi), (lo, hi - 1)):
                with pytest.raises(RunOpsError, match="not resident"):
                    run_plan_ops(data, inputs, bands={**ranges, tensor: shrunk}, sanitize=True)


@pytest.mark.parametrize("dtype", [DType.F32, DType.I8], ids=["f32", "i8"])
@pytest.mark.parametrize("op_type", [OpType.GLOBAL_AVG, OpType.GLOBAL_MAX], ids=["avg", "max"])
def test_global_pool_outside_reduction_tiles_needs_every_row(op_type: OpType, dtype: DType) -> None:
    """A global pool accumulates over bands only in the reduction tiles of its stage (the
    executor names it in mem->tile.reduce_op, test_runtime_executor.py); in an ordinary band it
    needs its whole input, float and int8 alike: any row short is TIGRIS_KERNEL_ERR_BAND."""
    from tigris.emit.tgrs.model import QuantParam

    q = 0 if dtype == DType.I8 else None
    t = [Tensor("x", dtype, (1, 3, 5, 4), quant=q), Tensor("y", dtype, (1, 3, 1, 1), quant=q)]
    plan = PlanFile("pool", t, [Op(op_type, "pool", (0,), (1,))], [Stage((0,), (0,), (1,), 1024)], (0,), (1,),
                    quant_params=[QuantParam((0.1,), (2,))] if q is not None else [])
    data, x = write_plan(plan), [np.ones((1, 3, 5, 4), np.float32 if q is None else np.int8)]
    assert run_plan_ops(data, x, bands={0: (0, 5), 1: (0, 1)}, sanitize=True)[0].shape == (1, 3, 1, 1)
    for rows in ((1, 5), (0, 4), (2, 3)):
        with pytest.raises(RunOpsError, match="not resident") as info:
            run_plan_ops(data, x, bands={0: rows, 1: (0, 1)}, sanitize=True)
        assert info.value.returncode == 3  # a kernel error, not a crash


# -- 2-D tiles ------------------------------------------------------------------------------------

WINDOW_KINDS = ("conv", "depthwise", "max", "avg")
WINDOW_OPS = {"CONV", "DEPTHWISE", "MAX_POOL", "AVG_POOL"}


def window_model(op: WindowOp) -> onnx.ModelProto:
    """The float ONNX model of one random window op (kernel_windows.random_window_op)."""
    n, c, h, w = op.shape
    if op.kind in ("max", "avg"):
        return pool("MaxPool" if op.kind == "max" else "AveragePool", shape=op.shape, **op.attrs).model()
    attrs = dict(op.attrs)
    kernel = tuple(attrs.pop("kernel_shape"))  # type: ignore[call-overload]
    return conv(c, op.out_ch, kernel, group=op.group, shape=(n, h, w), **attrs).model()


@pytest.mark.parametrize("seed", range(32))
def test_windows_match_the_whole_result(seed: int, tmp_path: Path) -> None:
    """2-D tiles: a random conv, depthwise (depth multipliers), max or average pool; every checked
    output window computed alone from just the input pixels it reads equals the same pixels of
    the whole run, in the fast and the reference build, under ASan + UBSan; an input window one
    needed row or column short is TIGRIS_KERNEL_ERR_BAND (kernel_windows.check_windows)."""
    rng = np.random.default_rng(1000 + seed)
    op = random_window_op(rng, WINDOW_KINDS[seed % len(WINDOW_KINDS)])
    _, data = compile_model(window_model(op), tmp_path)
    assert _op_names(data) <= WINDOW_OPS, (op, _op_names(data))
    x = rand(*op.shape)
    windows, _ = check_windows(data, x, rng)
    assert windows > 0


def test_an_input_window_one_column_short_is_refused(tmp_path: Path) -> None:
    """A 3x3 conv (pads 1, stride 1) on a 7x9 input: output columns [3, 6) read input columns
    [2, 7); holding [3, 7) or [2, 6) is TIGRIS_KERNEL_ERR_BAND in both builds, [2, 7) is enough."""
    _, data = compile_model(conv(3, 4, (3, 3), pads=[1, 1, 1, 1], shape=(1, 7, 9)).model(), tmp_path)
    plan = read_plan(data)
    x = rand(1, 3, 7, 9)
    for binary in builds().values():
        (whole,) = run_tiles(plan, x, [None], binary)
        (got,) = run_tiles(plan, x, [((1, 5, 2, 7), (2, 4, 3, 6))], binary)
        assert got.tobytes() == np.ascontiguousarray(whole[:, :, 2:4, 3:6]).tobytes()
        for short in ((1, 5, 3, 7), (1, 5, 2, 6)):
            assert_refused(plan, x, (short, (2, 4, 3, 6)), binary)


def test_other_kernels_refuse_a_window(tmp_path: Path) -> None:
    """Kernels that walk whole rows (here a global average pool) never misread a 2-D tile: a
    window of columns is TIGRIS_KERNEL_ERR_BAND (tigris_view_of), even one holding every row."""
    _, data = compile_model(one("GlobalAveragePool", {"x": (1, 3, 5, 4)}, expect=("GLOBAL_AVG",)).model(),
                            tmp_path)
    plan = read_plan(data)
    for binary in builds().values():
        assert_refused(plan, rand(1, 3, 5, 4), ((0, 5, 0, 3), (0, 1, 0, 1)), binary)


# -- build properties ---------------------------------------------------------------------------

KERNEL_DIR = Path(__file__).resolve().parents[2] / "runtime" / "src" / "kernels"
INCLUDE_DIR = KERNEL_DIR.parents[1] / "include"


@pytest.mark.parametrize("source", sorted(p.name for p in KERNEL_DIR.glob("kernel*_f32*.c")) + ["kernel_view.c",
                                                                                               "kernel_dispatch.c"])
def test_kernel_sources_are_strict_c99_with_small_frames(source: str, tmp_path: Path) -> None:
    """No stack frame above 1 KiB (-Wframe-larger-than), at -O2 and -O0, no float-to-double promotion."""
    from tigris.tools.runtime_build import STRICT_FLAGS, compiler

    for opt in ("-O0", "-O2", "-Os"):
        cmd = [compiler(), *STRICT_FLAGS, opt, "-Wframe-larger-than=1024", "-Wdouble-promotion", f"-I{INCLUDE_DIR}",
               "-c", str(KERNEL_DIR / source), "-o", str(tmp_path / "k.o")]
        result = subprocess.run(cmd, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
