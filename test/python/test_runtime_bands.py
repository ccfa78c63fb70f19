"""2-D tiles in the runtime: which op types run on them, and their kernels on windows.

Which op types: the compiler's rule, the runtime's list and the reader's agree.

The compiler cuts a stage into 2-D tiles only if every op is pointwise or windowed along H and W
(`tiling.is_tileable_2d`: TileCategory POINTWISE, or SPATIAL with a non-global `SpatialWindow`
that has a window along W). The runtime's executor and loader refuse any other op in a 2-D plan
through one predicate, `tigris_band_op_tileable_2d` (generated into tigris_format.h), and the Python
reader reads the same set (`enums.TILEABLE_2D_OPS`). A small C program prints the predicate for
every op type value; it must accept exactly the runtime op types of the built-in `tgr` ops the
compiler's rule admits.

Whether a spatial op has a window along W depends on its instance (conv1d is rank 3), so every
spatial op is judged on a sample written below the way the planner meets it; a spatial op
without a sample fails the test.

The element-wise kernels on windows: every element-wise op of that list, float32 and int8, run by
runtime/tests/run_ops.c with its operands held as a window of rows x columns (--window) must
give exactly the window of what it gives on whole tensors, broadcast operands included (a
[1, C, 1, 1] activation held whole, a one-row [1, C, 1, W] activation held as a window of
columns, [C, 1, 1] and [W] constants). A kernel that does not compute windows (softmax, batch
norm, concat, ...) must refuse one (TIGRIS_KERNEL_ERR_BAND) rather than misread it.
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
from tigris.dialects.tgr.traits import RuntimeOp, SpatialWindow, TileCategory, TileKind
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


def sample(name: str):  # type: ignore[no-untyped-def]
    """The parsed, verified sample op `name`."""
    text, types = SPATIAL_SAMPLES[name]
    operands = ", ".join(f"%{n}: {t}" for n, t in zip(("x", "w"), types))
    text = f"func.func @main({operands}) {{\n  %y = {text}\n  func.return\n}}"
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return next(op for op in module.walk() if op.name == name)


def windowed_along_w(op) -> bool:  # type: ignore[no-untyped-def]
    """A spatial op the compiler cuts in 2-D tiles: a non-global window with an axis W."""
    trait = op.get_trait(SpatialWindow)
    return trait is not None and not trait.global_window and SpatialWindow.of(op, axis=1) is not None


def compiler_2d_types() -> set[OpType]:
    """The runtime op types of the built-in ops the compiler's rule admits into 2-D tiles."""
    kinds = {op: _kind(op) for op in TGR_OPS if op is not WeightOp}
    spatial = {op.name for op, kind in kinds.items() if kind is TileKind.SPATIAL}
    stale = spatial ^ set(SPATIAL_SAMPLES)
    assert not stale, f"spatial ops without a sample, or samples of no spatial op: {stale}"
    return {
        OpType(op.get_trait(RuntimeOp).op_type)
        for op, kind in kinds.items()
        if kind is TileKind.POINTWISE or (kind is TileKind.SPATIAL and windowed_along_w(sample(op.name)))
    }


def _kind(op) -> TileKind:  # type: ignore[no-untyped-def]
    """The op class's declared category (pointwise and spatial ones do not depend on the instance)."""
    category = op.get_trait(TileCategory)
    return category.kind if category is not None else TileKind.STRUCTURAL


def c_predicate(tmp_path: Path) -> set[int]:
    src = tmp_path / "tileable_2d.c"
    src.write_text(PROGRAM)
    exe = build("tileable_2d", [src], extra_flags=(f"-I{RUNTIME_DIR / 'src'}",))
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return {int(t) for t, ok in (line.split() for line in out.splitlines()) if ok == "1"}


