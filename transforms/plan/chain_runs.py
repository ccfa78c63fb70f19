"""Chains through stages that already fit: the cheapest grouping of each run of linked stages.

`assign_strategies` chains consecutive over-budget stages (spec/tiling.md). A stage that fits
untiled still spills its output to slow memory for the next stage to load back; when the two
are linked (`tiling.chain_links`: the one output feeds only the next stage, a feature map) a
chain runs both band by band and the tensor between them never leaves SRAM. That trades slow
traffic for halo recompute (each band of the later stage recomputes the rows its window
overlaps), so it is a choice per run, not a rule.

For every maximal run of linked stages the grouping is chosen by dynamic programming over the
run: a group is one stage with the plan `assign_strategies` gives it on its own, or a chain of
two or more consecutive stages whose shared tile plan fits the budget. The objective is the
slow traffic (`cuts.group_traffic`, the rule `measure` counts), then the recompute, then the
number of groups, then the shortest last group (chains as early as they pay); chains whose
recompute would exceed the caller's allowance are not used.
A run has at most `len(run)**2 / 2` chain candidates, each planned once (`plan_chain`'s binary
search, memoized on the graph), and runs are capped at `MAX_CHAIN` stages per chain.
"""

from __future__ import annotations

from collections.abc import Callable

from tigris.dialects.tgr.attributes import Strategy
from tigris.transforms.plan.cuts import group_traffic
from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.temporal import Stage
from tigris.transforms.plan.tiling import TilePlan, chain_links, recompute_macs

MAX_CHAIN = 24
"""Longest chain tried: a chain's bands shrink as it grows, so longer ones rarely fit."""


def linked_runs(graph: PlanGraph, stages: list[Stage]) -> list[tuple[int, int]]:
    """Maximal [i, j] (i < j) of consecutive stages each linked to the next."""
    runs, i = [], 0
    while i < len(stages):
        j = i
        while j + 1 < len(stages) and chain_links(graph, stages[j], stages[j + 1]):
            j += 1
        if j > i:
            runs.append((i, j))
        i = j + 1
    return runs


Single = tuple[Strategy, TilePlan | None]
Cost = tuple[int, int, int]  # (slow bytes, halo MACs, groups)


def best_grouping(
    graph: PlanGraph,
    run: list[Stage],
    single: Callable[[int], Single],
    chain: Callable[[int, int], TilePlan | None],
    allowance: int,
    current: list[tuple[int, int]],
) -> list[tuple[int, int]]:
    """The groups [a, b] (indices into `run`) of least cost; `single(k)` is stage k's own plan,
    `chain(a, b)` the fitting tile plan of stages a..b or None. `current` is the grouping the
    run has now (its chains fit, so it is always a candidate): `allowance` bounds the halo MACs
    the new grouping may recompute beyond it, at every prefix, so the result never moves more
    bytes than `current` and recomputes at most `allowance` more."""
    n = len(run)
    costs: dict[tuple[int, int], tuple[int, int] | None] = {}

    def group(a: int, b: int) -> tuple[int, int] | None:
        """(slow bytes, halo MACs) of run[a..b] as one group; None: no chain of them fits."""
        if (a, b) not in costs:
            tile = single(a)[1] if a == b else chain(a, b)
            if a != b and tile is None:
                costs[a, b] = None
            else:
                halo = recompute_macs(graph, run[a : b + 1], tile) if tile is not None else 0
                costs[a, b] = (sum(group_traffic(graph, run[a : b + 1], tile)), halo)
        return costs[a, b]

    base = [0] * (n + 1)  # halo MACs of the current groups that end before index k
    for a, b in current:
        base[b + 1] = group(a, b)[1]  # type: ignore[index]
    for k in range(n):
        base[k + 1] += base[k]
    best: list[tuple[Cost, list[tuple[int, int]]]] = [((0, 0, 0), [])]
    for end in range(n):
        candidates = []
        for start in range(max(0, end - MAX_CHAIN + 1), end + 1):
            found = group(start, end)
            if found is None:
                continue
            (moved, halo), (prev, groups) = found, best[start]
            cost = (prev[0] + moved, prev[1] + halo, prev[2] + 1)
            if start == end or cost[1] - base[end + 1] <= allowance:
                candidates.append((cost, [*groups, (start, end)]))
        best.append(min(candidates, key=lambda c: (c[0], -c[1][-1][0])))  # a tie: the shortest last group
    # the per-prefix allowance can prune the path through `current`: never return worse than it
    kept: Cost = (sum(group(a, b)[0] for a, b in current), base[n], len(current))  # type: ignore[index]
    cost, groups = best[n]
    return groups if cost <= kept else current
