"""The C executor (runtime/src/tigris_executor.c) against the compiler's own plans.

Tiny ONNX models are compiled at budgets that make the planner choose normal, tiled
and chained stages (with pad and resize row maps, conv1d, rank-2 heads, LZ4 weight
blocks), then run by runtime/tests/test_executor.c with a test kernel that checks and
logs every band (see that file). Here the log is compared with what the compiler
computes: the row ranges of transforms/plan/bands.py for every call of every tile (and
the column windows of 2-D tiles), the ops called per tile, the traffic (bytes loaded and
spilled) and stage counts, and that the executor's arena peak never exceeds the plan's
peak. Hand-made plans then cover reduction tiles and 2-D tiles through the host runner.
"""

from __future__ import annotations

import functools
import math
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from xdsl.context import Context

from tigris.dialects.onnx.importer import import_model_file
from tigris.emit.tgrs import (
    Op,
    PlanFile,
    QuantParam,
    Stage,
    Tensor,
    TilePlan,
    TgrsFormatError,
    Weight,
    read_plan,
    write_plan,
)
from tigris.emit.tgrs.enums import DType, FileFlag, OpType, TileFlag, WeightLayout
from tigris.emit.tgrs.enums import SectionKind as K
from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.emit.tgrs.records import OP, STAGE, TILE_PLAN
from tigris.tools.runtime_build import INCLUDE_DIR, RUNTIME_DIR, STRICT_FLAGS, build, compiler
from tigris.transforms.pipelines import TigrisCompilePass
from tigris.transforms.plan import temporal
from tigris.transforms.plan.bands import axis_tile_ranges, tile_ranges
from tigris.transforms.plan.geometry import Axis, has_axis
from tigris.transforms.plan.graph import PlanGraph, build_plan_graph
from tigris.transforms.plan.memory import timeline
from tigris.transforms.plan import row_cache, tiling
from tigris.transforms.plan.tiling import band_bytes, receptive_field, stage_windows, tile_peak_2d, tile_reads

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
if str(MODELS_DIR) not in sys.path:
    sys.path.insert(0, str(MODELS_DIR))
from graph_builder import GraphBuilder  # noqa: E402
from quantize import quantize_int8  # noqa: E402
from runtime_ops import random_inputs  # noqa: E402  (test/support)
from fuzz_seeds import conv_pool_plan  # noqa: E402  (test/support)
from geometries import GLOBAL, SAME, WINDOW  # noqa: E402  (test/support)
from tgrs_corruptions import FILES, get_field, set_field, set_pool  # noqa: E402

ALIGN = 32  # the compiler's default; TIGRIS_TENSOR_ALIGN on x86_64
SRC = RUNTIME_DIR / "src"
MY_SOURCES = [SRC / "tigris_mem.c", SRC / "tigris_executor.c", SRC / "tigris_bands.c"]
ERR = {"ok": 0, "null": -1, "mem": -2, "kernel": -3, "no_stages": -4, "tile": -5, "input": -6, "weights": -7,
       "plan": -8, "output": -9}
NONE = -1  # test_executor.c prints TIGRIS_NONE16 error locations as -1


def align_up(n: int, a: int = ALIGN) -> int:
    return -(-n // a) * a


# ---------------------------------------------------------------- models


def _convnet() -> onnx.ModelProto:
    g = GraphBuilder("convnet", 1)
    x = g.add_input("x", (1, 3, 24, 24))
    y = g.relu(g.conv(x, 8, 3))
    y = g.relu(g.conv(y, 8, 3, stride=2))
    y = g.pool("MaxPool", y, 2, 2)
    return g.build({"y": g.conv(y, 4, 3)})


def _residual() -> onnx.ModelProto:
    g = GraphBuilder("residual", 2)
    x = g.add_input("x", (1, 4, 20, 20))
    a = g.relu(g.conv(x, 8, 3))
    b = g.relu(g.conv(a, 8, 3))
    c = g.add(a, g.conv(b, 8, 3))
    return g.build({"y": g.relu(g.conv(c, 8, 5))})


def _pad_resize(mode: str) -> onnx.ModelProto:
    g = GraphBuilder("pad_resize_" + mode, 3)
    x = g.add_input("x", (1, 4, 12, 12))
    pads = g.init("pads", np.array([0, 0, 2, 1, 0, 0, 1, 0], dtype=np.int64))
    y = g.op("Pad", [x, pads], (1, 4, 15, 13), mode="constant")
    y = g.relu(g.conv(y, 6, 3))
    scales = g.init("scales", np.array([1, 1, 2, 2], dtype=np.float32))
    coord = {"coordinate_transformation_mode": "half_pixel"} if mode == "linear" else {
        "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    y = g.op("Resize", [y, "", scales], (1, 6, 30, 26), mode=mode, **coord)
    return g.build({"y": g.conv(y, 4, 3)})


def _head() -> onnx.ModelProto:
    g = GraphBuilder("head", 4)
    x = g.add_input("x", (1, 3, 16, 16))
    y = g.relu(g.conv(x, 8, 3, stride=2))
    y = g.flatten(g.global_avg_pool(y))
    return g.build({"y": g.gemm(y, 10)})


def _conv1d() -> onnx.ModelProto:
    g = GraphBuilder("conv1d", 5)
    x = g.add_input("x", (1, 4, 64))
    y = g.relu(g.conv(x, 8, 3))
    y = g.relu(g.conv(y, 8, 5, stride=2))
    return g.build({"y": g.conv(y, 4, 3)})


def _two_io() -> onnx.ModelProto:
    """Two inputs (one read again by a later stage) and two outputs (one from an early stage)."""
    g = GraphBuilder("two_io", 6)
    x = g.add_input("x", (1, 3, 16, 16))
    s = g.add_input("s", (1, 8, 16, 16))
    a = g.relu(g.conv(x, 8, 3))
    b = g.add(g.conv(a, 8, 3), s)
    c = g.relu(g.conv(b, 8, 3))
    d = g.add(c, s)
    return g.build({"early": a, "late": d})


def _sparse(model: onnx.ModelProto) -> onnx.ModelProto:
    """Seven weights in eight zeroed: blocks LZ4 makes smaller, so group-weights keeps them."""
    for i, init in enumerate(model.graph.initializer):
        a = numpy_helper.to_array(init)
        if a.dtype == np.float32 and a.size >= 16:
            a = a.copy()
            a.flat[np.arange(a.size) % 8 != 0] = 0
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(a, init.name))
    return model


def _dilated() -> onnx.ModelProto:
    """Batch 2; dilation 2, stride 2 with no top padding, average and max pooling."""
    g = GraphBuilder("dilated", 7)
    x = g.add_input("x", (2, 3, 21, 10))
    w = g.init("w0", g.rng.normal(0, 0.3, (6, 3, 3, 3)).astype(np.float32))
    y = g.op("Conv", [x, w], (2, 6, 21, 10), dilations=[2, 2], kernel_shape=[3, 3], pads=[2, 2, 2, 2], strides=[1, 1])
    w1 = g.init("w1", g.rng.normal(0, 0.3, (6, 6, 3, 3)).astype(np.float32))
    y = g.op("Conv", [g.relu(y), w1], (2, 6, 10, 5), kernel_shape=[3, 3], pads=[0, 1, 0, 1], strides=[2, 2])
    y = g.op("AveragePool", [y], (2, 6, 10, 5), kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1],
             count_include_pad=1)
    return g.build({"y": g.op("MaxPool", [y], (2, 6, 5, 2), kernel_shape=[2, 2], strides=[2, 2])})


MODELS = {"dilated": _dilated, "convnet": _convnet, "residual": _residual, "pad_nearest": lambda: _pad_resize("nearest"),
          "pad_linear": lambda: _pad_resize("linear"), "head": _head, "conv1d": _conv1d, "two_io": _two_io}
MODELS.update({f"{k}_sp": (lambda f=f: _sparse(f())) for k, f in list(MODELS.items())})

# (model, budget, compress): chosen so that together they run normal stages, lone tiled
# stages, chains of 2-4 stages, over-budget (overflowing) plans and LZ4 weight blocks
# (one per stage, also in chains whose stages each decompress their own block per tile).
CASES = [
    ("convnet", 1 << 20, "none"), ("convnet", 16384, "none"), ("convnet", 4096, "none"),
    ("convnet", 2048, "none"), ("residual", 16384, "none"), ("residual", 8192, "none"),
    ("pad_nearest", 12288, "none"), ("pad_nearest", 8192, "none"), ("pad_nearest", 4096, "none"),
    ("pad_linear", 4096, "none"), ("head", 4096, "none"), ("head", 2048, "none"),
    ("conv1d", 2048, "none"), ("conv1d", 1024, "none"), ("two_io", 8192, "none"), ("two_io", 4096, "none"),
    ("dilated", 8192, "none"), ("dilated", 2048, "none"), ("dilated", 1024, "none"), ("dilated_sp", 8192, "lz4"),
    ("convnet_sp", 65536, "lz4"), ("convnet_sp", 16384, "lz4"), ("convnet_sp", 6144, "lz4"),
    ("residual_sp", 16384, "lz4"), ("pad_linear_sp", 8192, "lz4"), ("head_sp", 4096, "lz4"),
    ("conv1d_sp", 4096, "lz4"), ("two_io_sp", 8192, "lz4"),
    # the greedy's cuts: chains of three stages, and of two with a weight block each (the default
    # cuts fuse those ops into one stage)
    ("pad_nearest", 12288, "none", "greedy"), ("residual_sp", 16384, "lz4", "greedy"),
    ("pad_nearest", 4096, "none", "greedy"), ("convnet", 4096, "none", "greedy"),
    ("pad_nearest", 8192, "none", "greedy"),  # a normal stage larger than the tiles (overflow test)
]

_TMP = Path(tempfile.mkdtemp(prefix="tigris_exec_test_"))


@dataclass
class Compiled:
    name: str
    path: Path  # the .tgrs file
    plan: PlanFile
    graph: PlanGraph
    reserved: int  # header fast_reserved

    @property
    def stages(self) -> list[temporal.Stage]:
        return [temporal.Stage(i, s.ops[0], s.ops[-1], s.peak, list(s.inputs), list(s.outputs))
                for i, s in enumerate(self.plan.stages)]

    def groups(self) -> list[list[int]]:
        """Stage indices as the runtime runs them: each chain is one group."""
        out: list[list[int]] = []
        for i, s in enumerate(self.plan.stages):
            prev = self.plan.stages[out[-1][0]] if out else None
            chained = s.tile_plan is not None and self.plan.tile_plans[s.tile_plan].chain >= 0
            if chained and prev is not None and prev.tile_plan == s.tile_plan:
                out[-1].append(i)
            else:
                out.append([i])
        return out

    def peak(self) -> int:
        """The largest scheduled peak: tile plans' for tiled stages, else the stage's."""
        return max(self.plan.tile_plans[s.tile_plan].peak if s.tile_plan is not None else s.peak
                   for s in self.plan.stages)

    def fast_size(self) -> int:
        return align_up(self.reserved) + self.peak()


@functools.cache
def compiled(model: str, budget: int, compress: str, cuts: str = "shortest") -> Compiled:
    """The model compiled at `budget`; `cuts="greedy"`: the spec's stages, chained where they link
    (the default cuts fuse linked ops into one stage instead, so chains need the greedy's)."""
    onnx_path = _TMP / f"{model}.onnx"
    if not onnx_path.exists():
        onnx.save(MODELS[model](), onnx_path)
    module = import_model_file(str(onnx_path), None)
    TigrisCompilePass(budget=budget, align=ALIGN, compress=compress, cuts=cuts).apply(Context(), module)
    plan = plan_file_from_module(module, budget)
    data = write_plan(plan, compress)
    path = _TMP / f"{model}_{budget}_{compress}_{cuts}.tgrs"
    path.write_bytes(data)
    reserved = int.from_bytes(data[24:28], "little")
    return Compiled(f"{model}@{budget}/{compress}/{cuts}", path, plan, build_plan_graph(module), reserved)


# ---------------------------------------------------------------- the C harness


def _loader_sources(real_loader: bool) -> tuple[list[Path], list[str]]:
    """The real loader (with CRC and LZ4), or the harness's own parser (and the LZ4 decoder)."""
    if not real_loader:
        return [SRC / "tigris_lz4.c"], []
    return [SRC / "tigris_loader.c", SRC / "tigris_lz4.c", SRC / "tigris_crc32.c"], ["-DTEST_USE_LOADER"]