def test_the_samples_are_judged_as_the_planner_judges_them() -> None:
    """conv, depthwise and the pools are windowed along W; conv1d has no W, global pools are global."""
    assert {n for n in SPATIAL_SAMPLES if windowed_along_w(sample(n))} == {
        "tgr.conv", "tgr.depthwise_conv", "tgr.max_pool", "tgr.avg_pool"}


def test_runtime_accepts_exactly_the_ops_the_compiler_cuts_in_2d(tmp_path: Path) -> None:
    want = compiler_2d_types()
    got = c_predicate(tmp_path)
    assert got == {int(t) for t in want}, (
        f"the C predicate lacks {sorted(OpType(t).name for t in {int(w) for w in want} - got)}, "
        f"accepts beyond {sorted(OpType(t).name for t in got - {int(w) for w in want})}"
    )
    assert TILEABLE_2D_OPS == want  # the reader checks the same list
    assert {OpType.ADD, OpType.CONV} <= want and not {OpType.CONV1D, OpType.GLOBAL_AVG} & want



# ---------------------------------------------------------------- element-wise kernels on windows

C, H, W = 3, 5, 7
MAP = (1, C, H, W)
WINDOW = (1, 4, 2, 6)  # rows [1, 4) x columns [2, 6) of every map
ROW_WINDOW = (0, 1, 2, 6)  # the same columns of a one-row [1, C, 1, W] tensor
UNARY = (OpType.RELU, OpType.RELU6, OpType.SIGMOID, OpType.TANH, OpType.HARD_SWISH, OpType.LEAKY_RELU,
         OpType.CLIP, *(t for t in OpType if OpType.NEG <= t <= OpType.SILU))
BINARY = (OpType.ADD, OpType.SUB, OpType.MUL, OpType.DIV, OpType.PRELU, OpType.MAX, OpType.MIN)
Q = QuantParam((0.04,), (3,))


class Builder:
    """One stage of element-wise ops on the map x: tensors, ops, weights, model inputs/outputs."""

    def __init__(self, dtype: DType) -> None:
        self.dtype, self.tensors, self.ops, self.weights, self.inputs = dtype, [], [], [], []
        self.x = self.activation("x", MAP)

    def tensor(self, name: str, shape: tuple[int, ...], dtype: DType | None = None,
               **kw) -> int:  # type: ignore[no-untyped-def]
        dtype = dtype or self.dtype
        self.tensors.append(Tensor(name, dtype, shape, quant=0 if dtype == DType.I8 else None, **kw))
        return len(self.tensors) - 1

    def activation(self, name: str, shape: tuple[int, ...], dtype: DType | None = None) -> int:
        self.inputs.append(self.tensor(name, shape, dtype))
        return self.inputs[-1]

    def constant(self, name: str, shape: tuple[int, ...], rng: np.random.Generator) -> int:
        data = (rng.integers(-128, 128, shape, dtype=np.int8) if self.dtype == DType.I8
                else rng.uniform(0.5, 1.5, shape).astype(np.float32))
        self.weights.append(Weight(data))
        return self.tensor(name, shape, weight=len(self.weights) - 1)

    def op(self, op_type: OpType, inputs: tuple[int, ...], out_dtype: DType | None = None,
           **kw) -> None:  # type: ignore[no-untyped-def]
        out = self.tensor(f"y{len(self.ops)}", MAP, out_dtype)
        self.ops.append(Op(op_type, f"{op_type.name.lower()}{len(self.ops)}", inputs, (out,), **kw))

    def plan(self, tables: list[bytes] | None = None) -> PlanFile:
        outputs = tuple(o for op in self.ops for o in op.outputs)
        stage = Stage(tuple(range(len(self.ops))), tuple(self.inputs), outputs, peak=1 << 16)
        flags = FileFlag.QUANTIZED if any(t.dtype == DType.I8 for t in self.tensors) else FileFlag(0)
        return PlanFile("windows", self.tensors, self.ops, [stage], tuple(self.inputs), outputs,
                        weights=self.weights, quant_params=[Q], tables=tables or [], flags=flags)


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


