"""Stage cuts by shortest path (issue G3, item 2): the partition that moves the fewest bytes
between the fast arena and slow memory.

Cut points between steps are nodes 0..n (node k: before step k). An edge (i, j) is the stage of
steps i..j-1; it exists when some plan the planner knows runs that stage within the budget
(normal, output-row or 2-D tiles, reduction tiles: `fitting_tile`), or when it is one step that
no plan fits (it overflows, as the greedy allows too). Its weight is what `measure` counts for
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
  - a structural or dense op, or a second spatial op, stays in every longer stage, and output-row
    and 2-D tiles need neither (`tiling.is_tileable`); reduction tiles need a single step.
Whether a tiling fits is *not* monotone (the stage's outputs, hence its band heights, change with
its end; a row map can shrink bands), so stages that can still be tiled are scanned on, up to
`MAX_SPAN` steps.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from tigris.dialects.tgr.traits import TileKind
from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.memory import align_up, lifetimes
from tigris.transforms.plan.temporal import Stage, make_stage
from tigris.transforms.plan.tiling import TilePlan, plan_feature_blocks, plan_reduction, plan_spatial, tile_reads

MAX_SPAN = 64
"""The longest stage (in steps) the search tries, beside the greedy's own stages: a stage that
fits untiled is cheap to extend, but every over-budget one whose ops can be tiled asks the
tiling search, and a stage longer than this almost never fits a small arena anyway."""


def fitting_tile(graph: PlanGraph, stage: Stage, budget: int, align: int) -> TilePlan | None:
    """The tile plan an over-budget stage runs with: output-row bands (or 2-D tiles), else
    reduction tiles, else output-feature blocks of a dense op, when their peak fits the budget; None when none fits (the stage then runs
    normally and overflows). Remembered on the graph: the cut search, and both partitions the
    planner compares, ask for the same stages."""
    key = ("fitting_tile", stage.first, stage.last, budget, align)
    if key not in graph.memo:
        tile = (plan_spatial(graph, stage, budget, align) or plan_reduction(graph, stage, budget, align)
                or plan_feature_blocks(graph, stage, budget, align))
        graph.memo[key] = tile if tile is not None and tile.peak <= budget else None
    return graph.memo[key]  # type: ignore[return-value]


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
    spatial: int = 0  # spatial ops so far (output-row and 2-D tiles take one: `tiling.is_tileable`)
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
    groups: Sequence[tuple[Sequence[Stage], int]] = (),
) -> list[Stage]:  # fmt: skip
    """The partition of least slow-memory traffic (module docstring). `greedy`: the greedy's
    stages, whose spans are scanned to their end whatever `MAX_SPAN`; `groups`: runs of stages
    with their traffic as one group (the greedy's chains), extra edges whose stages are kept."""
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
            cost = _edge_cost(graph, scan, budget, align)
            if cost is not None:
                relax(i, scan.last + 1, cost, [(i, scan.last)])
            elif scan.steps > 1 and (scan.untileable or scan.spatial > 1) and scan.peak > budget:
                break  # nothing longer from i fits (module docstring)
        for j, cost, stages in extra[i]:
            relax(i, j, cost, stages)
    bounds: list[tuple[int, int]] = []
    j = n
    while j > 0:
        bounds[:0] = back[j]
        j = back[j][0][0]
    return [make_stage(graph, k, a, b, align) for k, (a, b) in enumerate(bounds)]


def _edge_cost(graph: PlanGraph, scan: StageScan, budget: int, align: int) -> int | None:
    """Slow-memory bytes of the scanned stage as an edge, None if it is not one: untiled if it
    fits, else tiled if a tiling fits, else only a lone step (which overflows)."""
    if scan.peak <= budget:
        return scan.loaded + scan.spilled
    if scan.spatial <= 1 and not scan.untileable or scan.steps == 1:
        stage = make_stage(graph, 0, scan.first, scan.last, align)
        tile = fitting_tile(graph, stage, budget, align)
        if tile is not None:
            return sum(group_traffic(graph, [stage], tile))
    return scan.loaded + scan.spilled if scan.steps == 1 else None
