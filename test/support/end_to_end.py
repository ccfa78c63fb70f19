"""Compile a model at a budget, run the plan in the C runtime in an arena of that budget, and
say what the run exercised and whether it did what the compiler predicted.

Shared by test/python/test_end_to_end.py (the matrix) and bench/e2e_sweep.py (the long sweep).
A compile is `tigris compile` (`compile_bytes`) done in its three steps, so that the compiled
module is kept: its `tgr.stages` are the plan the `.tgrs` runs (also when `-c lz4` re-planned at
a smaller budget), and `written_plan` turns them into the compiler's predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from compiled_models import Compiled, ort_lsb, plan_inputs
from tigris.dialects.onnx.importer import import_model_file
from tigris.tools.report.slow_memory import slow_peak
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.enums import FileFlag, OpType
from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.emit.tgrs.model import Op, PlanFile
from tigris.tools.runtime_binding import run_plan
from tigris.transforms.pipelines import NORMALIZE, TigrisCompilePass, run_passes
from tigris.transforms.plan.passes import written_plan
from tigris.transforms.plan.planner import Plan, groups, recomputed_rows_of
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

ONE_STAGE = "one stage"
NORMAL_SPILLS = "normal stages + spills"
TILED_HALO = "tiled, halo > 0"
TILED_STRIDE2 = "tiled, stride 2"
CHAIN_2 = "chain of 2"
CHAIN_3 = "chain of 3+"
CONCAT_IN_TILE = "Concat in a tile"
ADD_IN_TILE = "residual Add in a tile"
RESIZE_IN_TILE = "Resize in a tile"
OVERFLOW = "overflow to slow memory"
REDUCE = "reduction tiles"
TILED_2D = "2-D tiles"
LZ4 = "LZ4 blocks"
XIP = "XIP"
DENSE_BLOCKS = "dense layer in blocks"
FUSED = "fused stage"
ROW_CACHES = "row caches"
FEATURES = (ONE_STAGE, NORMAL_SPILLS, TILED_HALO, TILED_STRIDE2, CHAIN_2, CHAIN_3, CONCAT_IN_TILE,
            ADD_IN_TILE, RESIZE_IN_TILE, OVERFLOW, LZ4, XIP, REDUCE, TILED_2D, DENSE_BLOCKS, FUSED, ROW_CACHES)  # fmt: skip
"""What the matrix must exercise (issues F6, G2, G3), each read from the plan file and the run's stats."""

WINDOWS = frozenset({OpType.CONV, OpType.DEPTHWISE, OpType.CONV1D, OpType.MAX_POOL, OpType.AVG_POOL})



def budget_text(budget: int) -> str:
    """`64K`, `1M`, `96`: as `-m` takes it."""
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if budget % size == 0:
            return f"{budget // size}{unit}"
    return str(budget)


def normalized(path: Path) -> ModuleOp:
    """The model imported and run through tigris-normalize: compiles at every budget start here."""
    module = import_model_file(path)
    run_passes(NORMALIZE, Context(), module)
    return module


def compile_at(module: ModuleOp, budget: int, mode: str) -> tuple[ModuleOp, bytes]:
    """`tigris compile -m budget` (mode `none`, `lz4`: `-c lz4`, `xip`: `--xip`) of a normalized
    module: the compiled module and the `.tgrs` bytes."""
    compress = "lz4" if mode == "lz4" else "none"
    compiled = module.clone()
    TigrisCompilePass(budget=budget, compress=compress).plan_and_lower(Context(), compiled)
    return compiled, write_plan(plan_file_from_module(compiled, budget, xip=mode == "xip"), compress)


@dataclass
class Run:
    """One compile, run once in an arena of exactly its budget."""

    key: str
    budget: int
    mode: str
    c: Compiled  # the plan, its bytes and the compiled module (for the interpreter)
    predicted: Plan
    floats: dict[str, np.ndarray]  # onnxruntime's inputs
    inputs: list[np.ndarray]  # the same, as the plan stores them (quantized for int8)
    raw: list[np.ndarray]  # outputs as stored (int8 not dequantized)
    stats: dict[str, int]

    @property
    def label(self) -> str:
        return f"{self.key} @ {budget_text(self.budget)}" + ("" if self.mode == "none" else f" {self.mode}")

    @property
    def output_bytes(self) -> bytes:
        return b"".join(np.ascontiguousarray(y).tobytes() for y in self.raw)


