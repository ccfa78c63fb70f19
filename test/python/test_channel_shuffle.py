"""ShuffleNet's channel shuffle and split, tiled.

- fold-channel-shuffle: reshape -> transpose -> reshape becomes one tgr.gather along C whose
  indices are exactly the permutation the three ops compute (numpy's reshape/transpose is the
  oracle; onnxruntime on a built ONNX graph and the interpreter before/after the pass on the
  zoo model give bit-identical outputs).
- ChannelPickTileCategory: a slice changing only C and a constant-index gather along C are
  channel-wise, along H and W; every other slice or gather stays structural; the emitter writes
  that as the record's band geometry (SAME, or NONE on both axes) and the runtime's
  `tigris_band_op_tileable` judges the emitted records the same way.
- The kernels on row bands and 2-D windows (runtime/tests/run_ops.c --window, ASan + UBSan, fast
  and reference builds): each window of the result computed alone equals the same pixels of the
  whole run, byte for byte (the whole run itself equals numpy's slicing / take), also when the
  input holds more than the window; an input one row or column short, and any slice or gather
  that is not a channel pick, is refused with TIGRIS_KERNEL_ERR_BAND.
- End to end: shufflenet_v2 (float and int8) needs a far smaller arena, and at that minimum the
  C runtime gives the bytes of a one-stage run.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import onnx
import pytest
from kernel_windows import Window, assert_refused, builds, crop, run_tiles, windows_to_check  # test/support
from onnx import TensorProto, helper
from xdsl.context import Context
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.interpreter import run_module
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.record_fields import to_runtime
from tigris.dialects.tgr.traits import TileCategory, TileKind
from tigris.emit.tgrs import Op, PlanFile, QuantParam, Stage, Tensor, write_plan
from tigris.emit.tgrs.enums import BandGeometry, DType, FileFlag, OpType
from tigris.emit.tgrs.op_records import op_record
from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.tools.report import analyze_module
from tigris.tools.runtime_binding import run_plan
from tigris.tools.runtime_build import RUNTIME_DIR, build, library_sources
from tigris.transforms import get_all_passes
from tigris.transforms.normalize.fold_channel_shuffle import shuffle_indices
from tigris.transforms.pipelines import NORMALIZE, TigrisCompilePass, run_passes

# -- the fold ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("groups", "per_group"), [(2, 3), (3, 2), (4, 5), (2, 16), (1, 4), (4, 1)])
def test_indices_are_what_reshape_transpose_reshape_computes(groups: int, per_group: int) -> None:
    x = np.random.default_rng(0).standard_normal((2, groups * per_group, 3, 4))
    n, c, h, w = x.shape
    want = x.reshape(n, groups, per_group, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)
    assert np.array_equal(x[:, shuffle_indices(groups, per_group)], want)


def shuffle_model(shape: tuple[int, ...], groups: int) -> onnx.ModelProto:
    """x -> Reshape [N, G, C/G, ...] -> Transpose (0, 2, 1, ...) -> Reshape [N, C, ...] -> Split
    in two along C, as PyTorch exports ShuffleNetV2's shuffle and its next block's split."""
    n, c, *rest = shape
    split = [n, groups, c // groups, *rest]
    perm = [0, 2, 1, *range(3, len(split))]
    half = [n, c // 2, *rest]
    constants = {"split_shape": split, "join_shape": list(shape), "sizes": [c // 2, c // 2]}
    shapes = [helper.make_tensor(name, TensorProto.INT64, [len(v)], v) for name, v in constants.items()]
    nodes = [
        helper.make_node("Reshape", ["x", "split_shape"], ["a"], name="reshape_split"),
        helper.make_node("Transpose", ["a"], ["t"], name="shuffle", perm=perm),
        helper.make_node("Reshape", ["t", "join_shape"], ["y"], name="reshape_join"),
        helper.make_node("Split", ["y", "sizes"], ["left", "right"], name="split", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "shuffle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, half) for name in ("left", "right")], shapes,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    return model


RunOrt = Callable[[Path, dict[str, np.ndarray]], list[np.ndarray]]

SHUFFLES = {"rank4_g2": ((1, 8, 5, 6), 2), "rank4_g4_batch2": ((2, 8, 3, 7), 4), "rank3_g2": ((1, 6, 9), 2)}


@pytest.mark.parametrize("name", list(SHUFFLES))
def test_fold_is_exact_against_onnxruntime(name: str, tmp_path: Path, run_onnxruntime: RunOrt) -> None:
    """The whole normalization of a built shuffle + split: one gather and two slices, no
    reshape or transpose left, and the interpreter gives onnxruntime's outputs bit for bit."""
    shape, groups = SHUFFLES[name]
    path = tmp_path / "shuffle.onnx"
    path.write_bytes(shuffle_model(shape, groups).SerializeToString())
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    want = run_onnxruntime(path, {"x": x})
    module = import_model_file(path)
    run_passes(NORMALIZE, Context(), module)
    ops = [op.name for op in module.walk() if op.name.startswith("tgr.")]
    assert sorted(ops) == ["tgr.gather", "tgr.slice", "tgr.slice"], ops
    got = run_module(module, [x])
    assert all(np.array_equal(w, g) for w, g in zip(want, got, strict=True))


