"""2-D tiles in the runtime: which op types run on them, and their kernels on windows.

Which op types: the compiler's rule, the runtime's list and the reader's agree.

The compiler cuts a stage into 2-D tiles only if every op is in `TILEABLE_2D_OPS` and can be
cut along W (`tiling.is_tileable_2d`: TileCategory POINTWISE or CHANNELWISE along W, SPATIAL
with a non-global `SpatialWindow` that has a window along W, or RESAMPLE (pad, resize) with a
`RowMap` along W: a rank-4 map, any pad or coordinate mode). The runtime's executor and loader
refuse any other op in a 2-D plan through one predicate, `tigris_band_op_tileable_2d` (generated
into tigris_format.h), and the Python reader reads the same set (`enums.TILEABLE_2D_OPS`). A small
C program prints the predicate for every op type value; it must accept exactly the runtime op
types of the built-in `tgr` ops the categories admit.

Whether a spatial op has a window along W, whether a channel-wise op stays channel-wise along
W (a concat joining along W does not), and whether a resample op maps columns as rows, depends
on its instance (conv1d is rank 3, concat has an axis, a resize of a sequence has no W), so
every spatial, channel-wise and resample op is judged on a sample written below the way the
planner meets it; such an op without a sample fails the test.

The kernels on windows: every element-wise op of that list, float32 and int8, and the
channel-wise ones (concat along channels or the batch, float32 and int8 with requantization;
batch norm; LRN), run by runtime/tests/run_ops.c with their operands held as a window of rows x
columns (--window), must give exactly the window of what they give on whole tensors, broadcast
operands included (a [1, C, 1, 1] activation held whole, a one-row [1, C, 1, W] activation held as
a window of columns, [C, 1, 1] and [W] constants), and so must the channel-wise ones when their
inputs hold more than the output's window (a halo other readers need). A kernel that does not
compute windows (softmax, a concat along H or W, ...), or whose input holds less than its
output's window, must refuse (TIGRIS_KERNEL_ERR_BAND) rather than misread it.
(The window kernels, conv and pools, are tested by test_runtime_kernels_*.py.)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from runtime_ops import random_inputs, run_ops_binary  # test/support
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.tgr.dialect import TGR_OPS
from tigris.dialects.tgr.traits import RowMap, RuntimeOp, SpatialWindow, TileCategory, TileKind
from tigris.dialects.tgr.weight import WeightOp
from tigris.emit.tgrs import Op, PlanFile, QuantParam, Stage, Tensor, Weight, write_plan
from tigris.emit.tgrs.enums import TILEABLE_2D_OPS
from tigris.emit.tgrs.enums import DType, FileFlag, OpType
from tigris.tools.runtime_build import RUNTIME_DIR, build

PROGRAM = """#include <stdio.h>
#include "tigris_bands.h"