def harness(sanitize: bool = True, extra_flags: tuple[str, ...] = (), real_loader: bool = False) -> Path:
    sources, flags = _loader_sources(real_loader)
    return build("test_executor", [RUNTIME_DIR / "tests" / "test_executor.c", *MY_SOURCES, *sources],
                 sanitize=sanitize, opt="-O1" if sanitize else "-O2", extra_flags=(*flags, *extra_flags))


@dataclass
class Call:
    op: int
    tile: int
    live: int  # fast-arena bytes of tensors in use when the kernel ran
    outs: dict[int, tuple[int, int]]
    ins: dict[int, tuple[int, int]]
    weights: dict[int, int]
    acc: tuple[int, int] | None = None  # reduction tiles: (offset in the fast arena, bytes)
    wins: dict[int, tuple[int, int]] | None = None  # 2-D tiles: columns of the operands held as windows


@dataclass
class Result:
    stats: dict[str, int]
    calls: list[Call]
    text: str


def run(c: Compiled, *args: str, fast: int | None = None, slow: int = 1 << 20, sanitize: bool = True,
        exe: Path | None = None) -> Result:
    exe = exe or harness(sanitize)
    cmd = [str(exe), str(c.path), "--fast", str(fast if fast is not None else c.fast_size()), "--slow", str(slow), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{c.name}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    stats, calls = {}, []
    for line in proc.stdout.splitlines():
        if line.startswith("call "):
            fields = dict(re.findall(r"(\w+)=(\S+)", line.split(" out=")[0]))
            outs = {int(t): (int(s), int(e)) for t, s, e in re.findall(r" out=(\d+):(-?\d+):(-?\d+)", line)}
            ins = {int(t): (int(s), int(e)) for t, s, e in re.findall(r" in=(\d+):(-?\d+):(-?\d+)", line)}
            ws = {int(t): int(h, 16) for t, h in re.findall(r" w=(\d+):([0-9a-f]+)", line)}
            acc = re.search(r" acc=(-?\d+):(\d+)", line)
            wins = {int(t): (int(s), int(e)) for t, s, e in re.findall(r" win=(\d+):(-?\d+):(-?\d+)", line)}
            assert "BAD" not in line, f"{c.name}: {line}"
            calls.append(Call(int(fields["op"]), int(fields["tile"]), int(fields["live"]), outs, ins, ws,
                              (int(acc[1]), int(acc[2])) if acc else None, wins))
        elif "=" in line and not line.startswith("FAIL"):
            key, value = line.split("=", 1)
            stats[key] = int(value)
    return Result(stats, calls, proc.stdout)


def fnv32(data: bytes) -> int:
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


# ---------------------------------------------------------------- what the run must be


def group_ranges(c: Compiled, group: list[int]) -> list[dict[int, tuple[int, int]]]:
    """Per tile of a tiled group, the rows of every tensor: bands.py's ranges (2-D tiles: those
    of the tile's row band, tiles in row-major order), or for reduction tiles the runtime's
    contract (docs/tgrs-format.md): the tile's rows of the reducing op's input, its outputs
    whole (the compiler puts nothing else in such a stage yet)."""
    tp = c.plan.tile_plans[c.plan.stages[group[0]].tile_plan]
    if tp.reduce_op is None:
        rows = tile_ranges(c.graph, [c.stages[i] for i in group], tp.tile_h)
        return [r for r in rows for _ in range(tp.num_tiles_w)]
    assert c.plan.stages[group[0]].ops == (tp.reduce_op,), "a reduction stage of more ops: use bands.py"
    step = c.graph.steps[tp.reduce_op]
    whole = {t: (0, c.graph.tensors[t].height) for t in step.outputs}
    return [{step.inputs[0]: (h, min(h + tp.tile_h, tp.out_h)), **whole} for h in range(0, tp.out_h, tp.tile_h)]


def group_windows(c: Compiled, group: list[int]) -> list[dict[int, tuple[int, int]]]:
    """Per tile of a tiled group, the columns of every tensor held as a window: in 2-D tiles the
    tile's column band of each tensor with a W axis to cut (bands.py, geometry.has_axis), none
    in full-width tiles."""
    tp = c.plan.tile_plans[c.plan.stages[group[0]].tile_plan]
    if not tp.tile_w:
        return [{} for _ in range(tp.num_tiles)]
    cols = axis_tile_ranges(c.graph, [c.stages[i] for i in group], tp.tile_w, Axis.W)
    wins = [{t: r for t, r in col.items() if has_axis(c.graph.tensors[t], Axis.W)} for col in cols]
    return [w for _ in range(tp.num_tiles) for w in wins]


def window_bytes(c: Compiled, t: int, rows: tuple[int, int], cols: tuple[int, int] | None) -> int:
    """Bytes of rows (x columns, for a window) of tensor t: what the runtime holds or moves."""
    return band_bytes(c.graph.tensors[t], rows[1] - rows[0], None if cols is None else cols[1] - cols[0])


Ranges = dict[tuple[int, int], dict[int, tuple[int, int]]]


def expected(c: Compiled) -> tuple[list[tuple[int, int]], Ranges, Ranges, dict[str, int]]:
    """From the plan and bands.py alone: the (op, tile) calls in order, the row range of
    every tensor and the columns of every window per (op, tile) call, and the run's stage
    counts and traffic."""
    plan, graph, stages = c.plan, c.graph, c.stages
    calls: list[tuple[int, int]] = []
    ranges: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}
    wins: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}
    stats = dict(stages_normal=0, stages_tiled=0, stages_chain=0, total_tiles=0, loads_bytes=0, spills_bytes=0)
    for group in c.groups():
        first, last = plan.stages[group[0]], plan.stages[group[-1]]
        stats["spills_bytes"] += sum(graph.tensors[t].nbytes for t in last.outputs)
        if first.tile_plan is None:
            stats["stages_normal"] += 1
            stats["loads_bytes"] += sum(graph.tensors[t].nbytes for t in first.inputs)
            for op in first.ops:
                calls.append((op, -1))
                ranges[(op, -1)] = {t: (0, graph.tensors[t].height) for t in (*graph.steps[op].inputs, *graph.steps[op].outputs)}
                wins[(op, -1)] = {}
            continue
        tp = plan.tile_plans[first.tile_plan]
        stats["stages_chain" if tp.chain >= 0 else "stages_tiled"] += len(group)
        stats["total_tiles"] += tp.num_tiles * tp.num_tiles_w
        if tp.row_cache:  # row caches: the rule's tiles (row_cache.py), not bands.py's
            members = [stages[i] for i in group]
            keep = row_cache.cached_tensors(graph, members)
            for t, tile in enumerate(row_cache.cached_tiles(graph, members, tp.tile_h)):
                stats["loads_bytes"] += sum(graph.tensors[x].row_bytes * (b - a)
                                            for x, (a, b) in tile.new.items() if x in first.inputs)  # fmt: skip
                for i in group:
                    for op in plan.stages[i].ops:
                        step = graph.steps[op]
                        if any(o in tile.new for o in step.outputs):
                            calls.append((op, t))
                            ranges[(op, t)] = {
                                **{x: tile.need[x] for x in step.inputs},
                                **{o: tile.new[o] if o in keep else tile.need[o] for o in step.outputs},
                            }
                            wins[(op, t)] = {}
            continue
        tiles = group_ranges(c, group)
        assert len(tiles) == tp.num_tiles * tp.num_tiles_w
        for t, (r, w) in enumerate(zip(tiles, group_windows(c, group))):
            for tensor in first.inputs:
                if tensor in r:
                    stats["loads_bytes"] += window_bytes(c, tensor, r[tensor], w.get(tensor))
            for i in group:
                for op in plan.stages[i].ops:
                    step = graph.steps[op]
                    if any(o in r for o in step.outputs):
                        calls.append((op, t))
                        operands = (*step.inputs, *step.outputs)
                        ranges[(op, t)] = {x: r.get(x, (0, graph.tensors[x].height)) for x in operands}
                        wins[(op, t)] = {x: w[x] for x in operands if x in w}
    return calls, ranges, wins, stats


def planned_live(c: Compiled) -> dict[tuple[int, int], int]:
    """The planner's memory timeline (transforms/plan/memory.py) at every (op, tile) call:
    the stage's timeline, with each tensor cut to its band for the tile in tiled groups."""
    plan, graph, stages = c.plan, c.graph, c.stages
    live: dict[tuple[int, int], int] = {}
    for group in c.groups():
        first = plan.stages[group[0]]
        if first.tile_plan is None:
            st = stages[group[0]]
            tl = timeline(graph, ALIGN, st.first, st.last)
            live.update({(op, -1): tl.live[op - st.first] for op in first.ops})
            continue
        tp = plan.tile_plans[first.tile_plan]
        members = [stages[i] for i in group]
        if tp.row_cache:  # cached tensors are in their slots, outside the timeline
            per_tile = [row_cache.tile_sizes(graph, members, tile)
                        for tile in row_cache.cached_tiles(graph, members, tp.tile_h)]  # fmt: skip
        else:
            per_tile = [{x: window_bytes(c, x, rows, w.get(x)) for x, rows in r.items()}
                        for r, w in zip(group_ranges(c, group), group_windows(c, group))]  # fmt: skip
        for t, sizes in enumerate(per_tile):
            for i in group:
                tl = timeline(graph, ALIGN, stages[i].first, stages[i].last, sizes)
                live.update({(op, t): tl.live[op - stages[i].first] for op in plan.stages[i].ops})
    return live


def check_run(c: Compiled, res: Result) -> None:
    """A successful run as planned. With overflow, a stage output that overflowed to slow
    memory is kept there as its slow copy: fewer bytes are spilled than planned."""
    s = res.stats
    assert s["err"] == 0 and s["outputs_ok"] == 1 and s["bad"] == 0, (c.name, s)
    assert (s["error_stage"], s["error_op"], s["error_tensor"], s["kernel_error"]) == (NONE, NONE, NONE, 0), s
    calls, ranges, wins, stats = expected(c)
    assert [(k.op, k.tile) for k in res.calls] == calls, c.name
    for k in res.calls:
        want = ranges[(k.op, k.tile)]
        got = {**k.ins, **k.outs}
        assert got == want, f"{c.name}: op {k.op} tile {k.tile}: {got} != bands.py {want}"
        assert k.wins == wins[(k.op, k.tile)], f"{c.name}: op {k.op} tile {k.tile}: columns {k.wins}"
        for t, h in k.weights.items():
            assert h == fnv32(c.plan.weights[c.plan.tensors[t].weight].data), (c.name, k.op, t)
    if s["slow_overflow_count"]:
        assert s["spills_bytes"] <= stats.pop("spills_bytes")
    for key, value in stats.items():
        assert s[key] == value, f"{c.name}: {key} {s[key]} != {value}"
    # everything but the model outputs was freed from slow memory
    assert s["leftover"] == 0 and s["slow_allocs"] == len(c.plan.outputs), (c.name, s)


@pytest.mark.parametrize("case", CASES, ids=lambda case: "-".join(map(str, case)))
def test_runs_as_the_compiler_planned(case: tuple[str, int, str] | tuple[str, int, str, str]) -> None:
    """With an arena exactly the plan's peak: bands, calls, traffic as computed in Python,
    no overflow, and the executor's peak within the plan's."""
    c = compiled(*case)
    res = run(c)
    check_run(c, res)
    planned = planned_live(c)
    for k in res.calls:  # the executor holds exactly what the planner counted, step by step
        assert k.live == planned[(k.op, k.tile)], f"{c.name}: op {k.op} tile {k.tile}: {k.live} != {planned[(k.op, k.tile)]}"
    s = res.stats
    assert s["slow_overflow_count"] == 0 and s["slow_overflow_bytes"] == 0, (c.name, s)
    assert s["fast_reserved"] == c.reserved
    assert s["fast_peak"] <= c.fast_size(), (c.name, s["fast_peak"], c.fast_size())


