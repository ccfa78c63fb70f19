"""Stage cuts by shortest path (issue G3, item 2): the partition that moves the fewest bytes
between the fast arena and slow memory.

Cut points between steps are nodes 0..n (node k: before step k). An edge (i, j) is the stage of
steps i..j-1; it exists when some plan the planner knows runs that stage within the budget
(normal, output-row or 2-D tiles, reduction tiles, feature blocks; output-row tiles through
several spatial ops, a fused stage, when it recomputes little: `fitting_tile`), or when it is one
step that no plan fits (it overflows, as the greedy allows too). Its weight is what `measure` counts for
that stage on its own (`group_traffic`): the bytes of every tensor it loads (a tiled stage's
input bands, halo overlaps included) plus every tensor it spills (outputs read later, skip
tensors crossing the cut, model outputs). A stage's traffic depends only on its own steps, so
the cheapest path from node 0 to node n is the cheapest partition; ties go to fewer stages, then
to the path found first (a later stage starting as early as possible), so the result is
deterministic.

Chains (chain tiling of consecutive linked stages) are assigned after partitioning
(`planner.assign_strategies`), so a stage's cost here is its cost alone. The greedy's stages are
always edges of this graph (each fits untiled or is one step, and every scan from a greedy cut
reaches that stage's end whatever `MAX_SPAN`), and so are the greedy plan's chains, each run of
chained stages one extra edge weighted by its measured traffic (`groups`): the greedy's plan is
a path of the graph. That is no guarantee on the final plan (chains are re-derived on the
partition found, and may join or split differently), so `planner.plan_memory` measures both
plans and keeps the cheaper: the plan never moves more bytes than the greedy's.

Bounding the work. The scan from node i extends the stage one step at a time and keeps its
untiled peak incrementally (`StageScan`), so a stage that fits untiled costs O(its new tensors). The
expensive question, whether a tiling fits, is asked only of over-budget stages whose ops can
still be tiled, and its answer is remembered on the graph per (stage, budget, align). The scan
stops at the first over-budget stage of several steps whose ops can never be tiled, because
nothing longer from i can fit either:
  - the untiled peak never falls as the stage grows: over [i, j] a tensor born inside occupies
    the arena from its birth to min(j, its death), one loaded from earlier from i to its last
    reader in [i, j]; extending j never shortens either interval, so every step's live bytes
    (hence the peak) can only grow;
  - a structural or dense op stays in every longer stage, and output-row and 2-D tiles need
    none (`tiling.is_tileable`); reduction tiles and feature blocks need a single step.
Whether a tiling fits is *not* monotone in general (the stage's outputs, hence its band heights,
change with its end; a row map can shrink bands), so stages that can still be tiled are scanned
on, up to `MAX_SPAN` steps, with one more bound, for fused stages (several spatial ops, which run
in full-width rows only): once one-row bands of a fused stage do not fit, the scan stops. That is
a bound on the search, not a proof: extending a stage keeps every tensor's rows at one or more
and the windows after it only widen its band, so one-row bands rarely fit again, and without it
every longer span would ask the tile search (the 224x224 MobileNetV2 compiled 15x slower).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from tigris.dialects.tgr.traits import TileKind
from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.memory import align_up, lifetimes
from tigris.transforms.plan.temporal import Stage, make_stage
from tigris.transforms.plan.tiling import (
    TilePlan, is_tileable, one_row_fits, plan_cached, plan_feature_blocks, plan_reduction, plan_spatial, recompute_macs,
    spatial_ops, tile_reads,
)

MAX_SPAN = 64
"""The longest stage (in steps) the search tries, beside the greedy's own stages: a stage that
fits untiled is cheap to extend, but every over-budget one whose ops can be tiled asks the
tiling search, and a stage longer than this almost never fits a small arena anyway."""


MAX_RECOMPUTE = 0.10
"""Halo recompute the planner may buy traffic with (`--max-recompute`, a share of MACs): a
partition other than the greedy's may add this share of the model's MACs to the greedy plan's,
and a fused stage (several spatial ops, `fitting_tile`) may recompute this share of its own."""


def fitting_tile(
    graph: PlanGraph, stage: Stage, budget: int, align: int, max_recompute: float = MAX_RECOMPUTE
) -> TilePlan | None:
    """The tile plan an over-budget stage runs with: output-row bands (or 2-D tiles), else
    reduction tiles, else output-feature blocks of a dense op, when their peak fits the budget;
    None when none fits (the stage then runs normally and overflows). A fused stage's bands
    recompute the rows where its windows overlap, in every op before its last window: its tiles
    are taken only if that is at most `max_recompute` of the stage's MACs, so fused stages add
    at most that share of the model's MACs in all. Remembered on the graph: the cut search, and
    both partitions the planner compares, ask for the same stages."""
    key = ("fitting_tile", stage.first, stage.last, budget, align, max_recompute)
    if key not in graph.memo:
        if spatial_ops(graph, [stage]) > 1:
            tile = _fused_tile(graph, stage, budget, align, max_recompute)
        else:
            tile = (plan_spatial(graph, stage, budget, align) or plan_reduction(graph, stage, budget, align)
                    or plan_feature_blocks(graph, stage, budget, align))
        graph.memo[key] = tile if tile is not None and tile.peak <= budget else None
    return graph.memo[key]  # type: ignore[return-value]


def _fused_tile(graph: PlanGraph, stage: Stage, budget: int, align: int, max_recompute: float) -> TilePlan | None:
    """A fused stage's tiles: with row caches if they fit (every row computed and loaded once:
    the least traffic at any tile height), else bands that recompute their overlaps, if that is
    at most `max_recompute` of the stage's MACs (a bound of 0: row caches only)."""
    if not is_tileable(graph, stage):
        return None
    cached = plan_cached(graph, [stage], budget, align)
    if cached is not None or max_recompute <= 0:  # no recompute allowed: row caches or nothing
        return cached
    tile = plan_spatial(graph, stage, budget, align)
    if tile is None or tile.peak > budget:
        return None
    macs = sum(s.macs for s in graph.steps[stage.first : stage.last + 1])
    return tile if recompute_macs(graph, [stage], tile) <= max_recompute * macs else None