int main(void) {
    int t;
    for (t = 0; t < 256; t++) printf("%d %d\\n", t, tigris_band_op_tileable_2d((uint8_t)t));
    return 0;
}
"""

# One instance of every spatial `tgr` op, as the planner sees it (rank 4 but conv1d's rank 3).
X4, X3, Y4 = "tensor<1x4x8x8xf32>", "tensor<1x4x16xf32>", "tensor<1x4x6x6xf32>"
SPATIAL_SAMPLES = {
    "tgr.conv": (f"tgr.conv %x, %w {{pads = array<i64: 1, 1, 1, 1>}} : ({X4}, tensor<8x4x3x3xf32>) -> "
                 "tensor<1x8x8x8xf32>", [X4, "tensor<8x4x3x3xf32>"]),
    "tgr.depthwise_conv": (f"tgr.depthwise_conv %x, %w : ({X4}, tensor<4x1x3x3xf32>) -> {Y4}",
                           [X4, "tensor<4x1x3x3xf32>"]),
    "tgr.conv1d": (f"tgr.conv1d %x, %w : ({X3}, tensor<8x4x3xf32>) -> tensor<1x8x14xf32>",
                   [X3, "tensor<8x4x3xf32>"]),
    "tgr.max_pool": (f"tgr.max_pool %x {{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : ({X4}) -> "
                     "tensor<1x4x4x4xf32>", [X4]),
    "tgr.avg_pool": (f"tgr.avg_pool %x {{kernel_shape = array<i64: 3, 3>}} : ({X4}) -> {Y4}", [X4]),
    "tgr.global_avg_pool": (f"tgr.global_avg_pool %x : ({X4}) -> tensor<1x4x1x1xf32>", [X4]),
    "tgr.global_max_pool": (f"tgr.global_max_pool %x : ({X4}) -> tensor<1x4x1x1xf32>", [X4]),
}  # fmt: skip


# One instance of every channel-wise `tgr` op, as the planner sees it (concat joins channels;
# slice and gather pick channels, as a ShuffleNet split and channel shuffle do).
X4_2, V4 = "tensor<1x2x8x8xf32>", "tensor<4xf32>"
CHANNELWISE_SAMPLES = {
    "tgr.concat": (f"tgr.concat %x, %w {{axis = 1 : i64}} : ({X4}, {X4_2}) -> tensor<1x6x8x8xf32>",
                   [X4, X4_2]),
    "tgr.batch_norm": (f"tgr.batch_norm %x, %w, %b, %m, %v : ({X4}, {', '.join([V4] * 4)}) -> {X4}",
                       [X4, *[V4] * 4]),
    "tgr.lrn": (f"tgr.lrn %x {{size = 3 : i64}} : ({X4}) -> {X4}", [X4]),
    "tgr.slice": (f"tgr.slice %x {{starts = array<i64: 0, 1, 0, 0>, steps = array<i64: 1, 1, 1, 1>}} : "
                  f"({X4}) -> {X4_2}", [X4]),
    "tgr.gather": (f"tgr.gather %x {{axis = 1 : i64, indices = array<i64: 3, 0>}} : ({X4}) -> {X4_2}", [X4]),
}  # fmt: skip


# One instance of every resample `tgr` op (pad, resize) as a UNet meets it: a rank-4 map whose
# columns the op maps by the rule it maps rows by (RowMap.along W; the kernels on windows and
# the rule's C twin: test_runtime_windows_resample.py).
RESAMPLE_SAMPLES = {
    "tgr.resize": (f"tgr.resize %x {{scales = array<i64: 1, 1, 2, 2>}} : ({X4}) -> tensor<1x4x16x16xf32>", [X4]),
    "tgr.pad": (f"tgr.pad %x {{pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}} : ({X4}) -> tensor<1x4x10x10xf32>", [X4]),
}  # fmt: skip
SAMPLES = SPATIAL_SAMPLES | CHANNELWISE_SAMPLES | RESAMPLE_SAMPLES
OPERAND_NAMES = ("x", "w", "b", "m", "v")


def parse_op(name: str, text: str, types: list[str]):  # type: ignore[no-untyped-def]
    """The parsed, verified op `name` of `text`, its operands %x, %w, ... of `types`."""
    operands = ", ".join(f"%{n}: {t}" for n, t in zip(OPERAND_NAMES, types))
    text = f"func.func @main({operands}) {{\n  %y = {text}\n  func.return\n}}"
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return next(op for op in module.walk() if op.name == name)


def sample(name: str):  # type: ignore[no-untyped-def]
    """The parsed, verified sample op `name`."""
    return parse_op(name, *SAMPLES[name])


def windowed_along_w(op) -> bool:  # type: ignore[no-untyped-def]
    """A spatial op the compiler cuts in 2-D tiles: a non-global window with an axis W."""
    trait = op.get_trait(SpatialWindow)
    return trait is not None and not trait.global_window and SpatialWindow.of(op, axis=1) is not None


def channelwise_along_w(op) -> bool:  # type: ignore[no-untyped-def]
    """A channel-wise op the compiler cuts in 2-D tiles: still channel-wise when tiles cut W."""
    return TileCategory.of(op, 1) is TileKind.CHANNELWISE


def mapped_along_w(op) -> bool:  # type: ignore[no-untyped-def]
    """A resample op the compiler cuts in 2-D tiles: its row map holds along W too."""
    row_map = RowMap.of(op)
    return row_map is not None and row_map.along(op, 1)


def compiler_2d_types() -> set[OpType]:
    """The runtime op types of the built-in ops the compiler's rule admits into 2-D tiles."""
    kinds = {op: _kind(op) for op in TGR_OPS if op is not WeightOp}
    judged = {op.name for op, kind in kinds.items()
              if kind in (TileKind.SPATIAL, TileKind.CHANNELWISE, TileKind.RESAMPLE)}  # fmt: skip
    stale = judged ^ set(SAMPLES)
    assert not stale, f"ops of those kinds without a sample, or samples of no such op: {stale}"
    admitted = (op for op, kind in kinds.items() if admitted_2d(op.name, kind))
    return {OpType(op.get_trait(RuntimeOp).op_type) for op in admitted}