def test_cases_cover_every_strategy() -> None:
    kinds = set()
    for case in CASES:
        c = compiled(*case)
        for s in c.plan.stages:
            tp = c.plan.tile_plans[s.tile_plan] if s.tile_plan is not None else None
            kinds.add("normal" if tp is None else "chain" if tp.chain >= 0 else "tiled")
            kinds |= {"2-D"} if tp is not None and tp.tile_w > 0 else set()
        kinds |= {f"chain{len(g)}" for g in c.groups() if len(g) > 1}
        kinds |= {"lz4"} if c.reserved else set()
        kinds |= {"lz4 chain, a block per stage" for g in c.groups()
                  if len({c.plan.stages[i].weight_block for i in g} - {None}) > 1}
        kinds |= {OpType(op.op_type).name for op in c.plan.ops}
    assert {"normal", "tiled", "2-D", "chain", "chain2", "chain3", "chain4", "lz4", "lz4 chain, a block per stage",
            "PAD", "RESIZE", "CONV1D",
            "GLOBAL_AVG", "FULLY_CONN", "MAX_POOL", "AVG_POOL", "ADD"} <= kinds, kinds


def test_plain_build_matches() -> None:
    """The unsanitized -O2 build runs the same."""
    for case in [("residual", 8192, "none"), ("pad_linear_sp", 8192, "lz4")]:
        c = compiled(*case)
        check_run(c, run(c, sanitize=False))


# ---------------------------------------------------------------- errors and degraded runs


def test_tile_plan_larger_than_the_arena_is_refused() -> None:
    c = compiled("convnet", 4096, "none", "greedy")  # T T (C C): group tile peaks 1632, 2688, 3840
    groups = c.groups()
    peaks = [c.plan.tile_plans[c.plan.stages[g[0]].tile_plan].peak for g in groups]
    assert len(groups) == 3 and peaks[2] == max(peaks) > peaks[1]
    res = run(c, fast=align_up(c.reserved) + peaks[2] - 1)
    assert res.stats["err"] == ERR["tile"]
    ran = {k.op for k in res.calls}
    assert ran == set(c.plan.stages[0].ops) | set(c.plan.stages[1].ops)  # the third group never started
    assert res.stats["stages_tiled"] == 2
    # exactly the peak is enough
    assert run(c, fast=align_up(c.reserved) + peaks[2]).stats["err"] == 0


def test_chain_larger_than_the_arena_is_refused() -> None:
    c = compiled("pad_nearest", 4096, "none")  # one chain of 4 stages
    tp = c.plan.tile_plans[0]
    res = run(c, fast=align_up(c.reserved) + tp.peak - ALIGN)
    assert res.stats["err"] == ERR["tile"] and res.calls == []


def test_normal_stage_overflows_to_slow_memory() -> None:
    """A normal stage larger than the arena still runs: compaction, then overflow."""
    c = compiled("convnet", 1 << 20, "none")
    assert [s.tile_plan for s in c.plan.stages] == [None]
    res = run(c, fast=6 * 1024)
    check_run(c, res)
    assert res.stats["slow_overflow_count"] > 0 and res.stats["slow_overflow_bytes"] > 0
    tight = run(c, fast=c.fast_size())
    assert tight.stats["slow_overflow_count"] == 0 and tight.stats["fast_peak"] <= c.fast_size()


def test_overflow_in_multi_stage_plan() -> None:
    """Stages whose peak exceeds the arena overflow, later stages still get their inputs: every
    compiled case with a normal stage larger than its tiles' arena (which cases have one is the
    planner's choice; reduction tiles took the head's global pool out of its normal stage), and
    a hand-built plan whose normal stage overflows before a tiled stage reads its output."""
    runs = 0
    for case in CASES:
        c = compiled(*case)
        normal_peaks = [s.peak for s in c.plan.stages if s.tile_plan is None]
        tile_peaks = [c.plan.tile_plans[s.tile_plan].peak for s in c.plan.stages if s.tile_plan is not None]
        fast = max(tile_peaks, default=ALIGN) + ALIGN
        if len(c.plan.stages) < 2 or max(normal_peaks, default=0) <= fast:
            continue
        res = run(c, fast=fast)
        check_run(c, res)
        assert res.stats["slow_overflow_count"] > 0
        runs += 1
    assert runs >= 1
    ops = [Op(OpType.RELU, "r0", (0,), (1,), **SAME), Op(OpType.RELU, "r1", (1,), (2,), **SAME)]
    stages = [Stage((0,), (0,), (1,), 512), Stage((1,), (1,), (2,), 512, tile_plan=0)]
    hand = PlanFile("overflow", _tensors(3), ops, stages, (0,), (2,), [TilePlan(2, 4, 0, 8, 128)])
    s = run(_hand("overflow", hand), fast=128 + ALIGN).stats  # the normal stage needs 512
    assert s["err"] == 0 and s["outputs_ok"] == 1 and s["bad"] == 0 and s["slow_overflow_count"] > 0, s
    assert (s["stages_normal"], s["stages_tiled"], s["total_tiles"]) == (1, 1, 4)


def test_missing_model_input() -> None:
    c = compiled("two_io", 8192, "none")
    for k in range(len(c.plan.inputs)):
        res = run(c, "--no-input", str(k))
        assert res.stats["err"] == ERR["input"] and res.calls == []
        assert res.stats["stages_normal"] + res.stats["stages_tiled"] + res.stats["stages_chain"] == 0


