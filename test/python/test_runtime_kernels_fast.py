"""The fast convolution loops (runtime/src/kernels/kernels_{i8,f32}_fast.c) and the int8 binary
ops' fast loop (kernels_i8_elementwise.c) against the reference loops they replace, byte for byte.

The oracle is the same runtime built with -DTIGRIS_KERNELS_REFERENCE_ONLY (kernels_fast.h), which
keeps the reference loops: both builds run the same compiled plan through run_ops
(test/support/runtime_ops.py) under ASan + UBSan, on random convolutions (kernel 1..5, strides,
asymmetric pads, dilations, groups, depthwise, channel counts that are not multiples of the
blocking), float32 and int8 (per-channel quantizer models with biases, and hand-made QDQ models
with nonzero input and weight zero points, int8 and uint8 activations). Band variants hold the
output as a row band and every tensor before the convolution as just the rows it reads, as a
tiled stage does: fast and reference bands must agree, and equal the same rows of the whole run.
Window variants do the same for 2-D tiles (test/support/kernel_windows.py): windows of rows x
columns of the output, each from just the input pixels it reads, in both builds.
"""

from __future__ import annotations

import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
import runtime_ops  # test/support
from compiled_models import Compiled, compile_model  # test/support
from kernel_windows import check_windows, reference_binary  # test/support
from onnx import TensorProto, helper, numpy_helper
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import DType, OpType
from tigris.emit.tgrs.model import PlanFile
from tigris.tools import runtime_build
from tigris.tools.runtime_binding import user_shape

OPSET = 17
CONV_OPS = (OpType.CONV, OpType.DEPTHWISE, OpType.CONV1D)


@dataclass(frozen=True)
class ConvCase:
    """One random convolution: NCHW input, ONNX Conv attributes, how it is quantized."""

    name: str
    shape: tuple[int, ...]
    out_ch: int
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads: tuple[int, ...]
    dilations: tuple[int, ...]
    group: int
    relu: bool
    kind: str  # "f32", "int8" (quantizer, per channel, bias), "qdq" / "qdq_u8" (hand QDQ, zero points)
    x_zp: int = 0
    w_zp: int = 0