def admitted_2d(name: str, kind: TileKind) -> bool:
    """The compiler's rule for the op class `name` of declared category `kind`: pointwise ops
    always, spatial, channel-wise and resample ones as their sample is judged."""
    if kind is TileKind.POINTWISE:
        return True
    if kind is TileKind.SPATIAL:
        return windowed_along_w(sample(name))
    if kind is TileKind.RESAMPLE:
        return mapped_along_w(sample(name))
    return kind is TileKind.CHANNELWISE and channelwise_along_w(sample(name))


def _kind(op) -> TileKind:  # type: ignore[no-untyped-def]
    """The op class's declared category (a pointwise op is pointwise whatever the instance; spatial
    and channel-wise ones are judged further on their samples)."""
    category = op.get_trait(TileCategory)
    return category.kind if category is not None else TileKind.STRUCTURAL


def c_predicate(tmp_path: Path) -> set[int]:
    src = tmp_path / "tileable_2d.c"
    src.write_text(PROGRAM)
    exe = build("tileable_2d", [src], extra_flags=(f"-I{RUNTIME_DIR / 'src'}",))
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return {int(t) for t, ok in (line.split() for line in out.splitlines()) if ok == "1"}


def test_the_samples_are_judged_as_the_planner_judges_them() -> None:
    """conv, depthwise and the pools are windowed along W; conv1d has no W, global pools are
    global. Every channel-wise sample stays channel-wise along W; a concat along W does not."""
    assert {n for n in SPATIAL_SAMPLES if windowed_along_w(sample(n))} == {
        "tgr.conv", "tgr.depthwise_conv", "tgr.max_pool", "tgr.avg_pool"}
    assert all(channelwise_along_w(sample(n)) for n in CHANNELWISE_SAMPLES)
    assert all(mapped_along_w(sample(n)) for n in RESAMPLE_SAMPLES)
    # the row map holds along W in every mode (the geometry follows each one's reads) ...
    corners = ('tgr.resize %x {scales = array<i64: 1, 1, 2, 2>, '
               'coordinate_transformation_mode = "align_corners"}')
    reflect = "tgr.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = \"reflect\"}"
    assert mapped_along_w(parse_op("tgr.resize", f"{corners} : ({X4}) -> tensor<1x4x16x16xf32>", [X4]))
    assert mapped_along_w(parse_op("tgr.pad", f"{reflect} : ({X4}) -> tensor<1x4x10x10xf32>", [X4]))
    # ... of a map that has a W axis: a rank-3 resize has none to cut
    x3 = "tensor<1x4x8xf32>"
    sequence = f"tgr.resize %x {{scales = array<i64: 1, 1, 2>}} : ({x3}) -> tensor<1x4x16xf32>"
    assert not mapped_along_w(parse_op("tgr.resize", sequence, [x3]))
    text = f"tgr.concat %x, %w {{axis = 3 : i64}} : ({X4}, {X4}) -> tensor<1x4x8x16xf32>"
    along_w = parse_op("tgr.concat", text, [X4, X4])
    assert not channelwise_along_w(along_w)


def test_runtime_accepts_exactly_the_ops_the_compiler_cuts_in_2d(tmp_path: Path) -> None:
    want = compiler_2d_types()
    got = c_predicate(tmp_path)
    assert got == {int(t) for t in want}, (
        f"the C predicate lacks {sorted(OpType(t).name for t in {int(w) for w in want} - got)}, "
        f"accepts beyond {sorted(OpType(t).name for t in got - {int(w) for w in want})}"
    )
    assert TILEABLE_2D_OPS == want  # the reader checks the same list
    assert {OpType.ADD, OpType.CONV, OpType.CONCAT, OpType.BATCH_NORM, OpType.LRN} <= want
    assert not {OpType.CONV1D, OpType.GLOBAL_AVG, OpType.SOFTMAX, OpType.INST_NORM} & want



