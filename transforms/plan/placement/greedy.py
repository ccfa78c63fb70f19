"""Greedy placements (best fit, first fit) and the orders they and the search try."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from tigris.transforms.plan.placement.problem import Problem, section_totals


def greedy(p: Problem, order: Sequence[int], best_fit: bool) -> list[int]:
    """Place `order` one by one into the gaps among the placed buffers it overlaps in time:
    best fit takes the smallest gap that holds it, first fit the lowest; none fits: on top."""
    offsets = [-1] * len(p.sizes)
    for i in order:
        size = p.sizes[i]
        cursor, chosen, chosen_gap = 0, -1, 0
        for lo, hi in sorted((offsets[j], offsets[j] + p.sizes[j]) for j in p.overlaps[i] if offsets[j] >= 0):
            gap = lo - cursor
            if gap >= size and (chosen < 0 or gap < chosen_gap):
                chosen, chosen_gap = cursor, gap
                if not best_fit:
                    break
            cursor = max(cursor, hi)
        offsets[i] = chosen if chosen >= 0 else cursor
    return offsets


def orders(p: Problem) -> tuple[list[tuple[str, list[int]]], list[list[int]]]:
    """Named greedy orders, and the search's preorders; every key ends with the index, so
    ties break the same way. Search preorders (MiniMalloc's letters, all descending): first
    T (the bytes live in the busiest section the buffer spans), then L (lifetime length),
    then Z (size), which solved both MiniMalloc instances at the bound within a few
    thousand nodes where its own default (T, W = sections spanned, A = area) needs more;
    the second preorder is that default, a different path when the first one gets stuck."""
    n = len(p.sizes)
    length = [p.ends[i] - p.starts[i] for i in range(n)]
    conflict = [p.sizes[i] + sum(p.sizes[j] for j in p.overlaps[i]) for i in range(n)]
    busiest, width = [0] * n, [0] * n
    for part in p.partitions:
        times, totals = section_totals(p, part)
        for i in part:
            lo, hi = bisect.bisect_left(times, p.starts[i]), bisect.bisect_left(times, p.ends[i])
            busiest[i], width[i] = int(totals[lo:hi].max()), hi - lo
    keys: dict[str, Callable[[int], tuple[int, ...]]] = {
        "size": lambda i: (-p.sizes[i], -length[i], i),
        "lifetime": lambda i: (-length[i], -p.sizes[i], i),
        "area": lambda i: (-p.sizes[i] * length[i], i),
        "conflicts": lambda i: (-conflict[i], -p.sizes[i], i),
        "start": lambda i: (p.starts[i], -p.sizes[i], i),
        "busiest slot": lambda i: (-busiest[i], -p.sizes[i] * length[i], i),
    }
    preorders = [
        sorted(range(n), key=lambda i: (-busiest[i], -length[i], -p.sizes[i], i)),
        sorted(range(n), key=lambda i: (-busiest[i], -width[i], -p.sizes[i] * length[i], i)),
    ]
    return [(name, sorted(range(n), key=key)) for name, key in keys.items()], preorders
