"""The human-readable `tigris analyze` report (`-v` adds one row per stage)."""

from __future__ import annotations

from collections.abc import Sequence

from tigris.tools.report.analysis import AnalysisReport, StageRow, Verdict
from tigris.tools.report.facts import TensorInfo


def size(n: int) -> str:
    """Bytes, readable: 40 B, 63.0 KiB, 1.25 MiB (binary units, like the -m flag)."""
    if abs(n) < 1024:
        return f"{n} B"
    if abs(n) < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.2f} MiB"


def exact(n: int) -> str:
    return size(n) if abs(n) < 1024 else f"{size(n)} ({n:,} B)"


def _tensor_line(label: str, t: TensorInfo) -> str:
    shape = "x".join(map(str, t.shape)) or "scalar"
    line = f"  {label:<8} {t.name}  {shape}  {t.dtype}  {size(t.nbytes)}"
    if t.quant is not None:
        q = t.quant
        line += (
            f"  quant scale {q.scales[0]:.6g} zero point {q.zero_points[0]}"
            if q.axis < 0
            else f"  quant per-axis (axis {q.axis}, {len(q.scales)} scales)"
        )
    return line


def _verdict_lines(r: AnalysisReport) -> list[str]:
    head = f"verdict: {r.verdict.value}"
    if r.verdict is Verdict.CANNOT_RUN:
        return [
            f"{head}: the {size(r.budget)} budget is below the minimum {exact(r.min_budget)},",
            "  the arena some op needs even tiled to one-row bands (the runtime would overflow",
            "  such stages to slow memory: slower, same outputs)",
            f"  scheduled peak {exact(r.scheduled_peak)};"
            f" every stage fits from {exact(r.smallest_fitting_budget)}",
        ]
    if r.verdict is Verdict.OVERFLOWS:
        over = ", ".join(f"{i} (+{n:,} B)" for i, n in r.overflow_stages)
        return [
            f"{head}: scheduled peak {exact(r.scheduled_peak)},"
            f" {-r.headroom:,} B over the {size(r.budget)} budget",
            f"  overflowing stages: {over}",
            f"  every stage fits from {exact(r.smallest_fitting_budget)}",
        ]
    return [
        f"{head}: scheduled peak {exact(r.scheduled_peak)}, headroom {r.headroom:,} B of {size(r.budget)}",
        f"  minimum budget {exact(r.min_budget)}{_set_by(r)}; no overflow from {exact(r.smallest_fitting_budget)}",
    ]


def _sram_only_lines(r: AnalysisReport) -> list[str]:
    """`-m T+0`: what the SRAM-only plan takes of T, or that none fits, and the smallest T."""
    s = r.sram_only
    assert s is not None
    low, pad = s.smallest, " " * 18
    assert low is not None  # analyze always searches it
    if s.plan is None:
        head = [f"  SRAM only       DOES NOT FIT {size(s.budget)} without PSRAM: no arena leaves room for the",
                f"{pad}tensors its stages pass between them"]
    else:
        p = s.plan
        head = [f"  SRAM only       fits {size(s.budget)} without PSRAM: arena {exact(p.arena)}",
                f"{pad}+ {exact(p.between)} passed between stages = {exact(p.total)}"]
    return [
        *head,
        f"{pad}smallest SRAM-only budget {exact(low.total)}: arena {size(low.arena)}"
        f" + {size(low.between)} between stages ({low.stages} stage{'s' if low.stages != 1 else ''})",
        f"{pad}not counted: the model's input and output buffers, {exact(low.model_io)}; the runtime's",
        f"{pad}slow buffer (in SRAM) holds them and the tensors between stages: {exact(r.slow_peak)}",
    ]


def _sram_only_verdict(r: AnalysisReport) -> list[str]:
    """Without PSRAM, a budget no plan fits is the verdict; the lines after it describe the plan
    the budget would have with PSRAM."""
    lines, s = _verdict_lines(r), r.sram_only
    if s is None or s.fits:
        return lines
    assert s.smallest is not None
    first = lines[0].replace("verdict: ", f"  with PSRAM, at {size(r.budget)}: ", 1)
    return [f"verdict: does not fit {size(s.budget)} without PSRAM: the smallest SRAM-only budget is"
            f" {exact(s.smallest.total)} (-m {s.smallest.total}+0)", first, *lines[1:]]


def _slow_line(r: AnalysisReport) -> str:
    if r.slow_budget is None:
        verdict = "no slow size given (-m FAST+SLOW)"
    elif r.slow_fits:
        verdict = f"fits the {size(r.slow_budget)} given"
    else:
        verdict = f"DOES NOT FIT the {size(r.slow_budget)} given ({r.slow_peak - r.slow_budget:,} B short)"
    needed = "" if r.needs_slow_memory else "; not needed: one untiled stage runs from SRAM"
    return f"  slow memory     peak {exact(r.slow_peak)}, {verdict}{needed}"


def _flash_line(r: AnalysisReport) -> str:
    total = r.flash.total
    if total is None:
        return f"  flash           unknown: tigris compile cannot write this model: {r.flash.error}"
    verdict = ""
    if r.flash_budget is not None:
        verdict = f"; {'fits' if r.flash_fits else 'DOES NOT FIT'} the {size(r.flash_budget)} given"
    return (
        f"  flash           {exact(total)}, the .tgrs file: {size(r.weight_bytes)} weights"
        f" ({r.weight_count} tensors) + {size(total - r.weight_bytes)} plan{verdict}"
    )


