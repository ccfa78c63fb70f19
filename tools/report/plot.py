"""Figures for `tigris analyze --plot` (live memory per step) and `--plot-tiles` (tile bands).

matplotlib is an optional extra (`pip install 'tigris[plot]'`), imported only here and
only when a figure is drawn; `require_matplotlib` lets the CLI refuse early, before any
compiler work, with one line. Figures are built on `matplotlib.figure.Figure` without
pyplot, so no GUI backend or global figure state is involved (the Agg canvas renders
PNG, the SVG/PDF writers need none), and SVG keeps its text as `<text>` (not glyph
paths) so labels stay searchable and testable.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tigris.dialects.tgr.attributes import Strategy
from tigris.tools.report.memory_profile import MemoryProfile, StageSpan, TiledGroup
from tigris.tools.report.text import size

FORMATS = (".svg", ".png", ".pdf")
TILED_COLOR, CHAIN_COLOR, OVERFLOW_COLOR = "tab:orange", "tab:green", "tab:red"
MAX_STAGE_LABELS = 40  # beyond this, label every n-th stage so the labels stay readable
MAX_STEP_TICKS = 40  # up to this many steps, the x axis names each op


class MatplotlibMissing(ImportError):
    """The `plot` extra is not installed."""


class PlotPathError(ValueError):
    """A figure path whose type matplotlib will not write; the message is the error line."""


def require_matplotlib() -> None:
    try:
        import matplotlib
    except ImportError:
        raise MatplotlibMissing("matplotlib is not installed") from None


def check_path(path: str, flag: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise PlotPathError(f"{flag}: cannot write '{path}': use a {', '.join(FORMATS[:-1])} or {FORMATS[-1]} file name")


def plot_memory(profile: MemoryProfile, path: str) -> None:
    """Live bytes per step, unscheduled and planned, with the budget, stages and spills."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    fig = Figure(figsize=(11, 5.5), layout="constrained")
    ax = fig.subplots()
    steps = range(len(profile.steps))
    kib = 1024.0
    ax.step(steps, [v / kib for v in profile.unscheduled], where="mid", color="0.55", linestyle="--",
            label=f"unscheduled (whole model at once): peak {size(profile.unscheduled_peak)}")
    ax.step(steps, [v / kib for v in profile.planned], where="mid", color="tab:blue",
            label=f"planned: peak {size(profile.scheduled_peak)}")
    ax.axhline(profile.budget / kib, color=OVERFLOW_COLOR, linestyle=":", label=f"budget {size(profile.budget)}")
    for stage in profile.stages:
        _shade_stage(ax, stage, profile.budget)
    _label_stages(ax, profile.stages)
    if profile.spills:
        ax.scatter([s.step + 0.5 for s in profile.spills], [profile.planned[s.step] / kib for s in profile.spills],
                   marker="v", color=OVERFLOW_COLOR, zorder=3, label=f"spill to slow memory ({len(profile.spills)})")
    strategies = {s.strategy for s in profile.stages}
    extra = [Patch(color=TILED_COLOR, alpha=0.2, label="tiled stage")] if Strategy.TILED in strategies else []
    extra += [Patch(color=CHAIN_COLOR, alpha=0.2, label="chained stages")] if Strategy.CHAIN in strategies else []
    if any(s.scheduled_peak > profile.budget for s in profile.stages):
        extra.append(Patch(facecolor="none", edgecolor=OVERFLOW_COLOR, hatch="//", label="over budget"))
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=[*handles, *extra], loc="best", fontsize=8)
    if profile.unscheduled_peak > 8 * max(profile.budget, profile.scheduled_peak, 1):
        ax.set_yscale("log")
    ax.set_xlim(-0.5, len(profile.steps) - 0.5)
    ax.set_ylabel("live memory (KiB)")
    ax.set_xlabel("execution step")
    if len(profile.steps) <= MAX_STEP_TICKS:
        ax.set_xticks(list(steps), profile.steps, rotation=90, fontsize=6)
    ax.set_title(f"{profile.model}: live memory per step at a {size(profile.budget)} budget "
                 f"({len(profile.stages)} stages)", fontsize=10, pad=16)
    _save(fig, path)


