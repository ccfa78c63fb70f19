"""The `tigris analyze --json` document: the text report's facts under stable keys.

Sizes are bytes (`*_bytes`). `stage_count` is the number of stages and `stages` the
list of per-stage rows (the issue's `stages` count is `stage_count`, since one key
cannot be both). `verdict` is one of `fits`, `fits_tiled`, `overflows`, `cannot_run`;
`fits` is true for the first two. `slow_fits` / `flash_fits` are null when no slow
(`-m FAST+SLOW`) or flash (`-f`) size was given. `flash_bytes` is the size of the `.tgrs`
file `tigris compile` writes at the budget (without LZ4): `weight_bytes` (the model's
weights) plus `plan_overhead_bytes` (everything else in the file). For a model the compiler
cannot lower or emit both are null and `flash_error` says why (else it is null).
`sram_only` is null unless `-m T+0` (no PSRAM) was given; then it holds `budget_bytes` (T),
`fits`, `plan` (the chosen plan, compiled at `compile_budget_bytes`: its `arena_bytes` (its
peak) + `between_stages_bytes` = `total_bytes`, the
model's I/O buffers `model_io_bytes` beside them, the runtime's `slow_buffer_bytes`; null when
none fits) and `smallest` (the smallest SRAM-only budget found, same keys), and `budget_bytes`
at the top is the chosen arena.
"""

from __future__ import annotations

import json
from typing import Any

from tigris.tools.report.analysis import AnalysisReport, SramOnlyReport, StageRow
from tigris.tools.report.sram_only import SramOnly
from tigris.tools.report.facts import TensorInfo


def _tensor(t: TensorInfo) -> dict[str, Any]:
    quant = None
    if t.quant is not None:
        q = t.quant
        quant = {"axis": q.axis, "scales": list(q.scales), "zero_points": list(q.zero_points)}
    return {"name": t.name, "shape": list(t.shape), "dtype": t.dtype, "bytes": t.nbytes, "quant": quant}


def _stage(s: StageRow) -> dict[str, Any]:
    tile = None
    if s.tile is not None:
        tile = {"tile_h": s.tile.tile_h, "halo": s.tile.halo, "tiles": s.tile.tiles, "chain": s.tile.chain,
                "acc": s.tile.acc, "tile_w": s.tile.tile_w, "halo_w": s.tile.halo_w, "tile_c": s.tile.tile_c,
                "dense": s.tile.dense, "windows": s.tile.windows, "cache": s.tile.cache}
    return {
        "index": s.index,
        "first_op": s.first_op,
        "last_op": s.last_op,
        "op_count": s.op_count,
        "untiled_peak_bytes": s.untiled_peak,
        "scheduled_peak_bytes": s.scheduled_peak,
        "inputs": list(s.inputs),
        "outputs": list(s.outputs),
        "strategy": s.strategy.value,
        "tile": tile,
    }


def to_dict(r: AnalysisReport) -> dict[str, Any]:
    largest = {"name": r.largest_tensor[0], "bytes": r.largest_tensor[1]} if r.largest_tensor else None
    return {
        "model": r.model,
        "name": r.name,
        "dtype": r.dtype,
        "op_count": r.op_count,
        "inputs": [_tensor(t) for t in r.inputs],
        "outputs": [_tensor(t) for t in r.outputs],
        "align": r.align,
        "budget_bytes": r.budget,
        "slow_budget_bytes": r.slow_budget,
        "flash_budget_bytes": r.flash_budget,
        "fits": r.fits,
        "verdict": r.verdict.key,
        "scheduled_peak_bytes": r.scheduled_peak,
        "headroom_bytes": r.headroom,
        "overflow_bytes": max(0, -r.headroom),
        "overflow_stages": [{"index": i, "bytes": n} for i, n in r.overflow_stages],
        "unscheduled_peak_bytes": r.unscheduled_peak,
        "largest_tensor": largest,
        "min_budget_bytes": r.min_budget,
        "min_budget_op": None if r.min_budget_op is None else {"name": r.min_budget_op[0], "op": r.min_budget_op[1]},
        "smallest_fitting_budget_bytes": r.smallest_fitting_budget,
        "smallest_pow2_budget_bytes": r.smallest_pow2_budget,
        "stage_count": r.stage_count,
        "tiled_stages": r.tiled_stages,
        "chained_stages": r.chained_stages,
        "chains": r.chains,
        "sram_only": None if r.sram_only is None else _sram_only(r.sram_only),
        "slow_peak_bytes": r.slow_peak,
        "slow_fits": r.slow_fits,
        "needs_slow_memory": r.needs_slow_memory,
        "slow_traffic_bytes": {"written": r.traffic_written, "read": r.traffic_read},
        "halo_macs": r.halo_macs,
        "total_macs": r.total_macs,
        "halo_overhead_pct": round(r.halo_overhead_pct, 4),
        "max_recompute_pct": r.max_recompute,
        "recomputed_rows": r.recomputed_rows,
        "row_cache_bytes": r.row_cache_bytes,
        "row_cache_groups": r.row_cache_groups,
        "weight_bytes": r.weight_bytes,
        "plan_overhead_bytes": None if r.flash.total is None else r.flash.total - r.weight_bytes,
        "flash_bytes": r.flash.total,
        "flash_error": r.flash.error,
        "flash_fits": r.flash_fits,
        "sweep": [
            {"budget_bytes": p.budget, "stage_count": p.stage_count, "tiled_stages": p.tiled_stages,
             "chains": p.chains, "scheduled_peak_bytes": p.scheduled_peak, "verdict": p.verdict.key}
            for p in r.sweep
        ],
        "stages": [_stage(s) for s in r.stages],
    }


def _sram_only(s: SramOnlyReport) -> dict[str, Any]:
    def plan(p: SramOnly | None) -> dict[str, int] | None:
        if p is None:
            return None
        return {"compile_budget_bytes": p.budget, "arena_bytes": p.arena, "between_stages_bytes": p.between, "total_bytes": p.total,
                "model_io_bytes": p.model_io, "slow_buffer_bytes": p.slow_buffer, "traffic_bytes": p.traffic,
                "stage_count": p.stages}

    return {"budget_bytes": s.budget, "fits": s.fits, "plan": plan(s.plan), "smallest": plan(s.smallest)}


def to_json(r: AnalysisReport) -> str:
    return json.dumps(to_dict(r), indent=2) + "\n"