def run_windows(plan: PlanFile, inputs: list[np.ndarray], windows: dict[int, tuple[int, int, int, int]],
                tmp: Path) -> subprocess.CompletedProcess[bytes]:
    """run_ops (ASan + UBSan) with each tensor of `windows` held as its window; out.bin in tmp."""
    (tmp / "plan.tgrs").write_bytes(write_plan(plan))
    (tmp / "in.bin").write_bytes(b"".join(np.ascontiguousarray(a).tobytes() for a in inputs))
    args = [str(v) for t, win in windows.items() for v in ("--window", t, *win)]
    files = [str(tmp / name) for name in ("plan.tgrs", "in.bin", "out.bin")]
    cmd = [str(run_ops_binary(sanitize=True)), *files, *args]
    return subprocess.run(cmd, capture_output=True, check=False)


@pytest.mark.parametrize("name", list(PLANS))
def test_elementwise_kernels_compute_exactly_the_window(name: str, tmp_path: Path) -> None:
    plan = PLANS[name]
    x = random_inputs(plan, 9)
    whole = run_windows(plan, x, {}, tmp_path)
    assert whole.returncode == 0, whole.stderr.decode()
    full = (tmp_path / "out.bin").read_bytes()
    maps = [t for t in (*plan.inputs, *plan.outputs) if plan.tensors[t].shape == MAP]
    rows = [t for t in plan.inputs if plan.tensors[t].shape == (1, C, 1, W)]
    windows = {t: WINDOW for t in maps} | {t: ROW_WINDOW for t in rows}
    windowed = run_windows(plan, x, windows, tmp_path)
    assert windowed.returncode == 0, windowed.stderr.decode()
    got, pos, at = (tmp_path / "out.bin").read_bytes(), 0, 0
    h0, h1, w0, w1 = WINDOW
    for o in plan.outputs:
        t = plan.tensors[o]
        item = DType(t.dtype).size
        y = np.frombuffer(full, np.uint8, t.nbytes, pos).reshape(H, W, C * item)
        n = (h1 - h0) * (w1 - w0) * C * item
        assert got[at : at + n] == y[h0:h1, w0:w1].tobytes(), f"{plan.ops[plan.outputs.index(o)].name}"
        pos, at = pos + t.nbytes, at + n
    assert (pos, at) == (len(full), len(got))


def refusing_plans() -> dict[str, PlanFile]:
    """Kernels that need whole rows: each must refuse a window of columns."""
    rng = np.random.default_rng(4)
    plans = {}
    for dtype in (DType.F32, DType.I8):
        b = Builder(dtype)
        b.op(OpType.SOFTMAX, (b.x,), axis=-1)
        plans[f"softmax_{dtype.name}"] = b.plan()
        b = Builder(dtype)
        b.tensors.append(Tensor("cat", dtype, (1, 2 * C, H, W), quant=0 if dtype == DType.I8 else None))
        b.ops.append(Op(OpType.CONCAT, "concat", (b.x, b.x), (len(b.tensors) - 1,), axis=-1))  # runtime axis: C
        plans[f"concat_{dtype.name}"] = b.plan()
    b = Builder(DType.F32)
    vectors = tuple(b.constant(name, (C,), rng) for name in ("scale", "bias", "mean", "var"))
    b.op(OpType.BATCH_NORM, (b.x, *vectors))
    plans["batch_norm"] = b.plan()
    return plans


REFUSING = refusing_plans()


@pytest.mark.parametrize("name", list(REFUSING))
def test_other_kernels_refuse_a_window(name: str, tmp_path: Path) -> None:
    plan = REFUSING[name]
    x = random_inputs(plan, 9)
    assert run_windows(plan, x, {}, tmp_path).returncode == 0  # whole tensors: fine
    res = run_windows(plan, x, {t: WINDOW for t in (*plan.inputs, *plan.outputs)}, tmp_path)
    assert res.returncode == 3 and "not resident" in res.stderr.decode(), res.stderr.decode()