def random_cases(seed: int, count: int) -> list[ConvCase]:
    """Every kind with every style in turn (pointwise, depthwise, grouped, general), random sizes."""
    rng = np.random.default_rng(seed)
    cases = []
    kinds, styles = ["f32", "int8", "qdq", "qdq_u8"], ["pointwise", "depthwise", "grouped", "general"]
    for i in range(count):
        kind, style = kinds[i % len(kinds)], styles[(i // len(kinds)) % len(styles)]
        one_d = i % 7 == 6
        c = int(rng.choice([1, 3, 8, 17, 19, 24, 33]))
        if style == "grouped" and c % 2:
            c += 1
        group = {"depthwise": c, "grouped": 2}.get(style, 1)
        mult = int(rng.choice([1, 2])) if style == "depthwise" and kind == "f32" else 1
        out_ch = c * mult if style == "depthwise" else int(rng.choice([1, 2, 5, 8, 11, 17, 34]))
        if group == 2 and out_ch % 2:
            out_ch += 1
        rank = 1 if one_d else 2
        k = (1,) * rank if style == "pointwise" else tuple(int(v) for v in rng.choice([1, 2, 3, 5], rank))
        s = (1,) * rank if style == "pointwise" else tuple(int(v) for v in rng.choice([1, 2, 3], rank))
        d = tuple(int(v) for v in rng.choice([1, 1, 2], rank)) if style == "general" else (1,) * rank
        p = (0,) * (2 * rank) if style == "pointwise" else tuple(int(v) for v in rng.integers(0, 3, 2 * rank))
        spatial = tuple(int(v) for v in rng.integers(6, 14, rank))
        cases.append(ConvCase(
            name=f"{i}_{kind}_{style}_{'1d' if one_d else '2d'}", shape=(1, c, *spatial), out_ch=out_ch,
            kernel=k, strides=s, pads=p, dilations=d, group=group,
            relu=bool(rng.integers(0, 2)) and not kind.startswith("qdq"), kind=kind,
            x_zp=int(rng.integers(100, 150)) if kind == "qdq_u8" else int(rng.integers(-20, 21)),
            w_zp=int(rng.integers(-9, 10)),
        ))  # fmt: skip
    return cases


CASES = random_cases(seed=5, count=32) + [  # wide channels: full blocks and their tails
    ConvCase("dw3x3_f32_wide", (1, 35, 9, 10), 35, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 35, True, "f32"),
    ConvCase("dw3x3s2_f32_wide", (1, 24, 11, 9), 24, (3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 24, False, "f32"),
    ConvCase("dw3x3_int8_wide", (1, 35, 9, 10), 35, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 35, True, "int8"),
    ConvCase("dw3x3s2_qdq_wide", (1, 40, 10, 7), 40, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 40, False, "qdq", 7, -4),
    ConvCase("pw_int8_wide", (1, 40, 6, 7), 37, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True, "int8"),
    ConvCase("pw_qdq_wide", (1, 67, 5, 7), 70, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, False, "qdq", -11, 5),
    ConvCase("pw_f32_wide", (1, 40, 6, 7), 37, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True, "f32"),
    # float conv windows over several 64-tap weight panels (partial sums held in the output), groups
    # whose output channels are not a multiple of the 8-channel block, fewer than 8 channels
    ConvCase("pw_f32_deep", (1, 150, 5, 9), 13, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, True, "f32"),
    ConvCase("conv3x3_f32_deep_grouped", (1, 70, 6, 9), 22, (3, 3), (1, 2), (1, 0, 2, 1), (2, 1), 2, False, "f32"),
    ConvCase("conv5x5_f32_narrow", (1, 6, 9, 11), 3, (5, 5), (2, 1), (2, 2, 1, 2), (1, 1), 1, True, "f32"),
    # int8 depthwise windows beyond the centred-weight table (5 x 5) and beyond one row's chunk
    ConvCase("dw7x7_qdq", (1, 19, 11, 12), 19, (7, 7), (2, 1), (3, 2, 3, 4), (1, 1), 19, False, "qdq", 9, -3),
    ConvCase("dw1x37_qdq", (1, 18, 3, 40), 18, (1, 37), (1, 1), (0, 5, 0, 3), (1, 1), 18, False, "qdq", 12, 4),
    # int8 conv windows longer than one gathered segment (KH KW icg > XSEG = 256), padded and clipped
    ConvCase("conv3x3_qdq_deep", (1, 70, 6, 7), 9, (3, 3), (1, 2), (1, 0, 2, 1), (1, 1), 1, False, "qdq", -7, 3),
    ConvCase("conv3x3_int8_deep_grouped", (1, 130, 5, 5), 6, (3, 3), (1, 1), (1, 1, 1, 1), (2, 1), 2, True, "int8"),
]


def _const(inits: list[onnx.TensorProto], name: str, value: np.ndarray) -> str:
    inits.append(numpy_helper.from_array(np.asarray(value), name))
    return name


def model_of(case: ConvCase) -> onnx.ModelProto:
    """The case's ONNX model: a float Conv (+ Relu), or that conv between hand-written QDQ pairs."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    w = (rng.standard_normal((case.out_ch, case.shape[1] // case.group, *case.kernel)) * 0.3).astype(np.float32)
    x, ins = "x", []
    attrs = dict(kernel_shape=list(case.kernel), strides=list(case.strides), pads=list(case.pads),
                 dilations=list(case.dilations), group=case.group)  # fmt: skip
    if case.kind.startswith("qdq"):
        storage = np.uint8 if case.kind == "qdq_u8" else np.int8
        sx, zx = _const(inits, "sx", np.float32(0.03)), _const(inits, "zx", storage(case.x_zp))
        nodes.append(helper.make_node("QuantizeLinear", ["x", sx, zx], ["xq"]))
        nodes.append(helper.make_node("DequantizeLinear", ["xq", sx, zx], ["xd"]))
        sw, zw = _const(inits, "sw", np.float32(0.01)), _const(inits, "zw", np.int8(case.w_zp))
        nodes.append(helper.make_node("QuantizeLinear", [_const(inits, "w", w), sw, zw], ["wq"]))
        nodes.append(helper.make_node("DequantizeLinear", ["wq", sw, zw], ["wd"]))
        x, ins = "xd", ["wd"]
    else:
        ins = [_const(inits, "w", w), _const(inits, "b", (rng.standard_normal(case.out_ch) * 0.1).astype(np.float32))]
    nodes.append(helper.make_node("Conv", [x, *ins], ["y"], **attrs))
    y = "y"
    if case.relu:
        nodes.append(helper.make_node("Relu", [y], ["r"]))
        y = "r"
    if case.kind.startswith("qdq"):
        storage = np.uint8 if case.kind == "qdq_u8" else np.int8
        sy, zy = _const(inits, "sy", np.float32(0.05)), _const(inits, "zy", storage(case.x_zp // 2 + 3))
        nodes.append(helper.make_node("QuantizeLinear", [y, sy, zy], ["yq"]))
        nodes.append(helper.make_node("DequantizeLinear", ["yq", sy, zy], ["yd"]))
        y = "yd"
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(case.shape))],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)], inits)  # fmt: skip
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    if case.kind == "int8":
        from quantize import quantize_int8  # test/models, on sys.path via conftest

        model = quantize_int8(model)
    return model


def plan_input(c: Compiled, seed: int) -> list[np.ndarray]:
    """N(0, 1) values in the plan input's dtype (quantized inputs: spread over the int8 range)."""
    rng = np.random.default_rng(seed)
    tensor = c.plan.tensors[c.plan.inputs[0]]
    shape = tuple(user_shape(tensor))
    if tensor.dtype == DType.F32:
        return [rng.standard_normal(shape).astype(np.float32)]
    dtype = np.int8 if tensor.dtype == DType.I8 else np.uint8
    info = np.iinfo(dtype)
    return [rng.integers(info.min, info.max + 1, shape).astype(dtype)]


def conv_op(plan: PlanFile):  # noqa: ANN201 - a tgrs op record
    ops = [op for op in plan.ops if op.op_type in CONV_OPS]
    assert len(ops) == 1, [OpType(op.op_type).name for op in plan.ops]
    return ops[0]


def bands_for(plan: PlanFile, out_band: tuple[int, int]) -> dict[int, tuple[int, int]]:
    """The conv's output (and every activation after it) as rows out_band, its input (and every
    activation before it, elementwise) as the rows the band reads."""
    op = conv_op(plan)
    index = list(plan.ops).index(op)
    taps = [o * op.stride_h - op.pad_top + k * op.dilation_h for o in range(*out_band) for k in range(op.kernel_h)]
    rows = plan.tensors[op.inputs[0]].shape[2]
    inside = [i for i in taps if 0 <= i < rows]
    in_band = (min(inside), max(inside) + 1) if inside else (0, 1)
    bands: dict[int, tuple[int, int]] = {}
    for i, other in enumerate(plan.ops):
        for t in (*other.inputs, *other.outputs):
            tensor = plan.tensors[t]
            if tensor.weight is None and len(tensor.shape) >= 3:
                bands[t] = in_band if i < index or (i == index and t in other.inputs) else out_band
    return bands


def run_both(c: Compiled, inputs: list[np.ndarray], bands: dict[int, tuple[int, int]] | None,
             monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], list[np.ndarray]]:  # fmt: skip
    fast = runtime_ops.run_plan_ops(c.plan_bytes, inputs, sanitize=True, bands=bands)
    with monkeypatch.context() as m:
        m.setattr(runtime_ops, "run_ops_binary", reference_binary)
        ref = runtime_ops.run_plan_ops(c.plan_bytes, inputs, sanitize=True, bands=bands)
    return fast, ref


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fast_conv_equals_the_reference_loops(case: ConvCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c = compile_model(model_of(case), tmp_path)
    op = conv_op(c.plan)
    if case.kind != "f32":
        assert c.plan.tensors[op.inputs[0]].dtype in (DType.I8, DType.U8), "the conv did not run in int8"
    inputs = plan_input(c, seed=len(case.name))
    fast, ref = run_both(c, inputs, None, monkeypatch)
    for got, want in zip(fast, ref, strict=True):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), case
    out_rows = c.plan.tensors[op.outputs[0]].shape[2]
    for band in {(0, 1), (out_rows // 3, out_rows // 3 + 2), (max(out_rows - 2, 0), out_rows)}:
        if band[1] > out_rows or band[0] >= band[1]:
            continue
        fast_b, ref_b = run_both(c, inputs, bands_for(c.plan, band), monkeypatch)
        assert fast_b[0].tobytes() == ref_b[0].tobytes(), (case, band)
        perm = c.plan.tensors[c.plan.outputs[0]].perm
        if perm and list(perm) != sorted(perm):
            continue  # the whole run is in the user's layout, a band in model order
        # the band is the same rows of the whole run (axis 2)
        assert np.array_equal(fast_b[0], np.take(fast[0], range(*band), axis=2)), (case, band)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fast_conv_windows_equal_the_reference_loops(case: ConvCase, tmp_path: Path) -> None:
    """2-D tiles: every checked output window computed alone, from just the input pixels it
    reads, equals the same pixels of the whole run in both builds (kernel_windows.check_windows),
    and an input window one needed row or column short is TIGRIS_KERNEL_ERR_BAND."""
    c = compile_model(model_of(case), tmp_path)
    x = plan_input(c, seed=len(case.name))[0]
    windows, _ = check_windows(c.plan_bytes, x, np.random.default_rng(len(case.name)))
    assert windows > 0


BINARY_OPS = ("Mul", "Add", "Sub", "Max", "Min", "Div")


def binary_model(channels: int, seed: int) -> onnx.ModelProto:
    """Each binary op between two QDQ tensors, int8 in the plan: a full-shape operand (the
    sigmoid of the input) and a per-channel one broadcast over the pixels (its global average),
    chained, every result requantized to its own scale and zero point."""
    rng = np.random.default_rng(seed)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def qdq(name: str, scale: float, zp: int) -> str:
        s_, z_ = _const(inits, f"{name}_s", np.float32(scale)), _const(inits, f"{name}_z", np.int8(zp))
        nodes.append(helper.make_node("QuantizeLinear", [name, s_, z_], [f"{name}_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [f"{name}_q", s_, z_], [f"{name}_d"]))
        return f"{name}_d"

    x = qdq("x", 0.04, int(rng.integers(-10, 11)))
    nodes.append(helper.make_node("Sigmoid", [x], ["sig"]))
    full = qdq("sig", 1 / 256, -128)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    chan = qdq("gap", 0.01, int(rng.integers(-5, 6)))
    y = x
    for i, op in enumerate(BINARY_OPS):
        nodes.append(helper.make_node(op, [y, chan if i % 2 else full], [f"y{i}"]))
        y = qdq(f"y{i}", float(rng.uniform(0.02, 0.2)), int(rng.integers(-20, 21)))
    shape = [1, channels, 5, 6]
    graph = helper.make_graph(nodes, "binary", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)], inits)  # fmt: skip
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


@pytest.mark.parametrize("channels", [3, 17])
def test_fast_int8_binary_ops_equal_the_reference_loop(channels: int, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The int8 binary ops' fast loop (dequantization tables, the op chosen once, runs merged across
    pixels, tigris_i8_round_fast) gives the reference loop's bytes, broadcast operands included,
    whole and on bands and 2-D windows."""
    c = compile_model(binary_model(channels, channels), tmp_path)
    kinds = {OpType(op.op_type).name for op in c.plan.ops}
    assert {"MUL", "ADD", "SUB", "MAX", "MIN", "DIV"} <= kinds, kinds
    assert all(c.plan.tensors[t].dtype == DType.I8 for op in c.plan.ops if op.op_type == OpType.DIV
               for t in op.inputs), "the binary ops did not run in int8"  # fmt: skip
    inputs = plan_input(c, seed=channels)
    fast, ref = run_both(c, inputs, None, monkeypatch)
    for got, want in zip(fast, ref, strict=True):
        assert got.tobytes() == want.tobytes()
    # bands and 2-D windows of every full-size activation after x (the global pool reads x whole)
    rows = c.plan.tensors[c.plan.inputs[0]].shape[2]
    held = [t for t, tensor in enumerate(c.plan.tensors) if tensor.weight is None and len(tensor.shape) == 4
            and tensor.shape[2] == rows and t not in c.plan.inputs]  # fmt: skip
    check_held(c.plan_bytes, [runtime_ops.to_runtime(x) for x in inputs], held, tmp_path)


@dataclass(frozen=True)
class PoolCase:
    """One int8 pool between hand QDQ pairs: an ONNX pool op, NCHW input, its attributes."""

    name: str
    op: str
    shape: tuple[int, ...]
    attrs: dict[str, object]
    x_zp: int = -3
    y_zp: int = 4
    requantize: bool = True


POOL_CASES = [  # channels past the 32-channel blocks: whole blocks and their tails
    PoolCase("max3x3s2_c35", "MaxPool", (1, 35, 9, 10), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    PoolCase("max2x2_c70_copy", "MaxPool", (2, 70, 6, 7), dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
             requantize=False),
    PoolCase("max3x2_dil_c64", "MaxPool", (1, 64, 8, 9),
             dict(kernel_shape=[3, 2], strides=[1, 2], dilations=[2, 1], pads=[0, 1, 1, 0])),
    PoolCase("avg3x3_c33", "AveragePool", (1, 33, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 1], pads=[1, 1, 1, 1])),
    PoolCase("avg3x3_pad_c66", "AveragePool", (1, 66, 7, 5),
             dict(kernel_shape=[3, 3], strides=[1, 2], pads=[1, 0, 2, 1], count_include_pad=1, ceil_mode=1)),
    PoolCase("gap_c70", "GlobalAveragePool", (2, 70, 5, 6), {}),
    PoolCase("gmp_c33", "GlobalMaxPool", (1, 33, 4, 7), {}, x_zp=11, y_zp=-9),
]  # fmt: skip


def pool_model(case: PoolCase) -> onnx.ModelProto:
    """x -> QDQ (scale 0.03) -> the pool -> QDQ (scale 0.05, or the input's for a copy of values)."""
    inits: list[onnx.TensorProto] = []
    sx, zx = _const(inits, "sx", np.float32(0.03)), _const(inits, "zx", np.int8(case.x_zp))
    sy, zy = (_const(inits, "sy", np.float32(0.05)), _const(inits, "zy", np.int8(case.y_zp))) if case.requantize \
        else (sx, zx)
    nodes = [helper.make_node("QuantizeLinear", ["x", sx, zx], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", sx, zx], ["xd"]),
             helper.make_node(case.op, ["xd"], ["y"], **case.attrs),
             helper.make_node("QuantizeLinear", ["y", sy, zy], ["yq"]),
             helper.make_node("DequantizeLinear", ["yq", sy, zy], ["yd"])]  # fmt: skip
    graph = helper.make_graph(nodes, "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(case.shape))],
                              [helper.make_tensor_value_info("yd", TensorProto.FLOAT, None)], inits)  # fmt: skip
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: c.name)
def test_fast_int8_pools_equal_the_reference_loops(case: PoolCase, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The int8 pools' channel-blocked loops (kernels_i8_window.c) give the reference loops'
    bytes: whole runs, and for the windowed pools every checked 2-D window of the output."""
    c = compile_model(pool_model(case), tmp_path)
    assert [OpType(op.op_type).name for op in c.plan.ops] == [
        {"MaxPool": "MAX_POOL", "AveragePool": "AVG_POOL", "GlobalAveragePool": "GLOBAL_AVG",
         "GlobalMaxPool": "GLOBAL_MAX"}[case.op]]  # fmt: skip
    assert c.plan.tensors[c.plan.ops[0].inputs[0]].dtype == DType.I8, "the pool did not run in int8"
    inputs = plan_input(c, seed=len(case.name))
    fast, ref = run_both(c, inputs, None, monkeypatch)
    assert fast[0].tobytes() == ref[0].tobytes()
    if not case.op.startswith("Global"):
        windows, _ = check_windows(c.plan_bytes, inputs[0], np.random.default_rng(len(case.name)))
        assert windows > 0


ROUND_CHECK = r"""
/* tigris_i8_round_fast against tigris_i8_round_to (i8_math.h) on float bit patterns.
 * argv: zp lo hi stride: every stride-th pattern of magnitude in [2^-2, 2^10), both signs, plus
 * special values. Prints the number of values checked, or the first mismatch (exit 1). */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "i8_math.h"

static int check(const tigris_i8_range_t *r, float v) {
    const int32_t want = tigris_i8_round_to(r, v), got = tigris_i8_round_fast(r, v);
    if (want == got) return 0;
    printf("mismatch v=%a want=%d got=%d\n", (double)v, (int)want, (int)got);
    return 1;
}

int main(int argc, char **argv) {
    const float specials[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 126.5f, 127.5f, -127.5f, -128.5f,
                              255.5f, -255.5f, 0x1p22f, -0x1p22f, 0x1p23f, -0x1p23f, 0x1.8p23f, -0x1.8p23f, 0x1p24f,
                              FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 0x1p-149f, -0x1p-149f, HUGE_VALF, -HUGE_VALF};
    tigris_i8_range_t r;
    unsigned long count = 0, k;
    uint32_t stride, bits, sign;
    float nan;
    if (argc != 5) return 2;
    r = tigris_i8_range(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]));
    stride = (uint32_t)strtoul(argv[4], NULL, 10);
    bits = 0x7FC00000u;
    memcpy(&nan, &bits, sizeof nan);
    if (check(&r, nan) || check(&r, -nan)) return 1;
    for (k = 0; k < sizeof specials / sizeof specials[0]; ++k, ++count)
        if (check(&r, specials[k])) return 1;
    for (sign = 0; sign < 2; ++sign)
        for (bits = 0x3E800000u; bits < 0x44800000u; bits += stride, ++count) { /* 2^-2 .. 2^10 */
            const uint32_t u = bits | (sign << 31);
            float v;
            memcpy(&v, &u, sizeof v);
            if (check(&r, v)) return 1;
        }
    printf("%lu\n", count);
    return 0;
}
"""


@pytest.mark.parametrize(("zp", "lo", "hi", "stride"), [
    (-3, -128, 127, 1),  # every float of magnitude in [2^-2, 2^10), both signs
    (130, 0, 255, 7), (-128, -128, 127, 7), (5, 5, 5, 13), (-20, -128, -20, 13),
])  # fmt: skip
def test_round_fast_equals_rintf_rounding(zp: int, lo: int, hi: int, stride: int, tmp_path: Path) -> None:
    """i8_math.h's tigris_i8_round_fast (clamp, then round by adding and subtracting 1.5 x 2^23)
    gives tigris_i8_round_to's value (rintf, then clamp; NaN -> lo) on float bit patterns: all of
    them in the range that rounds to distinct values for the first range, every stride-th for the
    others (uint8, ReLU-clipped, a one-value range, a range ending below zero), and the special
    values (NaN, infinities, signed zeros, ties, 2^22..2^24, the extremes, subnormals)."""
    source = tmp_path / "round_check.c"
    source.write_text(ROUND_CHECK)
    binary = runtime_build.build("round_check", [source], extra_flags=[f"-I{runtime_build.RUNTIME_DIR / 'src' / 'kernels'}"])
    done = subprocess.run([str(binary), str(zp), str(lo), str(hi), str(stride)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert int(done.stdout) >= 2 * (0x44800000 - 0x3E800000) // stride


def test_reference_build_is_the_oracle_the_fast_build_differs_from() -> None:
    """The two builds differ (the flag reaches the kernels): their libraries are not the same bytes."""
    fast = runtime_ops.run_ops_binary(sanitize=False)
    assert fast.read_bytes() != reference_binary(sanitize=False).read_bytes()


# -- float32 element-wise ops, pad and resize ---------------------------------------------------


def elementwise_model(channels: int, rows: int, cols: int, seed: int) -> onnx.ModelProto:
    """A chain of every float32 binary op (full-shape operands, per-channel constants broadcast
    over the pixels, scalars on either side) and of the unary ops with a fast loop (and tanh,
    which keeps the reference's), from two inputs x and z of shape [1, C, H, W]."""
    rng = np.random.default_rng(seed)
    inits: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def const(name: str, value: object) -> str:
        return _const(inits, name, np.asarray(value, np.float32))

    def node(op: str, ins: list[str], **attrs: object) -> str:
        out = f"t{len(nodes)}"
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def chan(name: str) -> str:
        return const(name, rng.standard_normal((channels, 1, 1)))

    y = node("Mul", ["x", node("Sigmoid", ["x"])])
    y = node("Sub", [const("k0", [0.25]), node("Add", [y, chan("c0")])])
    y = node("Div", [y, node("Add", [node("Abs", ["z"]), const("k1", [0.5])])])
    y = node("PRelu", [node("Min", [node("Max", [y, "z"]), chan("c1")]), chan("c2")])
    y = node("Mul", [node("Relu", [node("Add", [y, "z"])]), const("k2", [1.5])])
    y = node("Clip", [node("Sub", [y, const("k3", [1.0])]), const("lo", -0.75), const("hi", 2.0)])
    y = node("HardSwish", [node("Mul", [node("LeakyRelu", [y], alpha=0.1), const("k4", [3.0])])])
    y = node("Clip", [node("Mul", [node("Tanh", [y]), "z"]), const("z6", 0.0), const("s6", 6.0)])
    y = node("Sigmoid", [node("Sub", [y, "x"])])
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, channels, rows, cols]) for n in ("x", "z")]
    graph = helper.make_graph(nodes, "elementwise", info, [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)],
                              inits)  # fmt: skip
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def shape_model(op: str, shape: tuple[int, ...], **attrs: object) -> onnx.ModelProto:
    """One float32 Pad (attrs: pads, mode, value) or Resize (attrs: scales, mode,
    coordinate_transformation_mode) of an input x."""
    inits: list[onnx.TensorProto] = []
    if op == "Pad":
        ins = ["x", _const(inits, "pads", np.asarray(attrs.pop("pads"), np.int64))]
        if "value" in attrs:
            ins.append(_const(inits, "value", np.float32(attrs.pop("value"))))
    else:
        ins = ["x", "", _const(inits, "scales", np.asarray(attrs.pop("scales"), np.float32))]
    graph = helper.make_graph([helper.make_node(op, ins, ["y"], **attrs)], op.lower(),
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)  # fmt: skip
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def run_raw(binary: Path, plan_bytes: bytes, inputs: list[np.ndarray], holds: dict[int, tuple[int, ...]],
            folder: Path) -> np.ndarray:  # fmt: skip
    """run_ops on runtime-layout inputs with each tensor of `holds` held as a band (h0, h1) or a
    window (h0, h1, w0, w1): the (single) output's bytes as runtime-layout float32 or int8,
    [N, rows, cols, C] of what it holds."""
    plan = read_plan(plan_bytes)
    args = []
    for t, held in sorted(holds.items()):
        args += ["--band" if len(held) == 2 else "--window", str(t), *map(str, held)]
    (folder / "plan.tgrs").write_bytes(plan_bytes)
    (folder / "in.bin").write_bytes(b"".join(np.ascontiguousarray(x).tobytes() for x in inputs))
    done = subprocess.run([str(binary), str(folder / "plan.tgrs"), str(folder / "in.bin"), str(folder / "out.bin"), *args],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (out,) = plan.outputs
    n, c, h, w = plan.tensors[out].shape
    held = holds.get(out, (0, h, 0, w))
    rows, cols = held[1] - held[0], (held[3] - held[2]) if len(held) == 4 else w
    dtype = np.float32 if plan.tensors[out].dtype == DType.F32 else np.int8
    return np.frombuffer((folder / "out.bin").read_bytes(), dtype).reshape(n, rows, cols, c)


def check_held(plan_bytes: bytes, inputs: list[np.ndarray], held: list[int], folder: Path) -> None:
    """Both builds, whole and with the activations `held` as bands and windows of rows x columns
    (the inputs whole or held too): the fast build's bytes are the reference build's, and a held
    output is the same pixels of the whole run."""
    plan = read_plan(plan_bytes)
    _, _, h, w = plan.tensors[plan.outputs[0]].shape
    binaries = {"fast": runtime_ops.run_ops_binary(sanitize=True), "reference": reference_binary(sanitize=True)}
    whole = {k: run_raw(b, plan_bytes, inputs, {}, folder) for k, b in binaries.items()}
    assert whole["fast"].tobytes() == whole["reference"].tobytes()
    for window in [(1, h - 1), (0, 1), (1, h, 2, w - 1), (0, h - 2, 0, 3), (h // 2, h // 2 + 1, w - 1, w)]:
        for tensors in (held, [t for t in held if t not in plan.inputs]):
            holds = {t: window for t in tensors}
            got = {k: run_raw(b, plan_bytes, inputs, holds, folder) for k, b in binaries.items()}
            assert got["fast"].tobytes() == got["reference"].tobytes(), (window, tensors)
            cols = slice(window[2], window[3]) if len(window) == 4 else slice(None)
            assert np.array_equal(got["fast"], whole["fast"][:, window[0]:window[1], cols], equal_nan=True), window


@pytest.mark.parametrize(("channels", "rows", "cols"), [(19, 5, 7), (3, 4, 9), (40, 3, 5)])
def test_fast_f32_elementwise_ops_equal_the_reference_loops(channels: int, rows: int, cols: int,
                                                            tmp_path: Path) -> None:  # fmt: skip
    """The float32 binary and unary ops' fast loops (runs merged across pixels, the op chosen per
    run, vectorizable blocks, the sigmoid in two passes) give the reference loops' bytes, whole
    and on bands and 2-D windows: every activation held alike (runs merged across rows and
    columns), or the inputs x and z whole and the rest held (strided runs against them)."""
    c = compile_model(elementwise_model(channels, rows, cols, channels), tmp_path)
    kinds = {OpType(op.op_type).name for op in c.plan.ops}
    assert {"ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "PRELU", "SIGMOID", "RELU", "RELU6", "CLIP", "LEAKY_RELU",
            "HARD_SWISH", "TANH"} <= kinds, kinds  # fmt: skip
    rng = np.random.default_rng(channels)
    inputs = [rng.normal(0, 2, (1, rows, cols, channels)).astype(np.float32) for _ in c.plan.inputs]
    held = [t for t, tensor in enumerate(c.plan.tensors) if tensor.weight is None and len(tensor.shape) == 4]
    check_held(c.plan_bytes, inputs, held, tmp_path)


SHAPE_CASES = {  # the fast runs (channels neither padded nor resized) and the reference loops
    "pad_constant": ("Pad", (1, 7, 5, 6), dict(pads=[0, 0, 1, 2, 0, 0, 2, 1], value=0.5)),
    "pad_edge": ("Pad", (1, 5, 6, 6), dict(pads=[0, 0, 2, 0, 0, 0, 0, 3], mode="edge")),
    "pad_reflect": ("Pad", (1, 18, 5, 5), dict(pads=[0, 0, 1, 2, 0, 0, 2, 1], mode="reflect")),
    "pad_channels": ("Pad", (1, 3, 4, 5), dict(pads=[0, 1, 1, 0, 0, 2, 0, 1], value=-1.0)),
    "resize_nearest": ("Resize", (1, 21, 4, 5), dict(scales=[1, 1, 2, 2], mode="nearest")),
    "resize_linear": ("Resize", (1, 17, 3, 4), dict(scales=[1, 1, 2, 3], mode="linear")),
    "resize_linear_corners": ("Resize", (1, 6, 4, 3), dict(scales=[1, 1, 3, 2], mode="linear",
                                                           coordinate_transformation_mode="align_corners")),
    "resize_linear_asym": ("Resize", (1, 33, 3, 3), dict(scales=[1, 1, 2, 2], mode="linear",
                                                         coordinate_transformation_mode="asymmetric")),
}  # fmt: skip


@pytest.mark.parametrize("name", SHAPE_CASES)
def test_fast_f32_pad_and_resize_equal_the_reference_loops(name: str, tmp_path: Path) -> None:
    """Pad and resize copy (or interpolate) a run of channels at a time when the channel axis is
    neither padded nor resized: the reference loops' bytes, whole and for output bands and 2-D
    windows read from the whole input."""
    op, shape, attrs = SHAPE_CASES[name]
    c = compile_model(shape_model(op, shape, **dict(attrs)), tmp_path)
    assert [OpType(o.op_type).name for o in c.plan.ops] == [op.upper()]
    x = np.random.default_rng(len(name)).normal(0, 1, runtime_ops.to_runtime(np.empty(shape)).shape)
    check_held(c.plan_bytes, [x.astype(np.float32)], [c.plan.outputs[0]], tmp_path)