def group_traffic(graph: PlanGraph, stages: Sequence[Stage], tile: TilePlan | None) -> tuple[int, int]:
    """(bytes written, bytes read) of slow memory for one group the runtime runs (a stage, or a
    chain sharing `tile`): the last stage's outputs are spilled; the first's inputs are loaded
    whole once (once per channel block for reduction tiles and output-feature blocks), or band by
    band with the halos."""
    written = sum(graph.tensors[t].nbytes for t in stages[-1].outputs)
    if tile is None or tile.reduces or tile.feature_blocks:
        blocks = tile.num_tiles_c if tile is not None else 1
        return written, sum(graph.tensors[t].nbytes for t in stages[0].inputs) * blocks
    return written, tile_reads(graph, list(stages), tile)


@dataclass
class StageScan:
    """Stage [first, last] grown one step at a time: its untiled peak (the `memory.timeline` of
    `make_stage`, kept incrementally) and the bytes it loads and spills untiled."""

    graph: PlanGraph
    first: int
    sizes: list[int]  # aligned bytes per tensor
    deaths: list[int]  # `memory.lifetimes` death per tensor
    last: int = field(init=False)
    peak: int = 0
    loaded: int = 0  # bytes of tensors from earlier stages that the stage reads
    spilled: int = 0  # bytes of tensors it produces that a later step or the host needs
    spatial: int = 0  # spatial ops so far (more than one: a fused stage, cut in full-width rows only)
    untileable: bool = False  # some op is structural or dense (`TileKind.tileable`): never tiled
    live: list[int] = field(default_factory=list)  # bytes live at each step first..last
    _alive: int = 0  # bytes of tensors born inside and live at `last`
    _dying: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    _read_until: dict[int, int] = field(default_factory=dict)  # loaded tensor -> last reader so far

    def __post_init__(self) -> None:
        self.last = self.first - 1  # empty

    def extend(self) -> None:
        """Add step last + 1."""
        g, s = self.graph, self.last + 1
        step = g.steps[s]
        self.last = s
        self.spatial += step.kind is TileKind.SPATIAL
        self.untileable = self.untileable or not step.kind.tileable
        self._alive -= sum(self.sizes[t] for t in self._dying.pop(s - 1, ()))
        for t in step.outputs:
            self._alive += self.sizes[t]
            self._dying[self.deaths[t]].append(t)
            tensor = g.tensors[t]
            if tensor.is_output or self.deaths[t] > s:
                self.spilled += tensor.nbytes
        for t in step.inputs:  # tensors born inside and read here for the last time leave the spill set
            tensor = g.tensors[t]
            if tensor.producer >= self.first and not tensor.is_output and self.deaths[t] == s and tensor.producer < s:
                self.spilled -= tensor.nbytes
        self.live.append(self._alive)
        for t in step.inputs:
            if g.tensors[t].producer >= self.first:
                continue
            since = self._read_until.get(t)
            if since is None:
                self.loaded += g.tensors[t].nbytes
                since = self.first - 1
            self._read_until[t] = s
            for k in range(since + 1 - self.first, s + 1 - self.first):
                self.live[k] += self.sizes[t]
                self.peak = max(self.peak, self.live[k])
        self.peak = max(self.peak, self.live[-1])

    @property
    def steps(self) -> int:
        return self.last - self.first + 1