# ---------------------------------------------------------------- kernels on windows

C, H, W = 3, 5, 7
MAP = (1, C, H, W)
Window = tuple[int, int, int, int]  # rows [h0, h1) x columns [w0, w1)
WINDOW = (1, 4, 2, 6)  # rows [1, 4) x columns [2, 6) of every map
ROW_WINDOW = (0, 1, 2, 6)  # the same columns of a one-row [1, C, 1, W] tensor
HALO = (0, 5, 1, 7)  # an input window holding more than WINDOW (its other readers' halo)
SHORT = (1, 4, 3, 6)  # an input window lacking a column of WINDOW
UNARY = (OpType.RELU, OpType.RELU6, OpType.SIGMOID, OpType.TANH, OpType.HARD_SWISH, OpType.LEAKY_RELU,
         OpType.CLIP, *(t for t in OpType if OpType.NEG <= t <= OpType.SILU))
BINARY = (OpType.ADD, OpType.SUB, OpType.MUL, OpType.DIV, OpType.PRELU, OpType.MAX, OpType.MIN)
Q = QuantParam((0.04,), (3,))
Q_OTHER = QuantParam((0.1,), (-7,))  # an input quantized otherwise: concat requantizes it


class Builder:
    """One stage of ops on the map x: tensors, ops, weights, model inputs/outputs. Every result is
    a model output; int8 tensors take quant parameter 0 (Q) unless told otherwise."""

    def __init__(self, dtype: DType) -> None:
        self.dtype, self.tensors, self.ops, self.weights, self.inputs = dtype, [], [], [], []
        self.x = self.activation("x", MAP)

    def tensor(self, name: str, shape: tuple[int, ...], dtype: DType | None = None,
               **kw) -> int:  # type: ignore[no-untyped-def]
        dtype = dtype or self.dtype
        kw.setdefault("quant", 0 if dtype == DType.I8 else None)
        self.tensors.append(Tensor(name, dtype, shape, **kw))
        return len(self.tensors) - 1

    def activation(self, name: str, shape: tuple[int, ...], dtype: DType | None = None,
                   **kw) -> int:  # type: ignore[no-untyped-def]
        self.inputs.append(self.tensor(name, shape, dtype, **kw))
        return self.inputs[-1]

    def constant(self, name: str, shape: tuple[int, ...], rng: np.random.Generator) -> int:
        data = (rng.integers(-128, 128, shape, dtype=np.int8) if self.dtype == DType.I8
                else rng.uniform(0.5, 1.5, shape).astype(np.float32))
        self.weights.append(Weight(data))
        return self.tensor(name, shape, weight=len(self.weights) - 1)

    def op(self, op_type: OpType, inputs: tuple[int, ...], out_dtype: DType | None = None,
           shape: tuple[int, ...] = MAP, **kw) -> None:  # type: ignore[no-untyped-def]
        out = self.tensor(f"y{len(self.ops)}", shape, out_dtype)
        self.ops.append(Op(op_type, f"{op_type.name.lower()}{len(self.ops)}", inputs, (out,), **kw))

    def plan(self, tables: list[bytes] | None = None) -> PlanFile:
        outputs = tuple(o for op in self.ops for o in op.outputs)
        stage = Stage(tuple(range(len(self.ops))), tuple(self.inputs), outputs, peak=1 << 16)
        flags = FileFlag.QUANTIZED if any(t.dtype == DType.I8 for t in self.tensors) else FileFlag(0)
        return PlanFile("windows", self.tensors, self.ops, [stage], tuple(self.inputs), outputs,
                        weights=self.weights, quant_params=[Q, Q_OTHER], tables=tables or [], flags=flags)