@pytest.mark.parametrize("case", [("convnet", 16384, "none"), ("residual", 8192, "none"), ("head", 4096, "none")])
def test_kernel_error_stops_the_run(case: tuple[str, int, str]) -> None:
    c = compiled(*case)
    calls, _, _, _ = expected(c)
    fail = calls[len(calls) // 2][0]
    res = run(c, "--fail-op", str(fail))
    assert res.stats["err"] == ERR["kernel"]
    assert [(k.op, k.tile) for k in res.calls] == calls[: calls.index(next(x for x in calls if x[0] == fail))]
    # where and why: the op, its stage, and what the kernel returned (test_kernel: -7)
    stage = next(i for i, st in enumerate(c.plan.stages) if fail in st.ops)
    assert (res.stats["error_op"], res.stats["error_stage"], res.stats["kernel_error"]) == (fail, stage, -7)
    assert res.stats["error_tensor"] == NONE


def test_slow_memory_exhausted() -> None:
    c = compiled("convnet", 16384, "none")
    x = c.plan.inputs[0]
    res = run(c, slow=align_up(c.graph.tensors[x].nbytes))  # room for the input only
    assert res.stats["err"] == ERR["mem"]
    assert res.stats["error_stage"] == 0 and res.stats["error_tensor"] != NONE and res.stats["kernel_error"] == 0


def test_weight_block_larger_than_the_arena() -> None:
    c = compiled("convnet_sp", 16384, "lz4")
    assert c.reserved > 0
    res = run(c, fast=align_up(c.reserved) - ALIGN)
    assert res.stats["err"] == ERR["weights"] and res.calls == []


def test_api_checks() -> None:
    """NULL arguments, NO_STAGES, bad pool references, a too-small tensor table, NULL
    stats, a second run, error strings (test_executor.c --api)."""
    for case in [("convnet", 4096, "none"), ("residual_sp", 16384, "lz4")]:
        c = compiled(*case)
        exe = harness()
        proc = subprocess.run([str(exe), str(c.path), "--fast", str(c.fast_size()), "--slow", str(1 << 20), "--api"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "api_failures=0" in proc.stdout, proc.stdout + proc.stderr


# ---------------------------------------------------------------- hand-built plans


F32 = DType.F32


def _hand(name: str, plan: PlanFile) -> Compiled:
    path = _TMP / f"hand_{name}.tgrs"
    path.write_bytes(write_plan(plan))
    return Compiled(name, path, plan, None, 0)  # type: ignore[arg-type]


def _conv(inp: int, w: int, out: int, **kw: int) -> Op:
    fields = dict(kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)
    fields.update(kw)
    return Op(OpType.CONV, "conv", (inp, w), (out,), weight=w, **fields, **WINDOW)


def _tensors(n: int, shape: tuple[int, ...] = (1, 2, 8, 4)) -> list[Tensor]:
    return [Tensor(f"t{i}", F32, shape) for i in range(n)]


def _weight() -> tuple[Tensor, Weight]:
    return Tensor("w", F32, (2, 3, 3, 2), weight=0), Weight(np.arange(36, dtype=np.float32).reshape(2, 3, 3, 2), WeightLayout.OHWI)


def test_hand_plan_shared_input_and_dead_op() -> None:
    """add(x, x) (one tensor used twice by one op), a tensor read by two ops of a tiled
    stage (union of their ranges), and an op whose result nothing reads (skipped in tiles)."""
    t = _tensors(5)
    wt, w = _weight()
    t.append(wt)  # 5
    ops = [Op(OpType.ADD, "add", (0, 0), (1,), **SAME),       # t1 = x + x
           _conv(1, 5, 2),                                        # t2 = conv(t1)
           Op(OpType.RELU, "dead", (1,), (3,), **SAME),          # t3: never read, not an output
           Op(OpType.ADD, "sum", (2, 1), (4,), **SAME)]          # t4 = t2 + t1
    plan = PlanFile("hand", t, ops, [Stage((0, 1, 2, 3), (0,), (4,), 4096, tile_plan=0)], (0,), (4,),
                    [TilePlan(3, 3, 2, 8, 1024)], [w])
    c = _hand("shared", plan)
    res = run(c, fast=1024)
    assert res.stats["err"] == 0 and res.stats["outputs_ok"] == 1 and res.stats["bad"] == 0
    assert 2 not in {k.op for k in res.calls}  # the dead op
    tiles = [(0, 3), (3, 6), (6, 8)]
    for tile, (h0, h1) in enumerate(tiles):
        got = {k.op: k for k in res.calls if k.tile == tile}
        assert got[3].outs[4] == (h0, h1)
        assert got[3].ins[1] == got[1].ins[1] == got[0].outs[1] == (max(0, h0 - 1), min(8, h1 + 1))  # the union
        assert got[0].ins[0] == got[0].outs[1]
    assert res.stats["stages_tiled"] == 1 and res.stats["total_tiles"] == 3
    assert res.stats["spills_bytes"] == t[4].nbytes
    assert res.stats["loads_bytes"] == sum(min(8, b + 1) - max(0, a - 1) for a, b in tiles) * 32


def test_hand_plan_refusals() -> None:
    """Tiled execution the executor refuses: a structural op in a tiled stage (geometry_h NONE,
    as the emitter writes it for one), an output whose height is not the tile plan's, a chain
    stage reading a tensor from outside."""
    t = _tensors(4)
    wt, w = _weight()
    t.append(wt)  # 4
    flat = Tensor("flat", F32, (1, 64))
    bad_op = PlanFile("structural", [*t[:2], flat, *t[3:]], [Op(OpType.FLATTEN, "f", (0,), (2,)),
                                                            Op(OpType.RESHAPE, "r", (2,), (1,))],
                      [Stage((0, 1), (0,), (1,), 100, tile_plan=0)], (0,), (1,), [TilePlan(4, 2, 0, 8, 64)], [w])
    assert run(_hand("structural", bad_op), fast=4096).stats["err"] == ERR["tile"]
    wrong_h = PlanFile("height", t, [Op(OpType.RELU, "r", (0,), (1,), **SAME)],
                       [Stage((0,), (0,), (1,), 100, tile_plan=0)],
                       (0,), (1,), [TilePlan(3, 3, 0, 9, 64)], [w])
    assert run(_hand("height", wrong_h), fast=4096).stats["err"] == ERR["tile"]
    # stage 1 of the chain reads the model input x directly: not a chain the executor runs
    outside = PlanFile("outside", t, [Op(OpType.RELU, "r", (0,), (1,), **SAME),
                                      Op(OpType.ADD, "a", (1, 0), (2,), **SAME)],
                       [Stage((0,), (0,), (1,), 100, tile_plan=0), Stage((1,), (1, 0), (2,), 100, tile_plan=0)],
                       (0,), (2,), [TilePlan(4, 2, 0, 8, 64, chain=0)], [w])
    assert run(_hand("outside", outside), fast=4096).stats["err"] == ERR["tile"]


def test_band_table_full() -> None:
    """A tiled stage touching more than TIGRIS_MAX_BANDS (64) tensors is refused."""
    n = 70
    t = [Tensor(f"t{i}", F32, (1, 1, 4, 4)) for i in range(n + 1)]
    ops = [Op(OpType.RELU, f"r{i}", (i,), (i + 1,), **SAME) for i in range(n)]
    plan = PlanFile("many", t, ops, [Stage(tuple(range(n)), (0,), (n,), 4096, tile_plan=0)], (0,), (n,),
                    [TilePlan(2, 2, 0, 4, 64)])
    res = run(_hand("many", plan), fast=1 << 16)
    assert res.stats["err"] == ERR["tile"] and res.calls == []


def test_hand_plan_stage_output_read_later_and_model_output_kept() -> None:
    """Normal stages: a tensor spilled by stage 0 and read by stages 1 and 2 stays in slow
    memory until stage 2; an early model output survives to the end."""
    t = _tensors(4)
    ops = [Op(OpType.RELU, "r0", (0,), (1,)), Op(OpType.RELU, "r1", (1,), (2,)), Op(OpType.ADD, "a", (2, 1), (3,))]
    stages = [Stage((0,), (0,), (1,), 64), Stage((1,), (1,), (2,), 64), Stage((2,), (2, 1), (3,), 96)]
    c = _hand("later", PlanFile("later", t, ops, stages, (0,), (1, 3)))
    res = run(c, fast=4096)
    s = res.stats
    assert s["err"] == 0 and s["outputs_ok"] == 1 and s["bad"] == 0 and s["leftover"] == 0
    assert s["slow_allocs"] == 2 and s["stages_normal"] == 3
    assert s["loads_bytes"] == 256 * 4 and s["spills_bytes"] == 256 * 3


def test_model_output_not_produced_is_an_error() -> None:
    """The executor checks its postcondition: a model output that no stage spills (the
    stage's output list emptied) is TIGRIS_EXEC_ERR_OUTPUT naming the tensor, not OK."""
    t = _tensors(2)
    plan = PlanFile("unspilled", t, [Op(OpType.RELU, "r", (0,), (1,))], [Stage((0,), (0,), (), 64)], (0,), (1,))
    res = run(_hand("unspilled", plan), fast=4096)
    assert res.stats["err"] == ERR["output"] and res.stats["error_tensor"] == 1, res.stats
    assert res.stats["error_stage"] == NONE and res.stats["error_op"] == NONE
    spilled = PlanFile("spilled", t, [Op(OpType.RELU, "r", (0,), (1,))], [Stage((0,), (0,), (1,), 64)], (0,), (1,))
    assert run(_hand("spilled", spilled), fast=4096).stats["err"] == 0  # the same plan, spilled


def test_tiled_output_written_by_no_op_is_refused() -> None:
    """A tiled stage's output that none of its ops writes would come back as whatever the
    slow buffer held: TIGRIS_EXEC_ERR_PLAN naming it, before any tile runs."""
    t = _tensors(3)
    plan = PlanFile("unwritten", t, [Op(OpType.RELU, "r", (0,), (1,), **SAME)],
                    [Stage((0,), (0,), (1, 2), 64, tile_plan=0)], (0,), (1, 2), [TilePlan(4, 2, 0, 8, 64)])
    res = run(_hand("unwritten", plan), fast=4096)
    assert res.stats["err"] == ERR["plan"] and res.stats["error_tensor"] == 2 and res.calls == [], res.stats
    assert res.stats["error_stage"] == 0


# ---------------------------------------------------------------- no heap, stack, size


def test_no_heap() -> None:
    """The runtime linked with malloc/calloc/realloc/free that abort runs whole plans."""
    exe = harness(sanitize=False, extra_flags=("-DTEST_NO_HEAP", "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free"))
    for case in [("residual_sp", 16384, "lz4"), ("pad_linear", 4096, "none"), ("head_sp", 4096, "lz4")]:
        c = compiled(*case)
        check_run(c, run(c, exe=exe))


def _objects(tmp: Path, sources: list[Path], opt: str, extra: tuple[str, ...] = ()) -> list[Path]:
    objs = []
    for src in sources:
        obj = tmp / (src.stem + opt + ".o")
        cmd = [compiler(), *STRICT_FLAGS, opt, f"-I{INCLUDE_DIR}", *extra, "-c", str(src), "-o", str(obj)]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        objs.append(obj)
    return objs


def stack_usage(sources: list[Path], opt: str) -> dict[str, tuple[int, str]]:
    """{file:function: (bytes, qualifier)} from gcc -fstack-usage."""
    with tempfile.TemporaryDirectory() as tmp:
        objs = _objects(Path(tmp), sources, opt, ("-fstack-usage",))
        usage = {}
        for obj in objs:
            for line in obj.with_suffix(".su").read_text().splitlines():
                where, size, qual = line.rsplit("\t", 2)
                usage[where] = (int(size), qual)
        return usage


@pytest.mark.parametrize("opt", ["-O0", "-O2", "-Os"])
def test_stack_frames_under_1k(opt: str) -> None:
    usage = stack_usage(MY_SOURCES, opt)
    assert len(usage) > 30
    # "dynamic,bounded": outgoing stack arguments (x86-64 calls with > 6); unbounded "dynamic" is alloca/VLA
    big = {f: u for f, u in usage.items() if u[0] > 1024 or u[1] not in ("static", "dynamic,bounded")}
    assert not big, big


def test_no_heap_symbols() -> None:
    """No object of the memory manager or executor even references the heap."""
    with tempfile.TemporaryDirectory() as tmp:
        for obj in _objects(Path(tmp), MY_SOURCES, "-O2"):
            undefined = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout
            names = {line.split()[-1] for line in undefined.splitlines() if line.strip()}
            assert not names & {"malloc", "calloc", "realloc", "free"}, (obj.name, names)
            defined = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
            assert not re.search(r" [BbDd] ", defined), f"{obj.name} has mutable globals:\n{defined}"


def test_two_plans_in_two_threads() -> None:
    """Two plans run concurrently, each with its own tigris_mem_t, under ThreadSanitizer:
    the runtime has no shared mutable state."""
    sources, flags = _loader_sources(False)
    exe = build("test_executor_tsan", [RUNTIME_DIR / "tests" / "test_executor.c", *MY_SOURCES, *sources],
                opt="-O1", extra_flags=(*flags, "-DTEST_THREADS", "-pthread", "-fsanitize=thread", "-g"))
    a, b = compiled("residual_sp", 16384, "lz4"), compiled("pad_linear", 4096, "none")
    fast = max(a.fast_size(), b.fast_size())
    proc = subprocess.run([str(exe), str(a.path), "--fast", str(fast), "--slow", str(1 << 20), "--second", str(b.path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "threads_ok=1" in proc.stdout, proc.stdout + proc.stderr
    assert "ThreadSanitizer" not in proc.stderr, proc.stderr


# ---------------------------------------------------------------- with the real loader


def test_with_the_real_loader() -> None:
    """The same runs with tigris_plan_load (CRC, validation) instead of the harness's parser."""
    exe = harness(real_loader=True)
    for case in [("residual", 8192, "none"), ("pad_linear_sp", 8192, "lz4"), ("head", 2048, "none"),
                 ("convnet_sp", 16384, "lz4")]:
        c = compiled(*case)
        res = run(c, exe=exe)
        assert "load_error" not in res.stats, res.text
        check_run(c, res)


# ---------------------------------------------------------------- the host runner


def _runner(sanitize: bool = False) -> Path:
    tools = RUNTIME_DIR / "tools"
    from tigris.tools.runtime_build import library_sources

    return build("tigris-run", [*library_sources(), tools / "tigris_host.c", tools / "tigris_run.c"],
                 sanitize=sanitize, extra_flags=(f"-I{tools}",))


def _nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose([0, *range(2, x.ndim), 1])) if x.ndim >= 3 else x


@pytest.mark.parametrize("case", [("convnet", 4096, "none"), ("pad_linear", 4096, "none"), ("two_io_sp", 8192, "lz4")])
def test_host_runner_matches_onnxruntime(case: tuple[str, int, str], tmp_path: Path) -> None:
    import onnxruntime as ort

    exe = _runner()
    c = compiled(*case)
    sess = ort.InferenceSession(str(_TMP / f"{case[0]}.onnx"))
    rng = np.random.default_rng(0)
    feeds = {i.name: rng.standard_normal(i.shape).astype(np.float32) for i in sess.get_inputs()}
    (tmp_path / "in.bin").write_bytes(b"".join(_nhwc(feeds[i.name]).tobytes() for i in sess.get_inputs()))
    proc = subprocess.run([str(exe), str(c.path), str(tmp_path / "in.bin"), str(tmp_path / "out.bin"), "--stats"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    stats = dict(line.split("=") for line in proc.stdout.splitlines())
    _, _, _, want = expected(c)
    for key in ("stages_normal", "stages_tiled", "stages_chain", "total_tiles", "loads_bytes", "spills_bytes"):
        assert int(stats[key]) == want[key], key
    assert int(stats["slow_overflow_count"]) == 0 and "fast_peak" in stats
    out = (tmp_path / "out.bin").read_bytes()
    pos = 0
    for ref in sess.run(None, feeds):
        n = ref.size * 4
        np.testing.assert_allclose(np.frombuffer(out[pos : pos + n], np.float32), _nhwc(ref).ravel(), atol=1e-4)
        pos += n
    assert pos == len(out)


def test_host_runner_errors(tmp_path: Path) -> None:
    exe = _runner()
    c = compiled("convnet", 4096, "none")
    good_in = tmp_path / "in.bin"
    good_in.write_bytes(bytes(c.graph.tensors[c.plan.inputs[0]].nbytes))
    out = str(tmp_path / "out.bin")

    def fails(*args: str) -> str:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and proc.stdout == "", proc
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("tigris-run: "), proc.stderr
        return lines[0]

    assert "usage" in fails(str(c.path))
    assert "missing.tgrs" in fails(str(tmp_path / "missing.tgrs"), str(good_in), out)
    (tmp_path / "short.bin").write_bytes(b"123")
    assert "inputs" in fails(str(c.path), str(tmp_path / "short.bin"), out)
    (tmp_path / "junk.tgrs").write_bytes(b"TGRS" + bytes(100))
    assert "cannot load the plan" in fails(str(tmp_path / "junk.tgrs"), str(good_in), out)
    assert "bad size" in fails(str(c.path), str(good_in), out, "--fast", "12Q")
    assert "unknown option" in fails(str(c.path), str(good_in), out, "--fastest")
    tile_peak = max(tp.peak for tp in c.plan.tile_plans)
    assert "tiled execution" in fails(str(c.path), str(good_in), out, "--fast", str(tile_peak - 1))
    ok = subprocess.run([str(exe), str(c.path), str(good_in), out, "--fast", f"{tile_peak}", "--slow", "1M"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout == "" and Path(out).stat().st_size == c.graph.tensors[c.plan.outputs[0]].nbytes


# ---------------------------------------------------------------- reduction tiles
#
# A stage holding a global pool runs in tiles of its input's rows; the pool keeps an
# accumulator at the arena bottom across the tiles and writes its output after the last one
# (docs/tgrs-format.md, "Reduction tiles"). The same plan without tiles is the oracle: the
# outputs must be the same bytes. The runs use the host runner (tigris-run, reference kernels)
# built with ASan + UBSan.

POOL_X = (1, 5, 7, 6)  # C = 5 is not a multiple of 4; H = 7 rows to cut
POOL_Y = (1, 5, 1, 1)
ACC_PER_CHANNEL = {(OpType.GLOBAL_AVG, DType.F32): 8, (OpType.GLOBAL_MAX, DType.F32): 4,
                   (OpType.GLOBAL_AVG, DType.I8): 4, (OpType.GLOBAL_MAX, DType.I8): 4}  # Kahan pair, max, int32
X_Q, AVG_Q = QuantParam((0.05,), (-3,)), QuantParam((0.02,), (5,))


def _band_peak(*sizes: int) -> int:
    return sum(align_up(n) for n in sizes)


def pool_plan(op_type: OpType, dtype: DType, tile_h: int | None, acc_bytes: int | None = None,
              relu_first: bool = False, tile_w: int | None = None, tile_c: int | None = None) -> PlanFile:
    """x -> [relu ->] global pool, one stage: in reduction tiles of `tile_h` input rows (None:
    untiled), cut into `tile_w` columns and run in blocks of `tile_c` channels if given. An
    int8 max keeps x's parameters (its result is a plain max of the bytes), a mean requantizes
    to its own."""
    item = DType(dtype).size
    quants = [X_Q, AVG_Q] if dtype == DType.I8 else []
    y_q = (0 if op_type == OpType.GLOBAL_MAX else 1) if quants else None
    x_q = 0 if quants else None
    t = [Tensor("x", dtype, POOL_X, quant=x_q), Tensor("y", dtype, POOL_Y, quant=y_q)]
    ops = [Op(op_type, "pool", (0,), (1,), **GLOBAL)]
    if relu_first:
        t.append(Tensor("relu", dtype, POOL_X, quant=x_q))
        ops = [Op(OpType.RELU, "relu", (0,), (2,), **SAME), Op(op_type, "pool", (2,), (1,), **GLOBAL)]
    row = POOL_X[1] * POOL_X[3] * item
    need = POOL_X[0] * (tile_c or POOL_X[1]) * ACC_PER_CHANNEL[(op_type, dtype)]
    acc = need if acc_bytes is None else acc_bytes
    flags = FileFlag.QUANTIZED if quants else FileFlag(0)
    if tile_h is None:
        stage = Stage(tuple(range(len(ops))), (0,), (1,), peak=_band_peak(*[row * 7] * len(ops), row))
        return PlanFile("pool", t, ops, [stage], (0,), (1,), quant_params=quants, flags=flags)
    band = row * tile_h if tile_w is None else POOL_X[1] * tile_w * item * tile_h
    # live at once: the accumulator, and x's and relu's bands at the relu, relu's band and the
    # output at the pool (x's band is released after the relu)
    out = POOL_Y[1] * item
    peak = _band_peak(acc, band, band) if relu_first and align_up(band) >= align_up(out) else _band_peak(acc, band, out)
    cols = {} if tile_w is None else {"tile_w": tile_w, "num_tiles_w": -(-POOL_X[3] // tile_w), "out_w": POOL_X[3]}
    blocks = {} if tile_c is None else {"tile_c": tile_c, "num_tiles_c": -(-POOL_X[1] // tile_c)}
    tp = TilePlan(tile_h, -(-POOL_X[2] // tile_h), 0, POOL_X[2], peak, reduce_op=len(ops) - 1, acc_bytes=acc,
                  **cols, **blocks)  # fmt: skip
    stage = Stage(tuple(range(len(ops))), (0,), (1,), peak=peak, tile_plan=0)
    return PlanFile("pool", t, ops, [stage], (0,), (1,), [tp], quant_params=quants, flags=flags)


def pool_input(dtype: DType) -> np.ndarray:
    """x in the runtime layout (NHWC): floats of one sign, so a mean has no cancellation (and a
    relative error means something), with a NaN and a -inf in channel 2; int8 all over its range."""
    rng = np.random.default_rng(7)
    shape = (POOL_X[0], POOL_X[2], POOL_X[3], POOL_X[1])
    if dtype == DType.I8:
        return rng.integers(-128, 128, shape, dtype=np.int8)
    x = rng.uniform(0.5, 4.0, shape).astype(np.float32)
    x[0, 4, 3, 2] = np.nan
    x[0, 1, 0, 2] = -np.inf
    return x


@dataclass
class HostRun:
    code: int
    out: bytes
    stats: dict[str, int]
    error: str


def host_run(plan: PlanFile, x: np.ndarray | list[np.ndarray], tmp: Path, fast: int | None = None,
             compress: str = "none") -> HostRun:
    """The plan through the sanitized host runner (inputs in the runtime layout, in model-input
    order): its exit code, output bytes, --stats, stderr."""
    (tmp / "plan.tgrs").write_bytes(write_plan(plan, compress))
    inputs = x if isinstance(x, list) else [x]
    (tmp / "in.bin").write_bytes(b"".join(np.ascontiguousarray(a).tobytes() for a in inputs))
    out = tmp / "out.bin"
    out.unlink(missing_ok=True)
    cmd = [str(_runner(sanitize=True)), str(tmp / "plan.tgrs"), str(tmp / "in.bin"), str(out), "--stats"]
    proc = subprocess.run([*cmd, *(["--fast", str(fast)] if fast is not None else [])], capture_output=True,
                          text=True, timeout=120)
    assert "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr, proc.stderr
    stats = {k: int(v) for k, v in (line.split("=") for line in proc.stdout.splitlines())}
    return HostRun(proc.returncode, out.read_bytes() if proc.returncode == 0 else b"", stats, proc.stderr)


@pytest.mark.parametrize("tile_h", [1, 2, 3, 7])
@pytest.mark.parametrize("dtype", [DType.F32, DType.I8], ids=["f32", "i8"])
@pytest.mark.parametrize("op_type", [OpType.GLOBAL_AVG, OpType.GLOBAL_MAX], ids=["avg", "max"])
def test_reduction_tiles_give_the_untiled_bytes(op_type: OpType, dtype: DType, tile_h: int, tmp_path: Path) -> None:
    """Every tile height: the untiled result bit for bit, the input loaded once, the output
    spilled once, and the arena holding exactly the accumulator and one tile's bands."""
    x = pool_input(dtype)
    untiled = host_run(pool_plan(op_type, dtype, None), x, tmp_path)
    assert untiled.code == 0 and untiled.stats["stages_normal"] == 1, untiled.error
    plan = pool_plan(op_type, dtype, tile_h)
    tp = plan.tile_plans[0]
    tiled = host_run(plan, x, tmp_path, fast=tp.peak)
    assert tiled.code == 0, tiled.error
    assert tiled.out == untiled.out
    s = tiled.stats
    assert (s["stages_tiled"], s["total_tiles"], s["stages_normal"]) == (1, tp.num_tiles, 0)
    assert s["loads_bytes"] == x.nbytes and s["spills_bytes"] == len(tiled.out) == plan.tensors[1].nbytes
    assert s["slow_overflow_count"] == 0
    assert s["fast_peak"] == tp.peak  # the accumulator counts: without it the peak would be lower
    y = np.frombuffer(tiled.out, x.dtype)
    if op_type == OpType.GLOBAL_MAX:  # NaN wins in channel 2; an int8 max keeps x's parameters: a copy
        want = x.max(axis=(0, 1, 2))
        np.testing.assert_array_equal(y, want)
        assert dtype == DType.I8 or np.isnan(y[2])
    elif dtype == DType.F32:  # a consistent but wrong sum would pass the oracle, not this
        finite = np.delete(np.arange(POOL_X[1]), 2)
        want = x.astype(np.float64).mean(axis=(0, 1, 2))
        np.testing.assert_allclose(y[finite], want[finite], rtol=1e-6)


@pytest.mark.parametrize("tile_w", [1, 4, 5, 6])
@pytest.mark.parametrize("dtype", [DType.F32, DType.I8], ids=["f32", "i8"])
@pytest.mark.parametrize("op_type", [OpType.GLOBAL_AVG, OpType.GLOBAL_MAX], ids=["avg", "max"])
def test_reduction_tiles_cut_along_w_give_the_untiled_bytes(op_type: OpType, dtype: DType, tile_w: int,
                                                            tmp_path: Path) -> None:
    """One-row tiles of tile_w columns (the last one narrower unless tile_w divides W = 6): the
    untiled bytes (the float sum visits the pixels in the same row-major order), each pixel
    loaded once, the output spilled once after the last tile, the arena as planned; a (float)
    relu before the pool computes the same windows."""
    x = pool_input(dtype)
    for relu_first in (False, True) if dtype == DType.F32 else (False,):
        untiled = host_run(pool_plan(op_type, dtype, None, relu_first=relu_first), x, tmp_path)
        assert untiled.code == 0, untiled.error
        plan = pool_plan(op_type, dtype, 1, relu_first=relu_first, tile_w=tile_w)
        tp = plan.tile_plans[0]
        tiled = host_run(plan, x, tmp_path, fast=tp.peak)
        assert tiled.code == 0, tiled.error
        assert tiled.out == untiled.out
        s = tiled.stats
        assert s["total_tiles"] == POOL_X[2] * -(-POOL_X[3] // tile_w)
        assert s["loads_bytes"] == x.nbytes and s["spills_bytes"] == plan.tensors[1].nbytes
        assert s["slow_overflow_count"] == 0 and s["fast_peak"] == tp.peak


@pytest.mark.parametrize("shape", [(7, None, 1), (3, None, 2), (1, 4, 3), (1, 1, 4), (2, None, 5)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [DType.F32, DType.I8], ids=["f32", "i8"])
@pytest.mark.parametrize("op_type", [OpType.GLOBAL_AVG, OpType.GLOBAL_MAX], ids=["avg", "max"])
def test_reduction_tiles_in_channel_blocks_give_the_untiled_bytes(
    op_type: OpType, dtype: DType, shape: tuple[int, int | None, int], tmp_path: Path
) -> None:  # fmt: skip
    """Channel blocks of tile_c of the C = 5 channels (the last block narrower unless tile_c
    divides 5), each running every (tile_h x tile_w) tile with an accumulator of that block only:
    the untiled bytes, the input loaded once a block, each output channel spilled once, the arena
    as planned."""
    tile_h, tile_w, tile_c = shape
    x = pool_input(dtype)
    untiled = host_run(pool_plan(op_type, dtype, None), x, tmp_path)
    assert untiled.code == 0, untiled.error
    plan = pool_plan(op_type, dtype, tile_h, tile_w=tile_w, tile_c=tile_c)
    tp = plan.tile_plans[0]
    tiled = host_run(plan, x, tmp_path, fast=tp.peak)
    assert tiled.code == 0, tiled.error
    assert tiled.out == untiled.out
    blocks = -(-POOL_X[1] // tile_c)
    s = tiled.stats
    assert s["total_tiles"] == blocks * tp.num_tiles * tp.num_tiles_w
    assert s["loads_bytes"] == blocks * x.nbytes and s["spills_bytes"] == plan.tensors[1].nbytes
    assert s["slow_overflow_count"] == 0 and s["fast_peak"] == tp.peak


def test_channel_block_accumulator_smaller_than_the_block_needs(tmp_path: Path) -> None:
    """The accumulator must hold the block's channels: one byte short, the kernel refuses."""
    need = 2 * ACC_PER_CHANNEL[(OpType.GLOBAL_AVG, DType.F32)]
    res = host_run(pool_plan(OpType.GLOBAL_AVG, DType.F32, 7, acc_bytes=need - 1, tile_c=2), pool_input(DType.F32),
                   tmp_path)  # fmt: skip
    assert res.code == 1 and "op 0 'pool'" in res.error, res.error


def test_reduction_tiles_cut_along_w_are_one_row_tall(tmp_path: Path) -> None:
    """Two-row tiles of columns would sum the pixels out of row-major order: the loader
    and the executor refuse the plan (a float result could differ in the last bit); the
    reader refuses to write one."""
    with pytest.raises(TgrsFormatError, match="one row tall"):
        write_plan(pool_plan(OpType.GLOBAL_AVG, DType.F32, 2, tile_w=3))
    plan = pool_plan(OpType.GLOBAL_AVG, DType.F32, 1, tile_w=3)
    data = set_field(set_field(write_plan(plan), K.TILE_PLANS, TILE_PLAN, 0, "tile_h", 2), K.TILE_PLANS, TILE_PLAN,
                     0, "num_tiles", 4)  # fmt: skip
    (tmp_path / "two_rows.tgrs").write_bytes(data)
    (tmp_path / "in.bin").write_bytes(pool_input(DType.F32).tobytes())
    cmd = [str(_runner(sanitize=True)), str(tmp_path / "two_rows.tgrs"), str(tmp_path / "in.bin"), str(tmp_path / "o")]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "Sanitizer" not in res.stderr, res.stderr
    assert "load" in res.stderr, res.stderr
    path = tmp_path / "two_rows_exec.tgrs"
    path.write_bytes(data)
    refused = run(Compiled("two_rows", path, None, None, 0), fast=1 << 16)  # type: ignore[arg-type]
    assert refused.stats["err"] == ERR["tile"] and refused.stats["error_stage"] == 0, refused.stats


def test_reduction_tiles_band_the_ops_before_the_pool(tmp_path: Path) -> None:
    """A relu in the reduction stage gets the pool's input rows (the backward propagation skips
    the pool), so the stage still loads its input once and gives the untiled bytes."""
    x = pool_input(DType.F32)
    untiled = host_run(pool_plan(OpType.GLOBAL_AVG, DType.F32, None, relu_first=True), x, tmp_path)
    for tile_h in (2, 3):
        plan = pool_plan(OpType.GLOBAL_AVG, DType.F32, tile_h, relu_first=True)
        tiled = host_run(plan, x, tmp_path, fast=plan.tile_plans[0].peak)
        assert tiled.code == 0 and tiled.out == untiled.out, tiled.error
        assert tiled.stats["loads_bytes"] == x.nbytes and tiled.stats["fast_peak"] == plan.tile_plans[0].peak


@pytest.mark.parametrize("dtype", [DType.F32, DType.I8], ids=["f32", "i8"])
@pytest.mark.parametrize("op_type", [OpType.GLOBAL_AVG, OpType.GLOBAL_MAX], ids=["avg", "max"])
def test_accumulator_smaller_than_the_kernel_needs(op_type: OpType, dtype: DType, tmp_path: Path) -> None:
    """One byte short: the kernel refuses (a kernel error naming the op), it does not overrun."""
    need = POOL_X[1] * ACC_PER_CHANNEL[(op_type, dtype)]
    res = host_run(pool_plan(op_type, dtype, 3, acc_bytes=need - 1), pool_input(dtype), tmp_path)
    assert res.code == 1 and res.out == b"", res
    assert "op 0 'pool'" in res.error, res.error
    assert "missing table, scales, parameters or tensor data" in res.error, res.error
    assert host_run(pool_plan(op_type, dtype, 3, acc_bytes=need), pool_input(dtype), tmp_path).code == 0


def test_reduction_tiles_refuse_an_arena_below_the_peak(tmp_path: Path) -> None:
    """The peak (accumulator included) must fit after the reserved prefix, as for any tile plan."""
    plan = pool_plan(OpType.GLOBAL_AVG, DType.F32, 2)
    res = host_run(plan, pool_input(DType.F32), tmp_path, fast=plan.tile_plans[0].peak - 1)
    assert res.code == 1 and "tiled execution" in res.error, res


def test_reduction_tiles_keep_clear_of_lz4_weights(tmp_path: Path) -> None:
    """conv (an LZ4 weight block) and a global average in reduction tiles, in one stage: the
    untiled bytes (the accumulator does not overwrite the decompressed weights)."""
    x = np.random.default_rng(4).standard_normal((1, 7, 6, 3)).astype(np.float32)
    untiled = host_run(conv_pool_plan(None), x, tmp_path, compress="lz4")
    assert untiled.code == 0, untiled.error
    for tile_h in (1, 2, 3):
        plan = conv_pool_plan(tile_h)
        data = write_plan(plan, "lz4")
        reserved = int.from_bytes(data[24:28], "little")
        assert reserved > 0
        tiled = host_run(plan, x, tmp_path, fast=align_up(reserved) + plan.tile_plans[0].peak, compress="lz4")
        assert tiled.code == 0 and tiled.out == untiled.out, (tile_h, tiled.error)
        assert tiled.stats["fast_peak"] <= align_up(reserved) + plan.tile_plans[0].peak


@pytest.mark.parametrize("compress", ["none", "lz4"])
def test_accumulator_sits_after_the_reserved_prefix(compress: str, tmp_path: Path) -> None:
    """The pool sees its accumulator at align_up(fast_reserved), acc_bytes long, on every tile
    (and no other op sees one); the tile's bands are allocated after it."""
    plan = conv_pool_plan(2)
    path = tmp_path / "conv_pool.tgrs"
    path.write_bytes(write_plan(plan, compress))
    reserved = int.from_bytes(path.read_bytes()[24:28], "little")
    assert (reserved > 0) == (compress == "lz4")
    tp = plan.tile_plans[0]
    res = run(Compiled("conv_pool", path, plan, None, 0), fast=align_up(reserved) + tp.peak)  # type: ignore[arg-type]
    assert res.stats["err"] == 0 and res.stats["outputs_ok"] == 1, res.stats
    pools = [k for k in res.calls if k.op == tp.reduce_op]
    assert [k.tile for k in pools] == list(range(tp.num_tiles))
    assert all(k.acc == (align_up(reserved), tp.acc_bytes) for k in pools)
    assert all(k.acc is None for k in res.calls if k.op != tp.reduce_op)
    assert res.stats["fast_peak"] <= align_up(reserved) + tp.peak
    # the bands live after the accumulator: what the tile holds fits beside it
    assert all(k.live <= tp.peak - align_up(tp.acc_bytes) for k in res.calls)


# Plans the loader refuses (test/support/tgrs_corruptions.py has the same corruptions with the
# reader's messages); the executor checks them again before the first tile, as it checks every
# tile plan: (corruption of a fixture plan of test_tgrs_roundtrip.py, the stage refused).
REDUCTION_REFUSALS = {
    "reduce_op out of range": ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "reduce_op", 9), 0),
    "reduce_op not the last op": ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "reduce_op", 0), 0),
    "an op that does not accumulate": (
        "reduced", lambda d: set_field(d, K.OPS, OP, 1, "op_type", int(OpType.RELU)), 0),
    "in a chain": ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "chain", 1), 0),
    "out_h not the input's rows": ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_h", 8), 0),
    "no accumulator": ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 1, "acc_bytes", 0), 2),
    "accumulator above the peak": ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 1, "acc_bytes", 129), 2),
    "output not the pool's": (
        "reduced", lambda d: set_pool(d, K.INDEX_POOL, get_field(d, K.STAGES, STAGE, 0, "outputs"), 1), 0),
    "accumulator without reduce_op": ("float", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "acc_bytes", 64), 0),
    # dense ops in blocks of output features (docs/tgrs-format.md, "Output-feature blocks")
    "dense: out_h not the input's K": ("dense", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_h", 11), 0),
    "dense: reduction blocks without feature blocks": (
        "dense", lambda d: set_field(set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "tile_c", 0), K.TILE_PLANS, TILE_PLAN, 0,
                                     "num_tiles_c", 1), 0),
    "dense: blocks past the features": ("dense", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 1, "num_tiles_c", 4), 1),
    "dense: output-feature blocks in rows": (
        "dense", lambda d: set_field(set_field(d, K.TILE_PLANS, TILE_PLAN, 1, "tile_h", 2), K.TILE_PLANS, TILE_PLAN, 1,
                                     "out_h", 2), 1),
    "dense: output-feature blocks of a relu": ("dense", lambda d: set_field(d, K.OPS, OP, 1, "op_type", int(OpType.RELU)), 1),
}


@pytest.mark.parametrize("case", list(REDUCTION_REFUSALS))
def test_executor_refuses_a_bad_reduction_plan(case: str, tmp_path: Path) -> None:
    check_refused(case, *REDUCTION_REFUSALS[case], tmp_path)


def check_refused(case: str, base: str, corrupt, stage: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Through the harness's own parser (no loader): TIGRIS_EXEC_ERR_TILE at that stage, before any
    of its tiles; the stages before it ran. The sound plan runs."""
    path = tmp_path / f"{base}.tgrs"
    path.write_bytes(FILES[base])
    ok = run(Compiled(base, path, None, None, 0), fast=1 << 16)  # type: ignore[arg-type]
    assert ok.stats["err"] == 0 and ok.stats["outputs_ok"] == 1 and ok.stats["bad"] == 0, ok.stats
    path.write_bytes(corrupt(FILES[base]))
    res = run(Compiled(case, path, None, None, 0), fast=1 << 16)  # type: ignore[arg-type]
    assert res.stats["err"] == ERR["tile"] and res.stats["error_stage"] == stage, res.stats
    assert {k.op for k in res.calls} == {op for st in read_plan(FILES[base]).stages[:stage] for op in st.ops}



# ---------------------------------------------------------------- 2-D tiles
#
# A stage cut into tile_h x tile_w tiles of its output (docs/tgrs-format.md, "2-D tiles"). Each
# graph below is compiled into one normal stage, float and int8, and that stage is then given a
# 2-D tile plan by hand. The int8 graphs are QDQ graphs: written by hand (a quantize-dequantize
# pair on every activation, so each op requantizes; "qdq" keeps float ops around an int8 one:
# a quantize and a dequantize in the stage), or from onnxruntime's quantizer for the
# convolutions. The normal stage is the oracle: the tiled outputs must be its very bytes. What
# the tiles read is computed here by hand (the input windows of the one window op, or of none)
# and must also be the compiler's prediction (tiling.tile_reads); the arena is the compiler's
# tile peak.

MAP = (1, 5, 7, 9)  # C = 5; 7 rows and 9 columns, cut unevenly by the tile shapes below
TILE_SHAPES = [(1, 1), (2, 3), (3, 4)]


def _two_maps(g: GraphBuilder, x: str, q) -> str:  # type: ignore[no-untyped-def]
    return q(g.add(q(x), q(g.add_input("b", MAP))))


def _scaled(g: GraphBuilder, x: str, q) -> str:  # type: ignore[no-untyped-def]
    return q(g.binary("Mul", q(x), q(g.add_input("s", (1, MAP[1], 1, 1)))))


def _constants(g: GraphBuilder, x: str, q) -> str:  # type: ignore[no-untyped-def]
    """A per-channel [C, 1, 1] and a per-column [W] constant (ONNX broadcasting: right-aligned)."""
    y = q(g.binary("Mul", q(x), q(g.init("c", g.rng.uniform(0.5, 1.5, (MAP[1], 1, 1)).astype(np.float32)))))
    return q(g.binary("Add", y, q(g.init("d", g.rng.normal(0, 1, MAP[3]).astype(np.float32)))))


def _float_around(g: GraphBuilder, x: str, q) -> str:  # type: ignore[no-untyped-def]
    """sigmoid, relu, sigmoid: in int8 only the relu is quantized."""
    return g.unary("Sigmoid", q(g.relu(q(g.unary("Sigmoid", x)))))


# name -> (graph body (g, x, q: the quantize-dequantize pair of the int8 variant), the window
# (kernel, stride, pad) of its one window op or None, whether onnxruntime quantizes the int8 variant)
GRAPHS_2D = {
    "relu": (lambda g, x, q: q(g.relu(q(x))), None, False),
    "add": (_two_maps, None, False),
    "scale": (_scaled, None, False),
    "constants": (_constants, None, False),
    "qdq": (_float_around, None, False),
    "conv": (lambda g, x, q: g.relu(g.conv(x, 6, 3)), (3, 1, 1), True),
    "depthwise": (lambda g, x, q: g.conv(x, MAP[1], 3, stride=2, groups=MAP[1]), (3, 2, 1), True),
    "max_pool": (lambda g, x, q: q(g.pool("MaxPool", q(x), 3, 1, pad=1)), (3, 1, 1), False),
    "avg_pool": (lambda g, x, q: q(g.pool("AveragePool", q(x), 3, 2, pad=1)), (3, 2, 1), False),
}


def _map_graph(name: str, int8: bool) -> onnx.ModelProto:
    body, _, by_onnxruntime = GRAPHS_2D[name]
    g = GraphBuilder(f"tiles2d_{name}", 31)

    def qdq(v: str) -> str:
        k = len(g.nodes)  # parameters that differ from one pair to the next: every op requantizes
        scale, zp = np.float32(0.03 + 0.005 * (k % 5)), np.int8(k % 7 - 3)
        q = (g.init(g.unique("scale"), scale), g.init(g.unique("zp"), zp))
        return g.op("DequantizeLinear", [g.op("QuantizeLinear", [v, *q], g.shapes[v]), *q], g.shapes[v])

    by_hand = int8 and not by_onnxruntime
    model = g.build({"y": body(g, g.add_input("x", MAP), qdq if by_hand else lambda v: v)})
    return quantize_int8(model) if int8 and by_onnxruntime else model


@functools.cache
def one_stage(name: str, int8: bool) -> tuple[PlanFile, PlanGraph]:
    """The graph compiled at a budget it fits untiled: one normal stage, and its plan graph."""
    path = _TMP / f"tiles2d_{name}_{int8}.onnx"
    onnx.save(_map_graph(name, int8), path)
    module = import_model_file(str(path), None)
    TigrisCompilePass(budget=1 << 20, align=ALIGN).apply(Context(), module)
    plan = plan_file_from_module(module, 1 << 20)
    assert len(plan.stages) == 1 and plan.stages[0].tile_plan is None
    return plan, build_plan_graph(module)


def as_stage(plan: PlanFile) -> temporal.Stage:
    st = plan.stages[0]
    return temporal.Stage(0, st.ops[0], st.ops[-1], st.peak, list(st.inputs), list(st.outputs))


def tiled_2d(plan: PlanFile, graph: PlanGraph, tile_h: int, tile_w: int) -> PlanFile:
    """The plan's one stage in tile_h x tile_w tiles, at the compiler's peak for them."""
    stage = as_stage(plan)
    _, _, h, w = plan.tensors[plan.outputs[0]].shape
    halo = receptive_field(stage_windows(graph, [stage])) - 1
    steps = graph.steps[stage.first : stage.last + 1]
    halo_w = receptive_field([s.window_w for s in steps if s.window_w]) - 1
    tp = TilePlan(tile_h, math.ceil(h / tile_h), halo, h, tile_peak_2d(graph, stage, tile_h, tile_w, ALIGN),
                  tile_w=tile_w, num_tiles_w=math.ceil(w / tile_w), halo_w=halo_w, out_w=w)
    return replace(plan, stages=[replace(plan.stages[0], tile_plan=0)], tile_plans=[tp])


def window_extent(size: int, out: int, tile: int, window: tuple[int, int, int] | None) -> int:
    """Input indices along one axis summed over the tiles of `tile` of the `out` outputs: each
    tile's [s * stride - pad, (e - 1) * stride - pad + kernel) clamped to the `size` inputs."""
    k, stride, pad = window or (1, 1, 0)
    spans = [(s * stride - pad, (min(s + tile, out) - 1) * stride - pad + k) for s in range(0, out, tile)]
    return sum(min(size, e) - max(0, s) for s, e in spans)


def loads_by_hand(plan: PlanFile, name: str, tile_h: int, tile_w: int) -> int:
    """Bytes the tiles load: each full map input's windows, and a one-pixel input (the scale) whole
    in every tile."""
    window = GRAPHS_2D[name][1]
    _, _, h, w = plan.tensors[plan.outputs[0]].shape
    tiles = math.ceil(h / tile_h) * math.ceil(w / tile_w)
    total = 0
    for i in plan.inputs:
        t = plan.tensors[i]
        pixel = t.shape[0] * t.shape[1] * DType(t.dtype).size
        if t.shape[2:] == (1, 1):
            total += tiles * pixel
        else:
            rows, cols = window_extent(t.shape[2], h, tile_h, window), window_extent(t.shape[3], w, tile_w, window)
            total += rows * cols * pixel
    return total


@pytest.mark.parametrize("tile", TILE_SHAPES, ids=[f"{h}x{w}" for h, w in TILE_SHAPES])
@pytest.mark.parametrize("int8", [False, True], ids=["f32", "i8"])
@pytest.mark.parametrize("name", list(GRAPHS_2D))
def test_2d_tiles_give_the_untiled_bytes(name: str, int8: bool, tile: tuple[int, int],
                                         tmp_path: Path) -> None:
    """Every tile shape: the untiled bytes, the tiles' loads as computed by hand (and by the
    compiler), every output pixel spilled once, the arena holding the compiler's tile peak, and an
    arena one byte smaller refused."""
    plan, graph = one_stage(name, int8)
    kernels = {(OpType(op.op_type), DType(plan.tensors[op.outputs[0]].dtype)) for op in plan.ops}
    assert any(dtype == DType.I8 for _, dtype in kernels) == int8, kernels  # the int8 kernels run
    x = random_inputs(plan, 11)  # int8 for the inputs the compiler quantizes (QDQ models)
    untiled = host_run(plan, x, tmp_path)
    assert untiled.code == 0 and untiled.stats["stages_normal"] == 1, untiled.error
    tiled_plan = tiled_2d(plan, graph, *tile)
    tp = tiled_plan.tile_plans[0]
    tiled = host_run(tiled_plan, x, tmp_path, fast=tp.peak)
    assert tiled.code == 0, tiled.error
    assert tiled.out == untiled.out
    s = tiled.stats
    assert (s["stages_tiled"], s["total_tiles"], s["stages_normal"]) == (1, tp.num_tiles * tp.num_tiles_w, 0)
    planned = tiling.TilePlan(tp.tile_h, tp.num_tiles, tp.halo, tp.out_h, tp.peak, tile_w=tp.tile_w,
                              num_tiles_w=tp.num_tiles_w, halo_w=tp.halo_w, out_w=tp.out_w)
    assert s["loads_bytes"] == loads_by_hand(plan, name, *tile)
    assert s["loads_bytes"] == tile_reads(graph, [as_stage(plan)], planned)
    assert s["spills_bytes"] == len(tiled.out) == sum(plan.tensors[o].nbytes for o in plan.outputs)
    assert s["slow_overflow_count"] == 0 and s["fast_peak"] <= tp.peak
    below = host_run(tiled_plan, x, tmp_path, fast=tp.peak - 1)
    assert below.code == 1 and "tiled execution" in below.error, below



# 2-D plans the loader refuses (tgrs_corruptions.py: the same corruptions, with the reader's messages),
# checked again by the executor: (corruption of a fixture plan of test_tgrs_roundtrip.py, the stage refused).
TILES_2D_REFUSALS = {
    "W fields without tile_w": ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "tile_w", 0), 0),
    "halo_w without tile_w": ("float", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "halo_w", 2), 0),
    "out_w without tile_w": ("float", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_w", 16), 0),
    "in a chain": ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "chain", 0), 0),
    "reduction tiles": ("reduced", lambda d: set_field(set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "tile_w", 1),
                                                       K.TILE_PLANS, TILE_PLAN, 0, "out_w", 1), 0),
    "too few column tiles": ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "num_tiles_w", 2), 0),
    "an empty column tile": ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "num_tiles_w", 4), 0),
    "an op without windows": ("tiles2d", lambda d: set_field(d, K.OPS, OP, 1, "op_type", int(OpType.SOFTMAX)), 0),
    "out_w not the outputs' W": ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_w", 9), 0),
    "out_h not the outputs' H": ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_h", 5), 0),
}