def test_fold_keeps_the_zoo_model_bit_exact(tmp_path: Path) -> None:
    """shufflenet_v2 through the interpreter just before and just after fold-channel-shuffle:
    the same bits, and every shuffle (four) became a gather."""
    import zoo  # test/models

    path = zoo.build_zoo(tmp_path, ["shufflenet_v2"], float_only=True)["shufflenet_v2"]
    module = import_model_file(path)
    at = NORMALIZE.index("fold-channel-shuffle")
    run_passes(NORMALIZE[:at], Context(), module)
    x = np.random.default_rng(2).standard_normal((1, 3, 64, 64)).astype(np.float32)
    before = run_module(module, [x])
    get_all_passes()["fold-channel-shuffle"]()().apply(Context(), module)
    module.verify()
    names = [op.name for op in module.walk()]
    assert names.count("tgr.gather") == 4 and "tgr.transpose" not in names
    after = run_module(module, [x])
    assert all(np.array_equal(b, a) for b, a in zip(before, after, strict=True))


# -- the tile category, in the compiler and in the runtime ---------------------------------------

X = (2, 6, 4, 5)
"""The input of every category case: [N, C, H, W]."""


@dataclass(frozen=True)
class Pick:
    """A slice of X (`starts`, `steps`: one per model axis) or a gather of constant `indices`
    along `axis`; its result shape `y`, and whether it is a channel pick."""

    y: tuple[int, ...]
    channel_pick: bool
    starts: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()
    axis: int = 0
    indices: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return "gather" if self.indices else "slice"

    def ir(self) -> str:
        """The op on %x, as tigris-opt reads it."""

        def array(values: tuple[int, ...]) -> str:
            return f"array<i64: {', '.join(map(str, values))}>"

        attrs = (f"axis = {self.axis} : i64, indices = {array(self.indices)}" if self.indices
                 else f"starts = {array(self.starts)}, steps = {array(self.steps)}")  # fmt: skip
        tx, ty = (f"tensor<{'x'.join(map(str, s))}xf32>" for s in (X, self.y))
        return f"tgr.{self.kind} %x {{{attrs}}} : ({tx}) -> {ty}"

    def record(self, name: str) -> Op:
        """The op record as the emitter writes it: slice params in runtime (channels-last)
        order, a gather's axis in model order."""
        if self.indices:
            return Op(OpType.GATHER, name, (0,), (1,), axis=self.axis, params=self.indices)
        params = (*to_runtime(self.starts, 4), *to_runtime(self.steps, 4))
        return Op(OpType.SLICE, name, (0,), (1,), params=params)

    def numpy(self, x: np.ndarray) -> np.ndarray:
        """The oracle: numpy's take, axis by axis."""
        if self.indices:
            return np.take(x, self.indices, axis=self.axis)
        for a, (start, step, n) in enumerate(zip(self.starts, self.steps, self.y, strict=True)):
            x = np.take(x, [start + i * step for i in range(n)], axis=a)
        return x


