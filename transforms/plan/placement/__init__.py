"""Static offsets for buffers with known lifetimes: an arena at (or near) the lower bound.

The problem (dynamic storage allocation): buffers live over half-open time intervals
[start, end) and need `size` bytes; give each an offset so that no two buffers live at
the same time overlap in space, and make the arena (the highest offset + size) small.
No placement can beat the lower bound LB, the largest sum of sizes live at one time;
fragmentation is what separates a placement from it. With an alignment every size is
rounded up to a multiple of it first (as the planner's memory timeline counts tensors),
so every offset below is a sum of aligned sizes and therefore aligned.

How `place` searches, cheapest first; it stops as soon as the arena equals LB:

1. Greedy placements (the ONNC paper in spec/, XLA's heap simulator, TFLM's planner):
   buffers in some order, each at a gap among the already placed buffers that overlap it
   in time: best fit (the smallest gap that holds it) or first fit (the lowest offset,
   ONNC's "look at the lower boundary"). Orders: by size, lifetime length, area, conflict
   weight (the bytes it overlaps), start time, and the busiest time slot it lives in. The
   instance splits into independent partitions (no buffer alive across a cut), so each
   partition keeps the best greedy result for its own part.
2. An exact search (the idea of MiniMalloc, Moffitt, ASPLOS 2023) for a partition whose
   greedy top exceeds a capacity C: a depth-first search that places buffers in
   non-decreasing offset order. Then an unplaced buffer can only go at its minimum
   offset, the top of the highest placed buffer it overlaps ("canonical" placements),
   and a node only chooses which buffer comes next. Pruning:
   - symmetry: the sequence of (offset, preorder rank) must increase, so each canonical
     placement is reached once;
   - dominance: a buffer whose offset is at or above the lowest top any unplaced buffer
     could reach would leave a gap that buffer could fill: never needed;
   - capacity inference: time is cut into sections (between consecutive events); the
     unplaced buffers of a section stack above max(its floor, the current offset), so
     floor + their sizes must fit in C; a section's floor is also at least the lowest
     minimum offset among its unplaced buffers;
   - decomposition: once no unplaced buffer lives across a section boundary, the two
     sides are independent problems, solved one after the other (a failure on one side
     never re-enumerates the other).
   The search is complete: exhausting it proves C infeasible. It runs once per preorder
   (the rank that orders buffers of equal offset: MiniMalloc's idea of trying several),
   as resumable generators taking turns a slice of nodes at a time, so a preorder that
   gets stuck cannot starve the others and no work is repeated. C = LB first (with most
   of the time), then bisection between the largest capacity known (or, after a
   timeout, assumed) infeasible and the best arena found.

Everything is deterministic for the same input (fixed iteration order; turns counted in
nodes, not seconds); only the wall-clock `time_limit` may stop the search early, and then
the best placement found so far is returned.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence

from tigris.transforms.plan.memory import align_up
from tigris.transforms.plan.placement.greedy import greedy, orders
from tigris.transforms.plan.placement.problem import Buffer, Placement, Problem, check, lower_bound, validate
from tigris.transforms.plan.placement.search import Stop, solve

__all__ = ["Buffer", "Placement", "Problem", "check", "greedy", "lower_bound", "place", "validate"]


def _as_placement(
    buffers: Sequence[Buffer], offsets: list[int], sized: list[int], lb: int, method: str, optimal: bool
) -> Placement:
    result: dict[Hashable, int] = {}
    k = 0
    for b, s in zip(buffers, sized):
        if s:
            result[b.id] = offsets[k]
            k += 1
        else:
            result[b.id] = 0
    arena = max((result[b.id] + s for b, s in zip(buffers, sized)), default=0)
    return Placement(result, arena, lb, method, optimal or arena == lb)


def place(buffers: Sequence[Buffer], align: int = 1, time_limit: float = 2.0) -> Placement:
    """Offsets for `buffers` (aligned to `align`), the arena as small as the search finds
    within `time_limit` seconds; see the module docstring. ValueError on a bad buffer."""
    started = time.monotonic()
    deadline = started + time_limit
    validate(buffers, align)
    sized = [align_up(b.size, align) for b in buffers]
    lb = lower_bound(buffers, align)
    kept = [k for k, s in enumerate(sized) if s]
    p = Problem.of([buffers[k].start for k in kept], [buffers[k].end for k in kept], [sized[k] for k in kept])
    named_orders, preorders = orders(p)
    runs = [
        (f"{'best' if best else 'first'}-fit by {name}", greedy(p, order, best))
        for name, order in named_orders
        for best in (True, False)
    ]
    offsets = [0] * len(kept)
    methods = []
    for part in p.partitions:  # each partition keeps its best greedy run (the first of equals)
        name, chosen = min(runs, key=lambda run: p.top(run[1], part))
        for i in part:
            offsets[i] = chosen[i]
        methods.append((p.top(chosen, part), name))
    arena = max((top for top, _ in methods), default=0)
    method = max(methods, default=(0, "empty"))[1]
    infeasible = lb - 1  # the largest capacity known (or, after a timeout, assumed) too small
    proved = True
    while arena > infeasible + 1 and time.monotonic() < deadline:
        capacity = lb if infeasible < lb else (infeasible + 1 + arena) // 2
        # The bound first, with most of the time (it is where optimal placements usually are);
        # each bisection step then takes half of what is left, the last possible one all of it.
        left = deadline - time.monotonic()
        share = time.monotonic() + (
            left if capacity == arena - 1 else left * (0.85 if capacity == lb else 0.5)
        )
        trial = list(offsets)
        try:
            for part in p.partitions:
                if p.top(trial, part) > capacity:
                    found = solve(p, part, capacity, preorders, share)
                    if found is None:
                        break
                    for i, off in found.items():
                        trial[i] = off
            else:
                offsets, arena, method = trial, p.top(trial, range(len(kept))), "search"
                continue
            infeasible = capacity
        except Stop:
            infeasible, proved = capacity, False
    return _as_placement(buffers, offsets, sized, lb, method, proved and arena == infeasible + 1)