def run_once(key: str, path: Path, module: ModuleOp, budget: int, mode: str = "none", seed: int = 0) -> Run:
    """Compile the normalized `module` of the model at `path` and run it on seed `seed`'s inputs."""
    compiled, data = compile_at(module, budget, mode)
    c = Compiled(onnx.load(str(path)), data, read_plan(data), compiled)
    return rerun(Run(key, budget, mode, c, written_plan(compiled), {}, [], [], {}), seed)


def rerun(run: Run, seed: int) -> Run:
    """The same plan, in the same arena, on seed `seed`'s inputs."""
    floats, inputs = plan_inputs(run.c, seed)
    result = run_plan(run.c.plan_bytes, inputs, fast=run.budget, dequantize=False)
    return Run(run.key, run.budget, run.mode, run.c, run.predicted, floats, inputs, result.outputs, result.stats)


def features(plan: PlanFile, stats: dict[str, int]) -> frozenset[str]:
    """Which of FEATURES a run exercised: strategies from the plan, confirmed by the run's stats."""
    found: set[str] = set()
    tiles = plan.tile_plans
    strategy = ["normal" if s.tile_plan is None else "chain" if tiles[s.tile_plan].chain >= 0 else "tiled"
                for s in plan.stages]  # fmt: skip
    if len(plan.stages) == 1 and stats["stages_normal"] == 1:
        found.add(ONE_STAGE)
    if strategy.count("normal") >= 2 and stats["stages_normal"] >= 2 and stats["spills_bytes"] > 0:
        found.add(NORMAL_SPILLS)
    for s, kind in zip(plan.stages, strategy):
        ops = [plan.ops[i] for i in s.ops]
        if kind == "tiled" and stats["stages_tiled"] > 0:
            dense = tiles[s.tile_plan].tile_c > 0 and all(op.op_type == OpType.FULLY_CONN for op in ops)
            found |= {DENSE_BLOCKS} if dense else set()
            found |= {REDUCE} if tiles[s.tile_plan].reduce_op is not None and not dense else set()
            found |= {TILED_2D} if tiles[s.tile_plan].tile_w > 0 and stats["total_tiles"] > 0 else set()
            found |= {TILED_HALO} if tiles[s.tile_plan].halo > 0 else set()
            found |= {TILED_STRIDE2} if any(op.op_type in WINDOWS and op.stride_h == 2 for op in ops) else set()
            found |= {FUSED} if sum(op.op_type in WINDOWS for op in ops) > 1 and stats["total_tiles"] > 0 else set()
        if kind != "normal" and stats["total_tiles"] > 0:
            found |= {CONCAT_IN_TILE} if any(op.op_type == OpType.CONCAT for op in ops) else set()
            found |= {RESIZE_IN_TILE} if any(op.op_type == OpType.RESIZE for op in ops) else set()
            found |= {ADD_IN_TILE} if any(_residual_add(plan, op) for op in ops) else set()
    for chain in {tiles[s.tile_plan].chain for s, kind in zip(plan.stages, strategy) if kind == "chain"}:
        length = sum(1 for s in plan.stages if s.tile_plan is not None and tiles[s.tile_plan].chain == chain)
        found.add(CHAIN_2 if length == 2 else CHAIN_3)
    if stats["slow_overflow_count"] > 0:
        found.add(OVERFLOW)
    if stats["row_cache_bytes"] > 0 and any(tp.row_cache for tp in tiles):
        found.add(ROW_CACHES)
    if FileFlag.LZ4 in plan.flags and plan.weight_blocks:
        found.add(LZ4)
    if FileFlag.XIP in plan.flags:
        found.add(XIP)
    return frozenset(found)


def _residual_add(plan: PlanFile, op: Op) -> bool:
    """An Add of two feature maps (a skip connection), not of a feature map and a constant."""
    ins = [plan.tensors[i] for i in op.inputs]
    return op.op_type == OpType.ADD and len(ins) == 2 and all(t.weight is None and len(t.shape) >= 3 for t in ins)