def elementwise_plans() -> dict[str, PlanFile]:
    """Every element-wise op of the 2-D list, float32 and int8 (a random lookup table: the window
    must give the same bytes whatever the table), binary ops against every kind of operand."""
    rng = np.random.default_rng(3)
    plans = {}
    for dtype in (DType.F32, DType.I8):
        b = Builder(dtype)
        kw = {} if dtype == DType.F32 else {"table": 0}
        for t in UNARY:
            b.op(t, (b.x,), alpha=0.7, beta=0.3, clip_min=-0.5, clip_max=0.75, **kw)
        plans[f"unary_{dtype.name}"] = b.plan([rng.integers(0, 256, 256, dtype=np.uint8).tobytes()])
        b = Builder(dtype)
        operands = (b.activation("map", MAP), b.activation("scale", (1, C, 1, 1)),
                    b.activation("row", (1, C, 1, W)), b.constant("per_channel", (C, 1, 1), rng),
                    b.constant("per_column", (W,), rng))
        for t in BINARY:
            for other in operands:
                b.op(t, (b.x, other))
        plans[f"binary_{dtype.name}"] = b.plan()
    b = Builder(DType.F32)
    b.op(OpType.QUANTIZE, (b.x,), out_dtype=DType.I8)
    plans["quantize"] = b.plan()
    b = Builder(DType.I8)
    b.op(OpType.DEQUANTIZE, (b.x,), out_dtype=DType.F32)
    plans["dequantize"] = b.plan()
    return plans


PLANS = elementwise_plans()


def run_windows(plan: PlanFile, inputs: list[np.ndarray], windows: dict[int, Window],
                tmp: Path) -> subprocess.CompletedProcess[bytes]:
    """run_ops (ASan + UBSan) with each tensor of `windows` held as its window; out.bin in tmp."""
    (tmp / "plan.tgrs").write_bytes(write_plan(plan))
    (tmp / "in.bin").write_bytes(b"".join(np.ascontiguousarray(a).tobytes() for a in inputs))
    args = [str(v) for t, win in windows.items() for v in ("--window", t, *win)]
    files = [str(tmp / name) for name in ("plan.tgrs", "in.bin", "out.bin")]
    cmd = [str(run_ops_binary(sanitize=True)), *files, *args]
    return subprocess.run(cmd, capture_output=True, check=False)


def window_of(data: bytes, tensor: Tensor, window: Window) -> bytes:
    """The bytes of `window` of every batch item of a whole rank-4 tensor stored channels-last,
    laid out as run_ops writes a windowed output: [N][h1 - h0][w1 - w0][C]."""
    n, c, h, w = tensor.shape
    h0, h1, w0, w1 = window
    pixels = np.frombuffer(data, np.uint8).reshape(n, h, w, c * DType(tensor.dtype).size)
    return pixels[:, h0:h1, w0:w1].tobytes()


def check_windows(plan: PlanFile, windows: dict[int, Window], tmp: Path) -> None:
    """Run the plan on whole tensors, then with `windows` (every model output among them): each
    output must be exactly the window of its whole-tensor result."""
    x = random_inputs(plan, 9)
    whole = run_windows(plan, x, {}, tmp)
    assert whole.returncode == 0, whole.stderr.decode()
    full = (tmp / "out.bin").read_bytes()
    windowed = run_windows(plan, x, windows, tmp)
    assert windowed.returncode == 0, windowed.stderr.decode()
    got, pos, at = (tmp / "out.bin").read_bytes(), 0, 0
    for o in plan.outputs:
        t = plan.tensors[o]
        want = window_of(full[pos : pos + t.nbytes], t, windows[o])
        assert got[at : at + len(want)] == want, next(op.name for op in plan.ops if o in op.outputs)
        pos, at = pos + t.nbytes, at + len(want)
    assert (pos, at) == (len(full), len(got))


@pytest.mark.parametrize("name", list(PLANS))
def test_elementwise_kernels_compute_exactly_the_window(name: str, tmp_path: Path) -> None:
    plan = PLANS[name]
    maps = [t for t in (*plan.inputs, *plan.outputs) if plan.tensors[t].shape == MAP]
    rows = [t for t in plan.inputs if plan.tensors[t].shape == (1, C, 1, W)]
    check_windows(plan, {t: WINDOW for t in maps} | {t: ROW_WINDOW for t in rows}, tmp_path)


