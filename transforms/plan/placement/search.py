"""The exact search over canonical placements (see the package docstring for the idea)."""

from __future__ import annotations

import bisect
import itertools
import sys
import time
from collections.abc import Generator

import numpy as np

from tigris.transforms.plan.placement.problem import Problem, section_totals

_SLICE = 64  # search nodes between two turns
_Steps = Generator[None, None, bool]
_PLACED = 1 << 60  # a minimum offset meaning "placed"; twice it still fits in int64
_Undo = tuple[int, list[tuple[int, int]], int, int, np.ndarray]  # buffer, raised min offsets, floor slice


class Stop(Exception):
    """The search ran out of wall-clock time."""


class Search:
    """Is partition `members` placeable within `capacity`? The canonical-placement search of
    the module docstring, on local indices 0..m-1 (position in `members`); `solution` maps
    the problem's indices to offsets when `run` returns True."""

    def __init__(self, p: Problem, members: list[int], capacity: int, rank: dict[int, int]):
        self.capacity, self.nodes = capacity, 0
        self.members = members
        local = {i: k for k, i in enumerate(members)}
        self.sizes = [p.sizes[i] for i in members]
        self.rank = [rank[i] for i in members]
        self.overlaps = [[local[j] for j in p.overlaps[i]] for i in members]
        times, self.totals = section_totals(p, members)
        self.floor = np.zeros_like(self.totals)
        self.span = [
            (bisect.bisect_left(times, p.starts[i]), bisect.bisect_left(times, p.ends[i])) for i in members
        ]
        # 0 where buffer k lives in section s, else _PLACED: adding the minimum offsets and
        # taking the column minimum gives each section's lowest waiting buffer in one step
        self.outside = np.full((len(members), len(self.totals)), _PLACED, dtype=np.int64)
        for k, (lo, hi) in enumerate(self.span):
            self.outside[k, lo:hi] = 0
        self.cuts = [0] * max(len(times) - 1, 0)  # buffers alive across the boundary after section s
        for lo, hi in self.span:
            for s in range(lo, hi - 1):
                self.cuts[s] += 1
        self.offsets = [-1] * len(members)
        self.min_offset = [0] * len(members)
        self.waiting = np.zeros(len(members), dtype=np.int64)  # min_offset, or _PLACED once placed
        self.solution: dict[int, int] = {}

    def run(self) -> _Steps:
        """The whole search as a generator that pauses every `_SLICE` nodes (so several
        searches can take turns without starting over) and returns whether it succeeded."""
        return self._node(list(range(len(self.members))), 0, len(self.totals), 0, -1)

    def _save(self) -> None:
        self.solution.update((self.members[k], off) for k, off in enumerate(self.offsets) if off >= 0)

    def _node(self, members: list[int], first: int, stop: int, last_offset: int, last_rank: int) -> _Steps:
        """Place the rest of `members` (sections first..stop-1); every state change is undone
        before returning, a complete placement is copied to `solution` at the leaf."""
        self.nodes += 1
        if self.nodes % _SLICE == 0:
            yield
        sizes, offsets, min_offset = self.sizes, self.offsets, self.min_offset
        members = [k for k in members if offsets[k] < 0]
        if not members:
            self._save()
            return True
        # Dominance: a buffer at or above the lowest top an unplaced buffer can reach would
        # leave a gap that buffer fits in. Symmetry: (offset, rank) only grows along a branch.
        lowest_top = min(min_offset[k] + sizes[k] for k in members)
        rank_of = self.rank
        order = sorted(
            (min_offset[k], rank_of[k], k)
            for k in members
            if min_offset[k] < lowest_top and (min_offset[k], rank_of[k]) > (last_offset, last_rank)
        )
        rows = np.array(members)
        floor, totals = self.floor, self.totals
        checked = -1
        for off, rank, k in order:
            if off != checked:
                # Capacity inference. Every later buffer goes at `off` or above, so a section
                # needs max(floor, off) + its unplaced bytes. Placing k at off leaves that sum
                # unchanged in k's own sections (k's minimum offset is at least their floors),
                # so the test depends on `off` alone, and grows with it: fail once, stop.
                if int((np.maximum(floor[first:stop], off) + totals[first:stop]).max()) > self.capacity:
                    break
                checked = off
            top = off + sizes[k]
            if top > self.capacity:
                continue
            fits, undo = self._place(k, off, first, stop, rows)
            done = fits and (yield from self._split(members, first, stop, off, rank, *self.span[k]))
            self._unplace(undo)
            if done:
                return True
        return False

    def _place(self, k: int, off: int, first: int, stop: int, rows: np.ndarray) -> tuple[bool, _Undo]:
        """Put k at off, raise the minimum offsets of the unplaced buffers it overlaps and the
        floors of the sections they live in (a section's floor is at least the lowest minimum
        offset among its unplaced buffers); False if a raised floor overflows the capacity.
        The record says how `_unplace` restores the state."""
        top = off + self.sizes[k]
        offsets, min_offset, waiting, span = self.offsets, self.min_offset, self.waiting, self.span
        offsets[k] = off
        waiting[k] = _PLACED
        raised = [(j, min_offset[j]) for j in self.overlaps[k] if offsets[j] < 0 and min_offset[j] < top]
        lo, hi = span[k]
        a, b = lo, hi
        for j, _ in raised:
            min_offset[j] = top
            waiting[j] = top
            jlo, jhi = span[j]
            a, b = min(a, jlo), max(b, jhi)
        a, b = max(a, first), min(b, stop)
        undo = (k, raised, a, b, self.floor[a:b].copy())
        self.floor[lo:hi] = top
        self.totals[lo:hi] -= self.sizes[k]
        if not raised:
            return True, undo
        # The lowest minimum offset waiting in each section, capped at the capacity (a
        # section with nothing left waiting then passes the test below unchanged).
        lowest = np.minimum((self.outside[rows, a:b] + waiting[rows, None]).min(axis=0), self.capacity)
        floor = np.maximum(self.floor[a:b], lowest, out=self.floor[a:b])
        return not (np.maximum(floor, off) + self.totals[a:b] > self.capacity).any(), undo

    def _unplace(self, undo: _Undo) -> None:
        k, raised, a, b, old_floor = undo
        lo, hi = self.span[k]
        self.totals[lo:hi] += self.sizes[k]
        self.floor[a:b] = old_floor
        for j, old in raised:
            self.min_offset[j] = old
            self.waiting[j] = old
        self.offsets[k] = -1
        self.waiting[k] = self.min_offset[k]

    def _split(
        self, members: list[int], first: int, stop: int, off: int, rank: int, lo: int, hi: int
    ) -> _Steps:
        """Go on after placing a buffer over sections lo..hi-1: if no unplaced buffer now lives
        across some boundary, the two sides are independent problems, each solved on its own
        (and from offset 0 again), so a failure on one side never re-enumerates the other."""
        cuts = [first]
        for s in range(lo, hi - 1):
            self.cuts[s] -= 1
            if self.cuts[s] == 0:
                cuts.append(s + 1)
        try:
            if len(cuts) == 1:
                return (yield from self._node(members, first, stop, off, rank))
            cuts.append(stop)
            for a, b in itertools.pairwise(cuts):
                part = [
                    k for k in members if self.offsets[k] < 0 and self.span[k][0] < b and a < self.span[k][1]
                ]
                if part and not (yield from self._node(part, a, b, 0, -1)):
                    return False
            self._save()
            return True
        finally:
            for s in range(lo, hi - 1):
                self.cuts[s] += 1


def solve(
    p: Problem, members: list[int], capacity: int, preorders: list[list[int]], deadline: float
) -> dict[int, int] | None:
    """Offsets for `members` within `capacity`, None if proved impossible; Stop when the
    deadline passes first. One search per preorder, taking turns a slice of nodes at a time
    (the first preorder, the best on the benchmarks, three slices per turn): the first to
    finish decides, since any complete search proves infeasibility. The turns depend on node
    counts only, so the answer is deterministic."""
    inside = set(members)
    searches = []
    for preorder in preorders:
        search = Search(
            p, members, capacity, {i: r for r, i in enumerate(x for x in preorder if x in inside)}
        )
        searches.append((search, search.run()))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 8 * len(members) + 1000))  # each placed buffer nests two generators
    try:
        while True:
            for n, (search, steps) in enumerate(searches):
                for _ in range(3 if n == 0 else 1):
                    try:
                        next(steps)
                    except StopIteration as result:
                        return search.solution if result.value else None
                if time.monotonic() > deadline:
                    raise Stop
    finally:
        sys.setrecursionlimit(limit)
        for _, steps in searches:
            steps.close()