@pytest.mark.parametrize("case", list(TILES_2D_REFUSALS))
def test_executor_refuses_a_bad_2d_plan(case: str, tmp_path: Path) -> None:
    check_refused(case, *TILES_2D_REFUSALS[case], tmp_path)


def test_2d_fixture_runs_in_windows(tmp_path: Path) -> None:
    """The fixture's conv, relu and mul in 3 x 3 tiles, through the checking harness: every operand
    with a W axis is a window of the tile's columns widened by the conv's halo, the per-channel
    scale s is whole, and every output pixel is written once."""
    path = tmp_path / "tiles2d.tgrs"
    path.write_bytes(FILES["tiles2d"])
    res = run(Compiled("tiles2d", path, None, None, 0), fast=1 << 16)  # type: ignore[arg-type]
    assert res.stats["err"] == 0 and res.stats["outputs_ok"] == 1 and res.stats["bad"] == 0, res.stats
    cols = [(0, 4), (4, 8), (8, 10)]
    for k in res.calls:
        w0, w1 = cols[k.tile % 3]
        want = {0: (max(0, w0 - 1), min(10, w1 + 1))} if k.op == 0 else {}  # x: the conv's halo
        want |= {t: (w0, w1) for t in (3, 4, 5) if t in k.ins or t in k.outs}
        assert k.wins == want, (k.op, k.tile, k.wins)
    assert res.stats["total_tiles"] == 9 and res.stats["spills_bytes"] == 4 * 6 * 10 * 4

