"""Buffers, placements, the lower bound, the independent overlap check, and the indexed form
(`Problem`) the greedy placements and the search work on."""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from tigris.transforms.plan.memory import align_up


@dataclass(frozen=True)
class Buffer:
    """`size` bytes live over the half-open step interval [start, end)."""

    id: Hashable
    start: int
    end: int
    size: int


@dataclass(frozen=True)
class Placement:
    """Where every buffer goes (by id), the arena that needs, and how good that is."""

    offsets: dict[Hashable, int]
    arena: int
    lower_bound: int
    method: str  # which stage found the arena: "best-fit by size", "search", ...
    optimal: bool  # arena == lower bound, or every smaller capacity proved infeasible

    @property
    def ratio(self) -> float:
        return self.arena / self.lower_bound if self.lower_bound else 1.0


def validate(buffers: Sequence[Buffer], align: int = 1) -> None:
    """ValueError naming the first buffer (by its id) that no placement could hold."""
    if align < 1:
        raise ValueError(f"align must be >= 1, got {align}")
    seen: set[Hashable] = set()
    for b in buffers:
        if b.size < 0:
            raise ValueError(f"buffer {b.id}: size {b.size} is negative")
        if b.end <= b.start:
            raise ValueError(f"buffer {b.id}: end {b.end} is not after start {b.start}")
        if b.id in seen:
            raise ValueError(f"buffer {b.id} appears twice")
        seen.add(b.id)


def lower_bound(buffers: Sequence[Buffer], align: int = 1) -> int:
    """The largest sum of (aligned) sizes live at one time: an event sweep in which an
    end at time t frees its bytes before a start at t claims them (half-open intervals)."""
    events = sorted(
        [(b.start, 1, align_up(b.size, align)) for b in buffers]
        + [(b.end, 0, -align_up(b.size, align)) for b in buffers]
    )
    live = peak = 0
    for _, _, delta in events:
        live += delta
        peak = max(peak, live)
    return peak


def check(buffers: Sequence[Buffer], offsets: dict[Hashable, int], align: int = 1) -> None:
    """AssertionError if two buffers live at the same time overlap in space or an offset
    is unaligned: the independent check the tests and the bench run on every result."""
    spans = sorted((b.start, b.end, offsets[b.id], offsets[b.id] + b.size, b.id) for b in buffers if b.size)
    for b in buffers:
        assert offsets[b.id] >= 0 and offsets[b.id] % align == 0, f"buffer {b.id}: offset {offsets[b.id]}"
    for i, (s1, e1, lo1, hi1, id1) in enumerate(spans):
        for s2, e2, lo2, hi2, id2 in spans[i + 1 :]:
            if s2 >= e1:
                break
            assert hi1 <= lo2 or hi2 <= lo1, f"buffers {id1} and {id2} overlap in time and space"


@dataclass
class Problem:
    """The buffers as parallel lists (indices in input order), zero-size buffers left out:
    they occupy nothing and sit at offset 0."""

    starts: list[int]
    ends: list[int]
    sizes: list[int]
    overlaps: list[list[int]]  # time-overlapping buffers, ascending index
    partitions: list[list[int]]  # buffers of each independent time range, ascending index

    @staticmethod
    def of(starts: list[int], ends: list[int], sizes: list[int]) -> Problem:
        n = len(sizes)
        by_start = sorted(range(n), key=lambda i: (starts[i], i))
        overlaps: list[list[int]] = [[] for _ in range(n)]
        active: list[int] = []
        partitions: list[list[int]] = []
        reach = None
        for i in by_start:
            active = [j for j in active if ends[j] > starts[i]]
            for j in active:
                overlaps[i].append(j)
                overlaps[j].append(i)
            active.append(i)
            if reach is None or starts[i] >= reach:
                partitions.append([])
                reach = ends[i]
            partitions[-1].append(i)
            reach = max(reach, ends[i])
        return Problem(starts, ends, sizes, [sorted(o) for o in overlaps], [sorted(p) for p in partitions])

    def top(self, offsets: list[int], members: Sequence[int]) -> int:
        return max((offsets[i] + self.sizes[i] for i in members), default=0)


def section_totals(p: Problem, members: Sequence[int]) -> tuple[list[int], np.ndarray]:
    """The event times of `members` and the bytes live in each section between them."""
    times = sorted({t for i in members for t in (p.starts[i], p.ends[i])})
    totals = np.zeros(max(len(times) - 1, 0), dtype=np.int64)
    for i in members:
        totals[bisect.bisect_left(times, p.starts[i]) : bisect.bisect_left(times, p.ends[i])] += p.sizes[i]
    return times, totals