def shortest_path_stages(
    graph: PlanGraph, budget: int, align: int, greedy: Sequence[Stage] = (),
    groups: Sequence[tuple[Sequence[Stage], int]] = (), max_recompute: float = MAX_RECOMPUTE, fused: bool = True,
) -> list[Stage]:  # fmt: skip
    """The partition of least slow-memory traffic (module docstring). `greedy`: the greedy's
    stages, whose spans are scanned to their end whatever `MAX_SPAN`; `groups`: runs of stages
    with their traffic as one group (the greedy's chains), extra edges whose stages are kept.
    `fused=False`: no tiled stage holds more than one spatial op (the search before fused stages,
    a candidate `planner.plan_memory` weighs too)."""
    n = len(graph.steps)
    sizes = [align_up(t.nbytes, align) for t in graph.tensors]
    deaths = [span.death for span in lifetimes(graph)]
    greedy_end = {s.first: s.last for s in greedy}
    extra: dict[int, list[tuple[int, int, list[tuple[int, int]]]]] = defaultdict(list)
    for stages, cost in groups:
        extra[stages[0].first].append((stages[-1].last + 1, cost, [(s.first, s.last) for s in stages]))
    best: list[tuple[int, int] | None] = [None] * (n + 1)
    best[0] = (0, 0)
    back: list[list[tuple[int, int]]] = [[] for _ in range(n + 1)]  # the stages of the last edge

    def relax(i: int, j: int, cost: int, stages: list[tuple[int, int]]) -> None:
        reached = best[i]
        assert reached is not None  # every one-step stage is an edge
        candidate = (reached[0] + cost, reached[1] + len(stages))
        old = best[j]
        if old is None or candidate < old:
            best[j], back[j] = candidate, stages

    for i in range(n):
        scan = StageScan(graph, i, sizes, deaths)
        while scan.last + 1 < n and (scan.steps < MAX_SPAN or scan.last < greedy_end.get(i, -1)):
            scan.extend()
            cost, longer = _edge_cost(graph, scan, budget, align, max_recompute, fused)
            if cost is not None:
                relax(i, scan.last + 1, cost, [(i, scan.last)])
            elif not longer:
                break  # nothing longer from i fits (module docstring)
        for j, cost, stages in extra[i]:
            relax(i, j, cost, stages)
    bounds: list[tuple[int, int]] = []
    j = n
    while j > 0:
        bounds[:0] = back[j]
        j = back[j][0][0]
    return [make_stage(graph, k, a, b, align) for k, (a, b) in enumerate(bounds)]


def _edge_cost(
    graph: PlanGraph, scan: StageScan, budget: int, align: int, max_recompute: float, fused: bool
) -> tuple[int | None, bool]:
    """Slow-memory bytes of the scanned stage as an edge, None if it is not one: untiled if it
    fits, else tiled if a tiling fits (`fused`: also with several spatial ops), else only a lone
    step (which overflows); and whether a longer stage from the same start may still be one
    (module docstring)."""
    if scan.peak <= budget:
        return scan.loaded + scan.spilled, True
    if (scan.untileable or not fused and scan.spatial > 1) and scan.steps > 1:
        return None, False
    stage = make_stage(graph, 0, scan.first, scan.last, align)
    if not scan.untileable or scan.steps == 1:
        tile = fitting_tile(graph, stage, budget, align, max_recompute)
        if tile is not None:
            return sum(group_traffic(graph, [stage], tile)), True
    if scan.steps == 1:
        return scan.loaded + scan.spilled, True
    fused = scan.spatial > 1 and is_tileable(graph, stage)
    return None, not (fused and not one_row_fits(graph, stage, budget, align)
                      and plan_cached(graph, [stage], budget, align) is None)