def test_2d_graphs_cover_the_kernels() -> None:
    """The graphs above run every kind of kernel a 2-D tile has, float32 and int8."""
    plans = [one_stage(name, int8)[0] for name in GRAPHS_2D for int8 in (False, True)]
    kinds = {(OpType(op.op_type), DType(plan.tensors[op.outputs[0]].dtype)) for plan in plans for op in plan.ops}
    ops = (OpType.RELU, OpType.ADD, OpType.MUL, OpType.CONV, OpType.DEPTHWISE, OpType.MAX_POOL, OpType.AVG_POOL)
    want = {(op, dtype) for op in ops for dtype in (DType.F32, DType.I8)}
    want |= {(OpType.QUANTIZE, DType.I8), (OpType.DEQUANTIZE, DType.F32), (OpType.SIGMOID, DType.F32)}
    assert want - kinds == set(), want - kinds


# ---------------------------------------------------------------- row caches
#
# A group of full-width row tiles whose tile plan has TIGRIS_TILE_ROW_CACHE keeps every tensor an
# op reads through overlapping rows in a slot across the tiles, computing (loading) each row once
# (docs/tgrs-format.md, "Row caches"; the rule: transforms/plan/row_cache.py). Each graph below is
# compiled into one normal stage (its plan graph gives the rule's figures), then given a row-cache
# tile plan by hand: the stage alone, or split into a chain of two stages. The oracles: the normal
# stage and the same tiles without the flag must give the very same bytes; the run's loads, slot
# bytes and arena peak must be what the rule predicts (cached_reads, cache_bytes, cached_peak).