def _shade_stage(ax: Any, stage: StageSpan, budget: int) -> None:
    left, right = stage.first - 0.5, stage.last + 0.5
    if stage.strategy is not Strategy.NORMAL:
        color = TILED_COLOR if stage.strategy is Strategy.TILED else CHAIN_COLOR
        ax.axvspan(left, right, color=color, alpha=0.2, lw=0)
    if stage.scheduled_peak > budget:
        ax.axvspan(left, right, facecolor="none", edgecolor=OVERFLOW_COLOR, hatch="//", lw=0, alpha=0.5)
    if stage.index > 0:
        ax.axvline(left, color="0.35", linewidth=0.6)


def _label_stages(ax: Any, stages: tuple[StageSpan, ...]) -> None:
    """`S<index>` above each stage (every n-th one when there are many)."""
    every = math.ceil(len(stages) / MAX_STAGE_LABELS)
    for stage in stages[::every]:
        ax.text((stage.first + stage.last) / 2, 1.005, f"S{stage.index}", transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=7, rotation=90 if len(stages) > 12 else 0)


def plot_tiles(profile: MemoryProfile, path: str) -> None:
    """Per tiled stage or chain: each tile's output rows and the input rows it reads,
    the rows it reads again (the halo, shared with the previous tile) marked."""
    from matplotlib.figure import Figure

    groups = profile.tiled
    if not groups:
        fig = Figure(figsize=(6, 2))
        fig.text(0.5, 0.5, f"{profile.model}: no tiled or chained stages at a {size(profile.budget)} budget",
                 ha="center", va="center")
        _save(fig, path)
        return
    cols = min(3, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig = Figure(figsize=(5.2 * cols, 3.8 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).flatten()
    for ax, group in zip(axes, groups):
        _draw_bands(ax, group)
    for ax in axes[len(groups):]:
        ax.set_visible(False)
    fig.suptitle(f"{profile.model}: tile bands at a {size(profile.budget)} budget", fontsize=10)
    _save(fig, path)


def _draw_bands(ax: Any, group: TiledGroup) -> None:
    from matplotlib.ticker import MaxNLocator

    width = 0.38
    previous_end = None
    for k, band in enumerate(group.bands):
        (in_start, in_end), (out_start, out_end) = band.in_rows, band.out_rows
        ax.bar(k - width / 2, in_end - in_start, width, bottom=in_start, color="tab:blue", alpha=0.35,
               label=f"input rows ({group.input_name}, {group.input_height})" if k == 0 else None)
        if previous_end is not None and in_start < previous_end:
            ax.bar(k - width / 2, min(previous_end, in_end) - in_start, width, bottom=in_start, color="tab:purple",
                   hatch="//", alpha=0.7, label="halo: rows read again" if "halo" not in _labels(ax) else None)
        previous_end = in_end
        ax.bar(k + width / 2, out_end - out_start, width, bottom=out_start, color="tab:green", alpha=0.7,
               label=f"output rows ({group.output_name}, {group.output_height})" if k == 0 else None)
    ax.set_ylim(max(group.input_height, group.output_height), 0)  # row 0 at the top, as in an image
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("tile")
    ax.set_ylabel("rows")
    ax.set_title(f"{group.label}: tile_h {group.tile_h}, halo {group.halo}, {len(group.bands)} tiles", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=2, frameon=False)


def _labels(ax: Any) -> str:
    return " ".join(ax.get_legend_handles_labels()[1])


def _save(fig: Any, path: str) -> None:
    """Deterministic files: no timestamp, fixed SVG ids, text kept as text."""
    import matplotlib

    suffix = Path(path).suffix.lower()
    metadata = {"Date": None} if suffix == ".svg" else {"CreationDate": None} if suffix == ".pdf" else {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tigris"}):
        try:
            fig.savefig(path, metadata=metadata)
        except OSError as e:
            raise PlotPathError(f"cannot write '{path}': {e.strerror or e}") from None
