"""Lifetimes and the memory timeline (spec/pipeline.md sections 3-4).

A tensor occupies its aligned size during every step of [birth, death]: a step's
inputs and outputs coexist, as they must while the kernel runs; a tensor whose last
use was the previous step is freed before the step's outputs are allocated. Model
inputs are born before step 0 (-1); model outputs live to the last step.

Within a stage [first, last] only the tensors the stage touches occupy the arena:
inputs from earlier stages from `first` (reloaded) to their last use in the stage,
tensors the stage produces from their step to their last use, or to `last` when a
later stage or the host needs them (spilled).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tigris.transforms.plan.graph import PlanGraph


def align_up(size: int, align: int) -> int:
    return -(-size // align) * align


@dataclass(frozen=True)
class Lifetime:
    birth: int
    death: int


def lifetimes(graph: PlanGraph) -> list[Lifetime]:
    result: list[Lifetime] = []
    for t in graph.tensors:
        death = max(t.consumers, default=t.producer)
        if t.is_output:
            death = graph.last_step
        result.append(Lifetime(t.producer, max(death, t.producer)))
    return result


def stage_intervals(graph: PlanGraph, first: int, last: int) -> dict[int, tuple[int, int]]:
    """Tensor -> (start, end) steps during which it occupies the arena in stage [first, last]."""
    intervals: dict[int, tuple[int, int]] = {}
    for t in (graph.tensors[i] for i in sorted(graph.touched(first, last))):
        inside = [c for c in t.consumers if first <= c <= last]
        needed_later = t.is_output or any(c > last for c in t.consumers)
        if first <= t.producer <= last:
            end = last if needed_later else max(inside, default=t.producer)
            intervals[t.index] = (t.producer, end)
        elif t.producer < first and inside:
            intervals[t.index] = (first, max(inside))
    return intervals


@dataclass(frozen=True)
class Timeline:
    peak: int
    peak_step: int
    live: tuple[int, ...]  # bytes live at each step of the range


def timeline(
    graph: PlanGraph, align: int, first: int = 0, last: int | None = None, sizes: Mapping[int, int] | None = None
) -> Timeline:
    """Event sweep over [first, last]; `sizes` overrides tensor sizes (tiled bands)."""
    last = graph.last_step if last is None else last
    delta = [0] * (last - first + 2)
    for index, (start, end) in stage_intervals(graph, first, last).items():
        size = align_up(sizes[index] if sizes is not None and index in sizes else graph.tensors[index].nbytes, align)
        delta[start - first] += size
        delta[end - first + 1] -= size
    live: list[int] = []
    running = 0
    for d in delta[:-1]:
        running += d
        live.append(running)
    peak = max(live, default=0)
    return Timeline(peak, first + live.index(peak) if live else first, tuple(live))