def predicted_stats(plan: Plan) -> dict[str, int]:
    """The run statistics the plan predicts: stages by strategy, tiles, slow traffic and peak."""
    return {
        "stages_normal": sum(sp.strategy == "normal" for sp in plan.stages),
        "stages_tiled": sum(sp.strategy == "tiled" for sp in plan.stages),
        "stages_chain": sum(sp.strategy == "chain" for sp in plan.stages),
        "total_tiles": sum(g[0].tile.total_tiles for g in groups(plan) if g[0].tile is not None),
        "loads_bytes": plan.traffic.read,
        "spills_bytes": plan.traffic.written,
        "slow_peak": slow_peak(plan),
        "row_cache_bytes": max((g[0].tile.cache for g in groups(plan) if g[0].tile is not None), default=0),
        "recomputed_rows": recomputed_rows_of(plan),
    }


def stat_mismatches(run: Run) -> list[str]:
    """Where the run's statistics disagree with the plan's prediction ([] when they agree).

    Exact, except where the arena overflows (and only if the plan says it does): the runtime
    then reads reloaded tensors that do not fit in place from slow memory (still counted as
    loaded) and allocates the tensors a stage produces that do not fit in slow memory. A stage
    output that overflowed is already its own slow copy, so spilling it copies nothing (spills
    fall short of the plan by at most the overflowed bytes), and the overflowed tensors sit in
    slow memory on top of the spilled ones (the slow peak exceeds the plan's by at most the
    overflowed bytes)."""
    want, got = predicted_stats(run.predicted), run.stats
    out = [f"{k} {got[k]} != predicted {v}" for k, v in want.items() if got[k] != v]
    overflowed = got["slow_overflow_bytes"]
    if (got["slow_overflow_count"] > 0) != (run.predicted.overflow > 0):
        return [*out, f"overflow: {got['slow_overflow_count']} tensors, predicted {run.predicted.overflow} bytes over"]
    reserved = int.from_bytes(run.c.plan_bytes[24:28], "little")  # header fast_reserved (LZ4 blocks)
    fast_peak = run.predicted.scheduled_peak + -(-reserved // run.predicted.align) * run.predicted.align
    if not got["slow_overflow_count"] and got["fast_peak"] != fast_peak:
        out.append(f"fast_peak {got['fast_peak']} != predicted {fast_peak} (the plan's peak + fast_reserved)")
    if overflowed:
        within = {
            "spills_bytes": want["spills_bytes"] - overflowed <= got["spills_bytes"] <= want["spills_bytes"],
            "slow_peak": want["slow_peak"] <= got["slow_peak"] <= want["slow_peak"] + overflowed,
        }
        out = [m for m in out if not within.get(m.split()[0], False)]
    tiles = run.c.plan.tile_plans
    emitted = [(t.tile_h, t.num_tiles, t.halo, t.out_h, t.peak, t.chain, t.acc_bytes, t.tile_w, t.num_tiles_w,
                t.halo_w, t.out_w, t.tile_c, t.num_tiles_c, t.row_cache)
               for t in (tiles[s.tile_plan] for s in run.c.plan.stages if s.tile_plan is not None)]
    planned = [(t.tile_h, t.num_tiles, t.halo, t.out_h, t.peak, t.chain, t.acc or t.cache, t.tile_w, t.num_tiles_w,
                t.halo_w, t.out_w, t.tile_c, t.num_tiles_c, t.row_cache)
               for t in (sp.tile for sp in run.predicted.stages if sp.tile is not None)]  # fmt: skip
    if emitted != planned or len(run.c.plan.stages) != len(run.predicted.stages):
        out.append("the .tgrs stages and tile plans are not the compiled module's")
    return out


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| over max |want|."""
    return float(np.abs(got.astype(np.float64) - want).max() / max(float(np.abs(want).max()), 1e-30))


def ort_distance(run: Run, int8: bool) -> float:
    """Distance to onnxruntime on the same inputs: int8 in output steps (LSB), float relative
    to the largest |output|."""
    import ort_helpers

    if int8:
        return float(ort_lsb(run.c, run.floats, run.raw))
    want = ort_helpers.run_onnxruntime(run.c.qdq, run.floats)
    return max(relative_error(y, w) for y, w in zip(run.raw, want, strict=True))
