"""The band geometry the emitter writes into each op record, read back from a compiled plan.

`geometry_h` / `geometry_w` say which input rows / columns a band of the op's output reads; the
runtime computes every tile's bands from them alone (tigris_bands.c). The emitter derives them
from the op's traits (emit/tgrs/op_geometry.py). Expected here, from what each op computes: a
conv and a max pool read a window along both axes; a global pool its whole input; a pointwise op
and a concat along the channels the same indices; a concat along H cannot be cut along H (NONE)
but reads the same columns, and along W the reverse; pad and resize map indices by their own
rules; a reshape is cut along neither. Also: the window fields of a conv come from its
SpatialWindow (the op's own fields must agree), and a row map the runtime has no rule for is an
emitter error naming the op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.traits import Pure

from tigris.dialects import make_context
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.traits import RowMap, RuntimeOp, SpatialWindow, TileCategory, TileKind
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import BandGeometry as G
from tigris.emit.tgrs.op_records import FromIrError, op_record
from tigris.tools.cli import compile_bytes

EXPECTED = {
    "conv": (G.WINDOW, G.WINDOW),
    "sigmoid": (G.SAME, G.SAME),
    "cat_c": (G.SAME, G.SAME),
    "cat_h": (G.NONE, G.SAME),
    "cat_w": (G.SAME, G.NONE),
    "pad": (G.PAD, G.PAD),
    "resize": (G.RESIZE, G.RESIZE),
    "pool": (G.WINDOW, G.WINDOW),
    "gap": (G.GLOBAL, G.GLOBAL),
    "reshape": (G.NONE, G.NONE),
}


def build_model(path: Path) -> Path:
    """x [1, 4, 8, 8] -> conv 3x3 stride 2 (dilation 2 along W) -> sigmoid; concats of it along C,
    H and W; pad (reflect) of the W concat -> global average -> reshape; resize (nearest x2) of
    the H concat -> max pool 2x2."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array((rng.standard_normal((4, 4, 3, 3)) * 0.3).astype(np.float32), "w"),
        numpy_helper.from_array(np.array([0, 0, 1, 2, 0, 0, 1, 2], np.int64), "pads"),
        numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"),
        numpy_helper.from_array(np.array([1, 4], np.int64), "shape"),
    ]
    node = helper.make_node
    nodes = [
        node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 2, 1, 2], strides=[2, 2], dilations=[1, 2]),
        node("Sigmoid", ["c"], ["s"], name="sigmoid"),
        node("Concat", ["s", "s"], ["cc"], name="cat_c", axis=1),
        node("Concat", ["s", "s"], ["ch"], name="cat_h", axis=2),
        node("Concat", ["s", "s"], ["cw"], name="cat_w", axis=3),
        node("Pad", ["cw", "pads"], ["p"], name="pad", mode="reflect"),
        node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        node("Reshape", ["g", "shape"], ["flat"], name="reshape"),
        node("Resize", ["ch", "", "scales"], ["r"], name="resize", mode="nearest"),
        node("MaxPool", ["r"], ["m"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    ]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("cc", "flat", "m")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    graph = helper.make_graph(nodes, "geometry", [x], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(onnx.shape_inference.infer_shapes(model, strict_mode=True), path)
    return path


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    model = build_model(tmp_path_factory.mktemp("geometry") / "geometry.onnx")
    return read_plan(compile_bytes(str(model), 1 << 20))


def test_each_op_has_the_geometry_of_what_it_computes(plan) -> None:  # type: ignore[no-untyped-def]
    got = {op.name: (op.geometry_h, op.geometry_w) for op in plan.ops}
    assert {name: got.get(name) for name in EXPECTED} == EXPECTED


def test_window_fields_are_the_windows(plan) -> None:  # type: ignore[no-untyped-def]
    """The conv's and the pool's record fields are their ONNX windows along H and W."""
    ops = {op.name: op for op in plan.ops}
    conv, pool = ops["conv"], ops["pool"]
    assert (conv.kernel_h, conv.stride_h, conv.dilation_h, conv.pad_top, conv.pad_bottom) == (3, 2, 1, 1, 1)
    assert (conv.kernel_w, conv.stride_w, conv.dilation_w, conv.pad_left, conv.pad_right) == (3, 2, 2, 2, 2)
    assert (pool.kernel_h, pool.kernel_w, pool.stride_h, pool.stride_w) == (2, 2, 2, 2)
    assert (pool.pad_top, pool.pad_left, pool.pad_bottom, pool.pad_right) == (0, 0, 0, 0)


# -- what the emitter refuses ---------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftRows(RowMap):
    """A row map the runtime has no rule for."""


@irdl_op_definition
class ShiftOp(PositionalSyntax):
    name = "test.shift"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), TileCategory(TileKind.RESAMPLE), ShiftRows(), RuntimeOp(200))


@irdl_op_definition
class WindowFieldsOp(PositionalSyntax):
    """A pool whose runtime_fields contradict its window."""

    name = "test.bad_window"
    input = operand_def()
    output = result_def()
    kernel_shape = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), RuntimeOp(201))

    def runtime_fields(self) -> dict[str, object]:
        return {"kernel_h": 5}


def _one_op(op_class: type, text: str) -> object:
    ctx = make_context()
    ctx.load_op(op_class)
    text = f"func.func @main(%x: tensor<1x2x6x6xf32>) {{\n  %y = {text}\n  func.return\n}}"
    module = Parser(ctx, text).parse_module()
    assert isinstance(module, ModuleOp)
    return next(op for op in module.walk() if isinstance(op, op_class))


@pytest.mark.parametrize(
    ("op_class", "text", "message"),
    [
        (ShiftOp, 'test.shift %x {tgr.name = "s"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>',
         "test.shift 's': row map ShiftRows: the runtime bands only pad and resize row maps"),
        (WindowFieldsOp, 'test.bad_window %x {kernel_shape = array<i64: 3, 3>, tgr.name = "w"} : '
         "(tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32>",
         "test.bad_window 'w': runtime_fields() sets kernel_h 5, its band geometry gives 3"),
    ],
)  # fmt: skip
def test_the_emitter_refuses_a_geometry_it_cannot_write(op_class: type, text: str, message: str) -> None:
    op = _one_op(op_class, text)
    with pytest.raises(FromIrError, match=f"^{re.escape(message)}"):
        op_record(op, {op.operands[0]: 0, op.results[0]: 1}, [])  # type: ignore[attr-defined]