def _summary(r: AnalysisReport) -> list[str]:
    normal = r.stage_count - r.tiled_stages - r.chained_stages
    largest = f"'{r.largest_tensor[0]}' {exact(r.largest_tensor[1])}" if r.largest_tensor else "none"
    return [
        f"  unscheduled     {exact(r.unscheduled_peak)}: everything live, one stage",
        f"  largest tensor  {largest}",
        f"  stages          {r.stage_count}: {normal} normal, {r.tiled_stages} tiled,"
        f" {r.chained_stages} chained in {r.chains} chain{'s' if r.chains != 1 else ''}",
        *(_sram_only_lines(r) if r.sram_only is not None else [_slow_line(r)]),
        f"  traffic         {exact(r.traffic_written)} written, {exact(r.traffic_read)} read per inference",
        f"  halo recompute  {r.halo_overhead_pct:.2f}% of the model's MACs"
        f" ({r.halo_macs:,} of {r.total_macs:,}, {r.recomputed_rows:,} rows computed again);"
        f" cuts may add {r.max_recompute:g}% (--max-recompute)",
        *([f"  row caches      {r.row_cache_groups} stage group{'s' if r.row_cache_groups != 1 else ''}, "
           f"largest {exact(r.row_cache_bytes)} (rows kept across tiles: none recomputed or reloaded)"]
          if r.row_cache_groups else []),
        _flash_line(r),
    ]


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: int = 0, align: str = "") -> list[str]:
    """Columns padded to their widest cell; the first `right` columns right-aligned, or
    per column as `align` says (`l`/`r`, e.g. "lrr"; also used by the benchmarks)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    align = align or "r" * right + "l" * (len(header) - right)
    lines = []
    for row in [header, *rows]:
        cells = [c.rjust(w) if align[i] == "r" else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


def _sweep(r: AnalysisReport) -> list[str]:
    rows = [
        [size(p.budget), str(p.stage_count), str(p.tiled_stages), str(p.chains), size(p.scheduled_peak),
         p.verdict.value + ("   <- -m" if p.budget == r.budget else "")]
        for p in r.sweep
    ]
    head = f"budget sweep (smallest power-of-two budget without overflow: {exact(r.smallest_pow2_budget)})"
    return [head, *table(["budget", "stages", "tiled", "chains", "sched peak", "verdict"], rows, right=5)]


def _set_by(r: AnalysisReport) -> str:
    """Which op needs the minimum budget: the one to look at for a smaller arena."""
    return f", set by '{r.min_budget_op[0]}' ({r.min_budget_op[1]})" if r.min_budget_op else ""


def _strategy(s: StageRow) -> str:
    if s.tile is None:
        return s.strategy.value
    t = s.tile
    if t.dense and t.acc:
        return (f"dense: {t.tile_c} output x {t.tile_h} input features a tile, {t.tiles} tiles, "
                f"{size(t.acc)} partial sums")
    if t.dense:
        return f"dense: {t.tile_c} output features a block, {t.tiles} blocks"
    if t.acc:
        blocks = f", {t.tile_c} channels a block" if t.tile_c else ""
        return f"reduce: {t.tile_h} input rows a tile{blocks}, {t.tiles} tiles, {size(t.acc)} accumulator"
    if t.tile_w:
        return f"tiled 2-D: {t.tile_h} x {t.tile_w}, halo {t.halo} x {t.halo_w}, {t.tiles} tiles"
    kind = "tiled" if t.chain < 0 else f"chain {t.chain}"
    fused = f" fused ({t.windows} windows)" if t.windows > 1 else ""
    if t.cache:
        return f"{kind}{fused}: tile_h {t.tile_h}, {t.tiles} tiles, row caches {size(t.cache)}"
    return f"{kind}{fused}: tile_h {t.tile_h}, halo {t.halo}, {t.tiles} tiles"


def _stage_table(r: AnalysisReport) -> list[str]:
    rows = [
        [str(s.index), f"{s.first_op}..{s.last_op}" if s.op_count > 1 else s.first_op, str(s.op_count),
         size(s.untiled_peak), size(s.scheduled_peak), _strategy(s),
         f"{', '.join(s.inputs) or '-'} -> {', '.join(s.outputs) or '-'}"]
        for s in r.stages
    ]
    header = ["#", "ops", "n", "untiled", "sched", "strategy", "inputs -> outputs"]
    return [
        "stages (untiled: the stage's own peak; sched: after tiling, a chain's band peak;",
        "        inputs/outputs: loaded from / spilled to slow memory, except a chain's links)",
        *table(header, rows, right=1),
    ]


def render_text(r: AnalysisReport, verbose: bool = False) -> str:
    budgets = f"fast {size(r.budget)}"
    if r.sram_only is not None and r.sram_only.fits:
        budgets += f" (the plan chosen for SRAM only {size(r.sram_only.budget)}, no PSRAM)"
    elif r.sram_only is not None:
        budgets += ", no PSRAM"
    elif r.slow_budget is not None:
        budgets += f", slow {size(r.slow_budget)}"
    budgets += f", flash {size(r.flash_budget)}" if r.flash_budget is not None else ""
    lines = [
        f"model {r.model} (graph '{r.name}'): {r.dtype}, {r.op_count} ops",
        *(_tensor_line("input", t) for t in r.inputs),
        *(_tensor_line("output", t) for t in r.outputs),
        f"  budget   {budgets}, align {r.align}",
        "",
        *_sram_only_verdict(r),
        *_summary(r),
        "",
        *_sweep(r),
    ]
    if verbose:
        lines += ["", *_stage_table(r)]
    return "\n".join(lines) + "\n"