CASES = {
    "slice_channels": Pick((2, 3, 4, 5), True, starts=(0, 2, 0, 0), steps=(1, 1, 1, 1)),
    "slice_channels_by_step": Pick((2, 3, 4, 5), True, starts=(0, 5, 0, 0), steps=(1, -2, 1, 1)),
    "slice_rows": Pick((2, 6, 3, 5), False, starts=(0, 0, 1, 0), steps=(1, 1, 1, 1)),
    "slice_rows_reversed": Pick((2, 6, 4, 5), False, starts=(0, 0, 3, 0), steps=(1, 1, -1, 1)),
    "slice_columns_by_step": Pick((2, 6, 4, 3), False, starts=(0, 0, 0, 0), steps=(1, 1, 1, 2)),
    "slice_batch": Pick((1, 6, 4, 5), False, starts=(1, 0, 0, 0), steps=(1, 1, 1, 1)),
    "gather_channels": Pick((2, 4, 4, 5), True, axis=1, indices=(5, 0, 3, 3)),
    "gather_rows": Pick((2, 6, 2, 5), False, axis=2, indices=(3, 0)),
    "gather_columns": Pick((2, 6, 4, 3), False, axis=3, indices=(1, 2, 0)),
}


def parsed_ops(args: str, body: str) -> list:  # type: ignore[type-arg]
    """The ops of `@main(args) { body }`, parsed and verified."""
    module = Parser(make_context(), f"func.func @main({args}) {{\n{body}\n  func.return\n}}").parse_module()
    module.verify()
    return [op for op in module.walk() if op.name.startswith("tgr.")]


@pytest.mark.parametrize("name", list(CASES))
def test_only_channel_picks_are_channelwise(name: str) -> None:
    pick = CASES[name]
    (op,) = parsed_ops("%x: tensor<2x6x4x5xf32>", f"  %y = {pick.ir()}")
    want = TileKind.CHANNELWISE if pick.channel_pick else TileKind.STRUCTURAL
    assert (TileCategory.of(op, 0), TileCategory.of(op, 1)) == (want, want)


def test_gathers_that_change_the_rank_or_read_indices_at_run_time_are_structural() -> None:
    x, i = "tensor<2x6x4x5xf32>", "tensor<3xi32>"
    gathers = parsed_ops(f"%x: {x}, %i: {i}", f"""
      %a = tgr.gather %x {{axis = 1 : i64, indices = array<i64: 0, 1, 2, 3>}} : ({x}) -> tensor<2x2x2x4x5xf32>
      %b = tgr.gather %x, %i {{axis = 1 : i64}} : ({x}, {i}) -> tensor<2x3x4x5xf32>""")
    assert len(gathers) == 2 and all(TileCategory.of(op) is TileKind.STRUCTURAL for op in gathers)


PREDICATE = """#include <stdio.h>
#include <stdint.h>
#include "tigris_bands.h"
#include "tigris_loader.h"

static uint32_t words[1 << 14];

int main(int argc, char **argv) {
    tigris_plan_t plan;
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    size_t len;
    uint16_t i;
    if (f == NULL) return 2;
    len = fread(words, 1, sizeof words, f);
    fclose(f);
    if (tigris_plan_load((const uint8_t *)words, (uint32_t)len, &plan) != TIGRIS_OK) return 3;
    for (i = 0; i < plan.header->num_ops; i++) printf("%d\\n", tigris_band_op_tileable(&plan, &plan.ops[i]));
    return 0;
}
"""


def one_op_plan(name: str, dtype: DType = DType.F32, requantize: bool = False) -> PlanFile:
    """CASES[name] as the one op of a plan; int8: x at parameters 0, y at 1 if `requantize`."""
    pick, int8 = CASES[name], dtype == DType.I8
    tensors = [Tensor("x", dtype, X, quant=0 if int8 else None),
               Tensor("y", dtype, pick.y, quant=int(requantize) if int8 else None)]  # fmt: skip
    quants = [QuantParam((0.05,), (3,)), QuantParam((0.08,), (-5,))] if int8 else []
    flags = FileFlag.QUANTIZED if int8 else FileFlag(0)
    stage = Stage((0,), (0,), (1,), peak=1 << 14)
    return PlanFile(name, tensors, [pick.record(name)], [stage], (0,), (1,), quant_params=quants, flags=flags)