RC_X = (1, 4, 11, 5)  # C = 4, H = 11 rows (cut unevenly), W = 5


def _rc_conv_relu(g: GraphBuilder, x: str) -> str:
    return g.relu(g.conv(x, 4, 3))


def _rc_two_convs(g: GraphBuilder, x: str) -> str:
    return g.conv(g.relu(g.conv(x, 4, 3)), 4, 3)


def _rc_residual(g: GraphBuilder, x: str) -> str:
    """conv 3x3 -> conv 3x3 -> add with the stage input: x is cached and read by the add too."""
    return g.add(g.conv(g.relu(g.conv(x, 4, 3)), 4, 3), x)


def _rc_stride2(g: GraphBuilder, x: str) -> str:
    return g.conv(g.relu(g.conv(x, 4, 3)), 6, 3, stride=2)


def _rc_max_pool(g: GraphBuilder, x: str) -> str:
    """A 2x2 stride-2 max pool between two convs: its input is read without overlap (not cached)."""
    return g.conv(g.pool("MaxPool", g.relu(g.conv(x, 4, 3)), 2, 2), 4, 3)


# name -> (graph body, the op index a chain of two stages starts its second stage at)
ROW_CACHE_GRAPHS = {
    "conv_relu": (_rc_conv_relu, None),
    "two_convs": (_rc_two_convs, 1),
    "residual": (_rc_residual, None),
    "stride2": (_rc_stride2, 1),
    "max_pool": (_rc_max_pool, 1),
}


@functools.cache
def rc_stage(name: str) -> tuple[PlanFile, PlanGraph]:
    """The graph compiled at a budget it fits untiled: one normal stage, and its plan graph."""
    body, _ = ROW_CACHE_GRAPHS[name]
    g = GraphBuilder(f"row_cache_{name}", 41)
    model = g.build({"y": body(g, g.add_input("x", RC_X))})
    path = _TMP / f"row_cache_{name}.onnx"
    onnx.save(model, path)
    module = import_model_file(str(path), None)
    TigrisCompilePass(budget=1 << 20, align=ALIGN).apply(Context(), module)
    plan = plan_file_from_module(module, 1 << 20)
    assert len(plan.stages) == 1 and plan.stages[0].tile_plan is None
    return plan, build_plan_graph(module)


def rc_stages(plan: PlanFile, split: int | None) -> list[temporal.Stage]:
    """The planner's view of the group: the one stage, or ops [0, split) and [split, n) as a chain
    (the first stage's outputs: what the second reads)."""
    st = plan.stages[0]
    if split is None:
        return [temporal.Stage(0, st.ops[0], st.ops[-1], st.peak, list(st.inputs), list(st.outputs))]
    first_ops, second_ops = st.ops[:split], st.ops[split:]
    made = {o for i in first_ops for o in plan.ops[i].outputs}
    read = [t for i in second_ops for t in plan.ops[i].inputs if t in made]
    links = list(dict.fromkeys(read))
    return [temporal.Stage(0, first_ops[0], first_ops[-1], st.peak, list(st.inputs), links),
            temporal.Stage(1, second_ops[0], second_ops[-1], st.peak, links, list(st.outputs))]


def row_cache_plan(plan: PlanFile, graph: PlanGraph, tile_h: int, split: int | None, cached: bool = True,
                   acc_delta: int = 0) -> PlanFile:
    """The plan's stage in full-width tiles of tile_h output rows, alone or (split) as a chain of
    two stages, with row caches (acc_bytes and peak by the rule; acc_delta: off by that many
    bytes) or without (then no slots, and the untiled stage's peak: the arena is not tested)."""
    stages = rc_stages(plan, split)
    h = plan.tensors[plan.outputs[0]].shape[2]
    halo = receptive_field(stage_windows(graph, stages)) - 1
    chain = 0 if split is not None else -1
    if cached:
        tp = TilePlan(tile_h, math.ceil(h / tile_h), halo, h, row_cache.cached_peak(graph, stages, tile_h, ALIGN),
                      chain=chain, acc_bytes=row_cache.cache_bytes(graph, stages, tile_h, ALIGN) + acc_delta,
                      flags=TileFlag.ROW_CACHE)  # fmt: skip
    else:
        tp = TilePlan(tile_h, math.ceil(h / tile_h), halo, h, plan.stages[0].peak, chain=chain)
    out = [Stage(tuple(range(s.first, s.last + 1)), tuple(s.inputs), tuple(s.outputs), plan.stages[0].peak, tile_plan=0)
           for s in stages]  # fmt: skip
    return replace(plan, stages=out, tile_plans=[tp])