def channelwise_plans() -> dict[str, PlanFile]:
    """The channel-wise ops of the 2-D list on maps: concat of 2 and 3 inputs of different channel
    counts along the channels (int8: one input quantized otherwise, so requantized) and along the
    batch, float32 and int8; batch norm; LRN of a narrow and a wide channel window."""
    rng = np.random.default_rng(5)
    plans = {}
    for dtype in (DType.F32, DType.I8):
        b = Builder(dtype)
        a = b.activation("a", (1, 2, H, W), quant=1 if dtype == DType.I8 else None)
        c = b.activation("c", (1, 4, H, W))
        b.op(OpType.CONCAT, (b.x, a), shape=(1, C + 2, H, W), axis=-1)  # runtime axis -1: C
        b.op(OpType.CONCAT, (a, c, b.x), shape=(1, 2 + 4 + C, H, W), axis=3)
        b.op(OpType.CONCAT, (b.x, b.x), shape=(2, C, H, W), axis=0)  # along the batch
        plans[f"concat_{dtype.name}"] = b.plan()
    b = Builder(DType.F32)
    vectors = tuple(b.constant(name, (C,), rng) for name in ("scale", "bias", "mean", "var"))
    b.op(OpType.BATCH_NORM, (b.x, *vectors), epsilon=1e-3)
    plans["batch_norm"] = b.plan()
    b = Builder(DType.F32)
    wide = b.activation("wide", (1, 8, H, W))
    b.op(OpType.LRN, (b.x,), kernel_h=3, alpha=0.3, beta=0.75, epsilon=1.0)
    b.op(OpType.LRN, (wide,), shape=(1, 8, H, W), kernel_h=5, alpha=0.5, beta=0.6, epsilon=2.0)
    plans["lrn"] = b.plan()
    return plans


CHANNELWISE = channelwise_plans()


@pytest.mark.parametrize("inputs", [WINDOW, HALO], ids=["same_window", "inputs_with_halo"])
@pytest.mark.parametrize("name", list(CHANNELWISE))
def test_channelwise_kernels_compute_exactly_the_window(name: str, inputs: Window, tmp_path: Path) -> None:
    """Each result's window from inputs holding that window, or more of every map."""
    plan = CHANNELWISE[name]
    check_windows(plan, {t: inputs for t in plan.inputs} | {t: WINDOW for t in plan.outputs}, tmp_path)


def refusing_plans() -> dict[str, PlanFile]:
    """Kernels that need whole rows on a window of columns: softmax, and a concat along H or W
    (runtime axes 1 and 2: a window of the result is not a window of each input)."""
    plans = {}
    for dtype in (DType.F32, DType.I8):
        b = Builder(dtype)
        b.op(OpType.SOFTMAX, (b.x,), axis=-1)
        plans[f"softmax_{dtype.name}"] = b.plan()
        for axis, shape in ((1, (1, C, 2 * H, W)), (2, (1, C, H, 2 * W))):
            b = Builder(dtype)
            b.op(OpType.CONCAT, (b.x, b.x), shape=shape, axis=axis)
            plans[f"concat_{'hw'[axis - 1]}_{dtype.name}"] = b.plan()
    return plans


REFUSING = refusing_plans()


def assert_refused(plan: PlanFile, windows: dict[int, Window], tmp: Path) -> None:
    """The plan runs on whole tensors, and its kernel refuses `windows` (run_ops exits 3)."""
    x = random_inputs(plan, 9)
    assert run_windows(plan, x, {}, tmp).returncode == 0  # whole tensors: fine
    res = run_windows(plan, x, windows, tmp)
    assert res.returncode == 3 and "not resident" in res.stderr.decode(), res.stderr.decode()


@pytest.mark.parametrize("name", list(REFUSING))
def test_other_kernels_refuse_a_window(name: str, tmp_path: Path) -> None:
    plan = REFUSING[name]
    assert_refused(plan, {t: WINDOW for t in (*plan.inputs, *plan.outputs)}, tmp_path)


@pytest.mark.parametrize("name", list(CHANNELWISE))
def test_channelwise_kernels_refuse_an_input_short_of_the_window(name: str, tmp_path: Path) -> None:
    """An input lacking a pixel of the result's window: refused, never read out of bounds."""
    plan = CHANNELWISE[name]
    assert_refused(plan, {t: SHORT for t in plan.inputs} | {t: WINDOW for t in plan.outputs}, tmp_path)