def emitted(name: str) -> Op:
    """CASES[name]'s record as the emitter writes it from the parsed op."""
    (op,) = parsed_ops("%x: tensor<2x6x4x5xf32>", f"  %y = {CASES[name].ir()}")
    return op_record(op, {op.operands[0]: 0, op.results[0]: 1}, [])


@pytest.mark.parametrize("name", list(CASES))
def test_the_emitter_writes_the_category_as_band_geometry(name: str) -> None:
    """A channel pick reads the same pixels along H and W (SAME), anything else is cut along
    neither (NONE); the record is otherwise the one `Pick.record` writes by hand."""
    record, pick = emitted(name), CASES[name]
    want = BandGeometry.SAME if pick.channel_pick else BandGeometry.NONE
    assert (record.geometry_h, record.geometry_w) == (want, want)
    assert replace(record, geometry_h=BandGeometry.NONE, geometry_w=BandGeometry.NONE) == pick.record(record.name)


def test_runtime_judges_channel_picks_as_the_compiler_does(tmp_path: Path) -> None:
    src = tmp_path / "tileable.c"
    src.write_text(PREDICATE)
    flags = (f"-I{RUNTIME_DIR / 'src'}",)
    exe = build("band_op_tileable", [src, *library_sources()], sanitize=True, extra_flags=flags)
    path = tmp_path / "plan.tgrs"
    for name, pick in CASES.items():
        path.write_bytes(write_plan(replace(one_op_plan(name), ops=[emitted(name)])))
        out = subprocess.run([str(exe), str(path)], capture_output=True, text=True, check=True)
        assert out.stdout.split() == [str(int(pick.channel_pick))], name


# -- the kernels on bands and windows ------------------------------------------------------------

DTYPES = {"f32": (DType.F32, False), "i8": (DType.I8, False), "i8_requant": (DType.I8, True)}
CHUNK = 30
"""Tiles per run_ops call (kernel_windows.MAX_COPIES - 1: copy 0 runs whole)."""