def rc_case(name: str, chain: bool) -> tuple[PlanFile, PlanGraph, int | None]:
    """The compiled stage, its plan graph, and where a chain splits it (None: the lone stage)."""
    plan, graph = rc_stage(name)
    split = ROW_CACHE_GRAPHS[name][1] if chain else None
    assert split is None or 0 < split < len(plan.ops), (name, len(plan.ops))
    return plan, graph, split


def rc_input() -> np.ndarray:
    return np.random.default_rng(5).standard_normal((RC_X[0], RC_X[2], RC_X[3], RC_X[1])).astype(np.float32)


RC_TILES = [1, 2, 3, 11]
RC_RUNS = [(name, chain) for name, (_, split) in ROW_CACHE_GRAPHS.items() for chain in (False, True)
           if not chain or split is not None]  # fmt: skip


@pytest.mark.parametrize("tile_h", RC_TILES)
@pytest.mark.parametrize(("name", "chain"), RC_RUNS, ids=[f"{n}{'-chain' if c else ''}" for n, c in RC_RUNS])
def test_row_caches_give_the_untiled_bytes(name: str, chain: bool, tile_h: int, tmp_path: Path) -> None:
    """The untiled bytes and those of the same tiles without caches; every input row loaded once;
    the slots, loads and arena peak the rule predicts; the arena one byte smaller refused."""
    plan, graph, split = rc_case(name, chain)
    stages = rc_stages(plan, split)
    x = rc_input()
    untiled = host_run(plan, x, tmp_path)
    assert untiled.code == 0, untiled.error
    plain = host_run(row_cache_plan(plan, graph, tile_h, split, cached=False), x, tmp_path)
    assert plain.code == 0 and plain.out == untiled.out, plain.error
    cached = row_cache_plan(plan, graph, tile_h, split)
    tp = cached.tile_plans[0]
    run_ = host_run(cached, x, tmp_path, fast=tp.peak)
    assert run_.code == 0, run_.error
    assert run_.out == untiled.out
    s = run_.stats
    assert s["row_cache_bytes"] == tp.acc_bytes == row_cache.cache_bytes(graph, stages, tile_h, ALIGN) > 0
    assert s["loads_bytes"] == row_cache.cached_reads(graph, stages, tile_h)
    assert s["loads_bytes"] == x.nbytes  # the input is read through a window: each row once
    assert s["spills_bytes"] == len(run_.out) == plan.tensors[plan.outputs[0]].nbytes
    key = "stages_chain" if chain else "stages_tiled"
    assert (s[key], s["total_tiles"], s["stages_normal"]) == (len(stages), tp.num_tiles, 0)
    assert s["slow_overflow_count"] == 0 and s["fast_peak"] == row_cache.cached_peak(graph, stages, tile_h, ALIGN) == tp.peak
    for rows, total in row_cache.cached_computed(graph, stages, tile_h).values():
        assert rows <= total  # nothing recomputed (a pool's odd last row is never read: not computed)
    below = host_run(cached, x, tmp_path, fast=tp.peak - 1)
    assert below.code == 1 and "tiled execution" in below.error, below
    assert plain.stats["row_cache_bytes"] == 0


@pytest.mark.parametrize("tile_h", [1, 3])
@pytest.mark.parametrize(("name", "chain"), RC_RUNS, ids=[f"{n}{'-chain' if c else ''}" for n, c in RC_RUNS])
def test_row_caches_run_the_rule_call_by_call(name: str, chain: bool, tile_h: int, tmp_path: Path) -> None:
    """Through the checking harness (every resident row of every input checked, every output row
    written by its kernel call): each op runs in the tiles where the rule computes new rows of its
    output, on exactly those rows (a cached output's) or its band (another's), reading the bands the
    rule gives its inputs; with the real loader too."""
    plan, graph, split = rc_case(name, chain)
    stages = rc_stages(plan, split)
    cached = row_cache_plan(plan, graph, tile_h, split)
    tp = cached.tile_plans[0]
    keep = row_cache.cached_tensors(graph, stages)
    tiles = row_cache.cached_tiles(graph, stages, tile_h)
    want = []
    for k, tile in enumerate(tiles):
        for st in stages:
            for op in range(st.first, st.last + 1):
                step = graph.steps[op]
                if not any(o in tile.new for o in step.outputs):
                    continue
                outs = {o: tile.new[o] if o in keep else tile.need[o] for o in step.outputs if o in tile.need}
                want.append((op, k, outs, {i: tile.need[i] for i in step.inputs}))
    path = tmp_path / "row_cache.tgrs"
    path.write_bytes(write_plan(cached))
    for exe in (harness(), harness(real_loader=True)):
        res = run(Compiled(name, path, cached, graph, 0), fast=tp.peak, exe=exe)
        s = res.stats
        assert s["err"] == 0 and s["outputs_ok"] == 1 and s["bad"] == 0, (s, res.text[-2000:])
        assert s["row_cache_bytes"] == tp.acc_bytes and s["fast_peak"] == row_cache.cached_peak(graph, stages, tile_h, ALIGN)
        assert s["loads_bytes"] == row_cache.cached_reads(graph, stages, tile_h)
        got = [(k.op, k.tile, k.outs, k.ins) for k in res.calls]
        assert got == want
    for o in keep:  # the kernels of a cached tensor's producer compute each of its rows once, in order
        ranges = [outs[o] for _, _, outs, _ in want if o in outs]
        assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:])), (o, ranges)


@pytest.mark.parametrize("delta", [-1, -ALIGN])
def test_row_cache_slots_must_be_the_plans_bytes(delta: int, tmp_path: Path) -> None:
    """The slots must fit in acc_bytes (what the compiler counted in the peak, each slot aligned
    to the plan's alignment): one byte or one aligned slot short, the executor refuses the group
    before its first tile."""
    plan, graph, _ = rc_case("residual", False)
    bad = row_cache_plan(plan, graph, 3, None, acc_delta=delta)
    res = host_run(bad, rc_input(), tmp_path)
    assert res.code == 1 and "tiled execution" in res.error, res
    path = tmp_path / "off.tgrs"
    path.write_bytes(write_plan(bad))
    refused = run(Compiled("off", path, bad, graph, 0), fast=1 << 16)
    assert refused.stats["err"] == ERR["tile"] and refused.calls == [], refused.stats


# Row-cache plans the loader refuses (the reader refuses to write them): (field, value, the
# reader's message); the executor, given them through the harness's own parser, refuses them too.
ROW_CACHE_REFUSALS = {
    "column tiles": ({"tile_w": 2, "num_tiles_w": 3, "out_w": 5}, "row caches run full-width"),
    "unknown flag": ({"flags": 3}, "unknown bits"),
    "no slots": ({"acc_bytes": 0}, "row caches keep 1..peak"),
}


@pytest.mark.parametrize("case", list(ROW_CACHE_REFUSALS))
def test_row_cache_plans_the_loader_refuses(case: str, tmp_path: Path) -> None:
    plan, graph, _ = rc_case("two_convs", False)
    good = row_cache_plan(plan, graph, 3, None)
    data = write_plan(good)
    for key, value in ROW_CACHE_REFUSALS[case][0].items():
        data = set_field(data, K.TILE_PLANS, TILE_PLAN, 0, key, value)
    with pytest.raises(TgrsFormatError, match=ROW_CACHE_REFUSALS[case][1]):
        read_plan(data)
    (tmp_path / "plan.tgrs").write_bytes(data)
    (tmp_path / "in.bin").write_bytes(rc_input().tobytes())
    cmd = [str(_runner(sanitize=True)), str(tmp_path / "plan.tgrs"), str(tmp_path / "in.bin"), str(tmp_path / "o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "cannot load the plan" in proc.stderr, proc.stderr
    refused = run(Compiled(case, tmp_path / "plan.tgrs", good, graph, 0), fast=1 << 16)
    assert refused.stats["err"] == ERR["tile"] and refused.calls == [], refused.stats


def test_row_cache_writer_with_two_outputs_is_refused(tmp_path: Path) -> None:
    """A cached tensor's producer computes its new rows straight into the slot, so it must have one
    output: a relu writing a 3x1 pool's input (cached: rows 2k - 1 .. 2k + 3 of the tile's, 4 rows
    of 2 x 2 x 4 bytes, one 128-byte slot) and a second tensor makes the loader refuse the plan
    (through the harness: load_error) and the executor too (through the harness's own parser);
    with one output the same plan runs, the harness checking every row."""
    t = _tensors(4)
    pool = Op(OpType.MAX_POOL, "pool", (1,), (3,), kernel_h=3, kernel_w=1, pad_top=1, pad_bottom=1, **WINDOW)
    tp = TilePlan(2, 4, 2, 8, 4096, acc_bytes=128, flags=TileFlag.ROW_CACHE)

    def plan(outs: tuple[int, ...]) -> PlanFile:
        ops = [Op(OpType.RELU, "relu", (0,), outs, **SAME), pool]
        return PlanFile("writer", t, ops, [Stage((0, 1), (0,), (3,), 4096, tile_plan=0)], (0,), (3,), [tp])

    one = _hand("writer_one", plan((1,)))
    for exe in (harness(), harness(real_loader=True)):
        res = run(one, fast=4096, exe=exe)
        assert res.stats["err"] == 0 and res.stats["bad"] == 0 and res.stats["outputs_ok"] == 1, res.text
        assert res.stats["row_cache_bytes"] == 128 and res.stats["loads_bytes"] == 8 * 32
    two = _hand("writer_two", plan((1, 2)))
    refused = run(two, fast=4096)
    assert refused.stats["err"] == ERR["tile"] and refused.calls == [], refused.stats
    assert refused.stats["error_tensor"] == 1
    exe = harness(real_loader=True)
    proc = subprocess.run([str(exe), str(two.path), "--fast", "4096", "--slow", str(1 << 20)], capture_output=True,
                          text=True, timeout=120)
    assert "load_error=" in proc.stdout and "call op=" not in proc.stdout, proc.stdout


def test_row_cache_fixture_runs_as_worked_out_by_hand(tmp_path: Path) -> None:
    """The round-trip fixture (test_tgrs_roundtrip.py row_caches: two conv 3x3 stages chained in
    tiles of 2 of 6 rows), through the checking harness: each conv computes the rows worked out
    there by hand, x is loaded once, and the arena holds the 256 slot bytes and y's 64-byte band."""
    path = tmp_path / "rowcache.tgrs"
    path.write_bytes(FILES["rowcache"])
    for exe in (harness(), harness(real_loader=True)):
        res = run(Compiled("rowcache", path, None, None, 0), fast=1 << 16, exe=exe)  # type: ignore[arg-type]
        s = res.stats
        assert s["err"] == 0 and s["outputs_ok"] == 1 and s["bad"] == 0, res.text
        got = [(k.op, k.tile, k.outs, k.ins) for k in res.calls]
        assert got == [(0, 0, {2: (0, 3)}, {0: (0, 4)}), (1, 0, {4: (0, 2)}, {2: (0, 3)}),
                       (0, 1, {2: (3, 5)}, {0: (2, 6)}), (1, 1, {4: (2, 4)}, {2: (1, 5)}),
                       (0, 2, {2: (5, 6)}, {0: (4, 6)}), (1, 2, {4: (4, 6)}, {2: (3, 6)})]  # fmt: skip
        assert (s["loads_bytes"], s["spills_bytes"], s["row_cache_bytes"], s["fast_peak"]) == (192, 192, 256, 320)
        assert (s["stages_chain"], s["total_tiles"]) == (2, 3)


# Row-cache plans the executor refuses before the first tile (the loader accepts the first: the
# slot bytes depend on the bands, which it does not compute): (corruption of the fixture, stage).
ROW_CACHE_EXEC_REFUSALS = {
    "slots one byte short": ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "acc_bytes", 255), 0),
    "unknown flag": ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "flags", 3), 0),
    "column tiles": ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "tile_w", 2), 0),
    "with reduce_op": ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "reduce_op", 1), 0),
    "slots above the peak": ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "peak", 255), 0),
}


@pytest.mark.parametrize("case", list(ROW_CACHE_EXEC_REFUSALS))
def test_executor_refuses_a_bad_row_cache_plan(case: str, tmp_path: Path) -> None:
    check_refused(case, *ROW_CACHE_EXEC_REFUSALS[case], tmp_path)