def random_x(shape: tuple[int, ...], dtype: DType, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == DType.I8:
        return rng.integers(-128, 128, shape, dtype=np.int8)
    return rng.standard_normal(shape).astype(np.float32)


def grown(window: Window, h: int, w: int) -> Window:
    """The window one row and one column larger on each side, cut to the map: a halo other
    readers of the input may need."""
    h0, h1, w0, w1 = window
    return (max(0, h0 - 1), min(h, h1 + 1), max(0, w0 - 1), min(w, w1 + 1))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", [n for n, pick in CASES.items() if pick.channel_pick])
def test_channel_picks_compute_exactly_the_window(name: str, dtype: str) -> None:
    """Every output window (all of them: H 4 x W 5), from the same input window and from a
    grown one; row bands are the full-width windows among them. The whole run is numpy's answer
    (int8 without requantization: the same bytes). An input one row or column short of the
    output's window is refused."""
    kind, requant = DTYPES[dtype]
    plan = one_op_plan(name, kind, requant)
    x = random_x(X, kind, 3)
    h, w = X[2], X[3]
    windows = windows_to_check(h, w, np.random.default_rng(4))
    assert any(win[2:] == (0, w) and win[:2] != (0, h) for win in windows)  # row bands are among them
    tiles = [(win, win) for win in windows] + [(grown(win, h, w), win) for win in windows]
    for build_name, binary in builds().items():
        for first in range(0, len(tiles), CHUNK):
            chunk = tiles[first : first + CHUNK]
            whole, *parts = run_tiles(plan, x, [None, *chunk], binary)
            assert requant or np.array_equal(whole, CASES[name].numpy(x)), build_name
            for (_, window), part in zip(chunk, parts, strict=True):
                want = np.ascontiguousarray(crop(whole, window)).tobytes()
                assert part.tobytes() == want, (build_name, window)
        target = (1, 3, 1, 4)
        for short in ((2, 3, 1, 4), (1, 2, 1, 4), (1, 3, 2, 4), (1, 3, 1, 3)):
            assert_refused(plan, x, (short, target), binary)


def test_rank3_channel_pick_runs_on_row_bands() -> None:
    """[N, C, L] (stored [N, L, C]): a channel gather on every band of L equals the whole run's
    rows (numpy's take); an input band a row short is refused."""
    tensors = [Tensor("x", DType.F32, (2, 5, 7)), Tensor("y", DType.F32, (2, 3, 7))]
    op = Op(OpType.GATHER, "gather", (0,), (1,), axis=1, params=(4, 0, 2))
    plan = PlanFile("rank3", tensors, [op], [Stage((0,), (0,), (1,), peak=1 << 14)], (0,), (1,))
    x = random_x((2, 5, 7), DType.F32, 5)
    bands = [(h0, h1, 0, 1) for h0 in range(7) for h1 in range(h0 + 1, 8)]
    for binary in builds().values():
        whole, *parts = run_tiles(plan, x, [None, *((b, b) for b in bands)], binary)
        assert np.array_equal(whole, x[:, [4, 0, 2]])
        for band, part in zip(bands, parts, strict=True):
            assert np.array_equal(part, whole[:, :, band[0] : band[1]]), band
        assert_refused(plan, x, ((1, 4, 0, 1), (0, 4, 0, 1)), binary)


@pytest.mark.parametrize("name", [n for n, pick in CASES.items() if not pick.channel_pick])
def test_other_slices_and_gathers_refuse_bands_and_windows(name: str) -> None:
    """A slice or gather that is not a channel pick runs on whole tensors (numpy's answer) and
    refuses a window and a row band, even when input and output hold the same pixels."""
    plan, pick = one_op_plan(name), CASES[name]
    x = random_x(X, DType.F32, 6)
    for binary in builds().values():
        (whole,) = run_tiles(plan, x, [None], binary)
        assert np.array_equal(whole, pick.numpy(x))
        for window in ((0, 1, 0, 1), (0, 1, 0, pick.y[3])):  # a 1 x 1 window, a one-row band
            assert_refused(plan, x, (window, window), binary)


# -- end to end ----------------------------------------------------------------------------------

MINIMUM = {"shufflenet_v2": 2048, "shufflenet_v2_int8": 768}
"""Upper bounds of the minimum budgets (tigris analyze): what they became once the shuffles folded
and the picks tiled (set then by the global pool's one-row reduction tiles; other planner work
may lower them). With each shuffle as reshape + transpose + reshape, whole maps, they were 16384
and 4096 B, set by the first reshape."""


def _stage_of(plan: PlanFile, op: int) -> int:
    return next(k for k, stage in enumerate(plan.stages) if op in stage.ops)


@pytest.fixture(scope="module")
def shufflenet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import zoo  # test/models

    return zoo.build_zoo(tmp_path_factory.mktemp("shufflenet"), ["shufflenet_v2"])


@pytest.mark.parametrize("key", list(MINIMUM))
def test_shufflenet_runs_at_its_much_smaller_minimum(key: str, shufflenet: dict[str, Path]) -> None:
    module = import_model_file(shufflenet[key])
    run_passes(NORMALIZE, Context(), module)
    low = analyze_module(module, key, 64 << 10).min_budget
    assert low <= MINIMUM[key], f"{key}: minimum budget {low}"
    x = np.random.default_rng(7).standard_normal((1, 3, 64, 64)).astype(np.float32)
    outputs = []
    for budget in (low, 1 << 20):
        compiled = module.clone()
        TigrisCompilePass(budget=budget).plan_and_lower(Context(), compiled)
        plan = plan_file_from_module(compiled, budget)
        if budget == low:  # the shuffles and splits run in tiles, not whole
            picks = [i for i, op in enumerate(plan.ops) if op.op_type in (OpType.GATHER, OpType.SLICE)]
            tiled = [plan.stages[_stage_of(plan, i)].tile_plan is not None for i in picks]
            assert len(picks) == 8 and all(tiled), tiled
        data = write_plan(plan)
        result = run_plan(data, [x], fast=budget, dequantize=False)
        assert result.stats["slow_overflow_count"] == 0, result.stats
        outputs.append(b"".join(np.ascontiguousarray(y).tobytes() for y in result.outputs))
    assert outputs[0] == outputs[1], f"{key}: the run at {low} B differs from the one-stage run"
