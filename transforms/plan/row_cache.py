"""Row caches (issue G3, item 1): output-row tiles that compute and load every row once.

Without caches, consecutive tiles of a stage (or chain) need overlapping rows of every tensor a
window reads (the halo), and each tile recomputes (or reloads from slow memory) the overlap. With
row caches the tensors a window reads keep their band across the tiles, in a slot of the arena
reserved for the whole group: tile k keeps the rows tile k + 1 still needs, and the producer of
such a tensor computes (a loaded input loads) only the rows the slot does not hold yet. Nothing is
recomputed, nothing is read twice; the slots cost their bytes for the whole group.

The rule, the runtime's too (tigris_bands.c, tigris_executor.c), per group of stages run band by
band in full-width rows, tiles in order:

- A tensor is *cached* when an op of the group reads it along H through a window whose effective
  kernel is larger than its stride (a global window included) or through a row map (pad,
  resize): those are the reads whose consecutive bands overlap; or when it has more than one
  use in the group (ops of the group reading it, and the spill of an output of the last stage,
  each counting once): its uses may ask for rows at different paces (an Add reading the rows of
  this tile, a 1x1 conv feeding a cached depthwise input reading the rows after them), so their
  bands overlap too. Any other tensor has one use that reads disjoint rows tile after tile, so
  nothing is computed twice anywhere. Every op writing a cached tensor has one output (else the
  group is not run with caches).
- Each tile propagates its output rows backwards as `bands.band_ranges` does, except that a cached
  tensor's producer computes only its *new* rows: of the rows its band needs, [need_start,
  need_end), those from max(need_start, done) on, `done` being the end of the rows computed (or
  loaded) for it in earlier tiles; the producer's inputs are then asked for what those rows read.
  If a cached tensor needs no new row, its producer does not run in that tile.
- A group input that is cached loads only its new rows too; any other tensor's band is computed
  (loaded) whole, as without caches.
- A cached tensor's slot holds its band, [need_start, need_end): the rows from need_start to the
  previous `done` are kept from the previous tile (need_start never decreases), the new ones are
  written after them. Its capacity is the tensor's largest band over the tiles; the slots, each
  aligned, lie one after the other in the order the tensors are numbered.
"""

from __future__ import annotations

from dataclasses import dataclass

from tigris.transforms.plan.geometry import Axis, Range, extent, range_reader
from tigris.transforms.plan.graph import PlanGraph, PlanStep
from tigris.transforms.plan.memory import align_up, timeline
from tigris.transforms.plan.temporal import Stage, span_key


def reads_overlapping(step: PlanStep) -> bool:
    """Whether `step`'s consecutive output bands read overlapping rows of its inputs: a window
    along H wider than its stride (global windows are), or a row map (pad, resize)."""
    if step.window is not None:
        return step.window.effective_kernel > step.window.stride
    return step.row_map is not None


def group_steps(graph: PlanGraph, stages: list[Stage]) -> list[PlanStep]:
    return [s for st in stages for s in graph.steps[st.first : st.last + 1]]


def cached_tensors(graph: PlanGraph, stages: list[Stage]) -> frozenset[int]:
    """The tensors of the group that get a slot (module docstring), in no particular order.
    Remembered on the graph (every tile of every tile height asks)."""
    key = ("cached_tensors", span_key(stages))
    found = graph.memo.get(key)
    if found is None:
        found = graph.memo[key] = _cached_tensors(graph, stages)
    return found  # type: ignore[return-value]


def _cached_tensors(graph: PlanGraph, stages: list[Stage]) -> frozenset[int]:
    found: set[int] = set()
    uses: dict[int, int] = {t: 1 for t in stages[-1].outputs}  # spilled tile by tile
    for step in group_steps(graph, stages):
        if reads_overlapping(step):
            found.update(step.inputs)
        for t in set(step.inputs):
            uses[t] = uses.get(t, 0) + 1
    return frozenset(found | {t for t, n in uses.items() if n > 1})


def cacheable(graph: PlanGraph, stages: list[Stage]) -> bool:
    """Whether the group can run with row caches: some tensor is cached, every op of the group
    writing a cached tensor has one output, and every cached tensor with rows to cut holds one
    batch item (its rows are then contiguous: a slot keeps and shifts them as one block)."""
    cached = cached_tensors(graph, stages)
    if not cached:
        return False
    if any(len(graph.tensors[t].shape) >= 3 and graph.tensors[t].height > 1 and graph.tensors[t].shape[0] != 1
           for t in cached):  # fmt: skip
        return False
    return all(len(s.outputs) == 1 for s in group_steps(graph, stages) if cached.intersection(s.outputs))


def slots_hold(graph: PlanGraph, stages: list[Stage], tile_h: int) -> bool:
    """Whether every cached band only moves down, tile after tile: its start and its end never
    go back (the slot keeps rows [start, end) and the rule takes the rows before the previous
    end as held). Bands of monotone windows always do; the runtime refuses a plan where they
    do not."""
    cached = cached_tensors(graph, stages)
    seen: dict[int, tuple[int, int]] = {}
    for tile in cached_tiles(graph, stages, tile_h):
        for t, (start, end) in tile.need.items():
            if t in cached:
                if t in seen and (start < seen[t][0] or end < seen[t][1]):
                    return False
                seen[t] = (start, end)
    return True


@dataclass(frozen=True)
class CachedTile:
    """One tile: the rows each tensor's band holds (`need`), and the rows each tensor gets in
    this tile (`new`: computed by its producer, or loaded; absent when none). Tensors not cached
    get their whole band."""

    need: dict[int, Range]
    new: dict[int, Range]


def cached_tiles(graph: PlanGraph, stages: list[Stage], tile_h: int) -> list[CachedTile]:
    """The tiles of `tile_h` output rows of the group with row caches, in order (module
    docstring). Remembered on the graph."""
    key = ("cached_tiles", span_key(stages), tile_h)
    found = graph.memo.get(key)
    if found is None:
        found = graph.memo[key] = _cached_tiles(graph, stages, tile_h)
    return found  # type: ignore[return-value]


def _cached_tiles(graph: PlanGraph, stages: list[Stage], tile_h: int) -> list[CachedTile]:
    cached = cached_tensors(graph, stages)
    # the steps backwards, each with its outputs and its inputs' tensors, looked up once
    steps = [(s.outputs, [(i, range_reader(s, Axis.H, graph.tensors[i])) for i in s.inputs])
             for s in reversed(group_steps(graph, stages))]
    produced = {o for outs, _ in steps for o in outs}
    done: dict[int, int] = {}
    total = extent(graph.tensors[stages[-1].outputs[0]], Axis.H)
    tiles = []
    for s in range(0, total, tile_h):
        need: dict[int, Range] = {t: (s, min(s + tile_h, total)) for t in stages[-1].outputs}
        new: dict[int, Range] = {}
        for outs, ins in steps:
            rows = []
            for o in outs:
                r = need.get(o)
                if r is None:
                    continue
                if o in cached:
                    r = _fresh(r, done.get(o, 0))
                if r[0] < r[1]:
                    rows.append(r)
            if not rows:
                continue
            out = rows[0] if len(rows) == 1 else (min(r[0] for r in rows), max(r[1] for r in rows))
            for o in outs:
                if o in need:
                    new[o] = out
            for i, read in ins:
                r_in = read(out)
                old = need.get(i)
                need[i] = r_in if old is None else (min(old[0], r_in[0]), max(old[1], r_in[1]))
        for t, r in need.items():
            if t not in produced:
                fresh = _fresh(r, done.get(t, 0)) if t in cached else r
                if fresh[0] < fresh[1]:
                    new[t] = fresh
            if t in cached:
                done[t] = max(done.get(t, 0), r[1])
        tiles.append(CachedTile(need, new))
    return tiles


def _fresh(need: Range, done: int) -> Range:
    """The rows of `need` not held yet: from max(start, done) on (empty if done >= end)."""
    return (max(need[0], done), need[1])


def slot_rows(graph: PlanGraph, stages: list[Stage], tile_h: int) -> dict[int, int]:
    """Rows of each cached tensor's slot: its largest band over the tiles."""
    cached = cached_tensors(graph, stages)
    rows: dict[int, int] = {}
    for tile in cached_tiles(graph, stages, tile_h):
        for t, (start, end) in tile.need.items():
            if t in cached:
                rows[t] = max(rows.get(t, 0), end - start)
    return rows


def cache_bytes(graph: PlanGraph, stages: list[Stage], tile_h: int, align: int) -> int:
    """Bytes of the group's slots, each aligned: the region kept across the tiles."""
    return sum(align_up(graph.tensors[t].row_bytes * r, align) for t, r in slot_rows(graph, stages, tile_h).items())


def tile_sizes(graph: PlanGraph, stages: list[Stage], tile: CachedTile) -> dict[int, int]:
    """Bytes each tensor of the group takes in the arena's timeline during `tile`: its band, but
    0 for a cached tensor (it is in its slot) and for a tensor no op of the tile touches (an op
    that computes nothing new does not run, so its input has no band)."""
    return _tile_sizes(graph, tile, cached_tensors(graph, stages), _untouched(graph, stages))


def _untouched(graph: PlanGraph, stages: list[Stage]) -> dict[int, int]:
    """Every tensor of the group at 0 bytes, in a fixed order: what `_tile_sizes` starts from."""
    return {t: 0 for s in group_steps(graph, stages) for t in (*s.inputs, *s.outputs)}


def _tile_sizes(graph: PlanGraph, tile: CachedTile, cached: frozenset[int], untouched: dict[int, int]) -> dict[int, int]:
    sizes = dict(untouched)
    for t, (start, end) in tile.need.items():
        if t not in cached:
            sizes[t] = graph.tensors[t].row_bytes * (end - start)
    return sizes


def cached_peak(graph: PlanGraph, stages: list[Stage], tile_h: int, align: int) -> int:
    """The arena the group needs with row caches: its slots, plus the largest timeline peak over
    the tiles and stages of the other tensors' bands (cached tensors live in their slots)."""
    key = ("cached_peak", span_key(stages), tile_h, align)
    found = graph.memo.get(key)
    if found is None:
        peak, seen = 0, set()
        cached, untouched = cached_tensors(graph, stages), _untouched(graph, stages)
        for tile in cached_tiles(graph, stages, tile_h):
            sizes = _tile_sizes(graph, tile, cached, untouched)
            distinct = tuple(sizes.values())  # the same tensors in the same order every tile
            if distinct in seen:  # interior tiles repeat the same bands: one timeline each
                continue
            seen.add(distinct)
            for st in stages:
                peak = max(peak, timeline(graph, align, st.first, st.last, sizes).peak)
        found = graph.memo[key] = cache_bytes(graph, stages, tile_h, align) + peak
    return found  # type: ignore[return-value]


def cached_reads(graph: PlanGraph, stages: list[Stage], tile_h: int) -> int:
    """Bytes the group loads from slow memory: each input's new rows per tile (its whole band if
    it is not cached)."""
    inputs = set(stages[0].inputs)
    return sum(graph.tensors[t].row_bytes * (r[1] - r[0])
               for tile in cached_tiles(graph, stages, tile_h) for t, r in tile.new.items() if t in inputs)  # fmt: skip


def cached_computed(graph: PlanGraph, stages: list[Stage], tile_h: int) -> dict[int, tuple[int, int]]:
    """Per step, (output rows its tiles compute, output rows): equal but where a tensor that is
    not cached is read through overlapping bands by an op that is not a window (none by the
    rule, so a difference is a bug the tests look for)."""
    computed: dict[int, tuple[int, int]] = {}
    tiles = cached_tiles(graph, stages, tile_h)
    for step in group_steps(graph, stages):
        o = step.outputs[0]
        rows = sum(t.new[o][1] - t.new[o][0] for t in tiles if o in t.new)
        computed[step.index] = (rows, graph.tensors[o].height)
    return computed


def cached_fits(graph: PlanGraph, stages: list[Stage], tile_h: int, budget: int, align: int) -> bool:
    """Whether tiles of `tile_h` output rows run with row caches within `budget`: the slots and
    bands fit and every cached band only moves down (`slots_hold`)."""
    return cached_peak(graph, stages, tile_h, align) <= budget and slots_hold(graph, stages, tile_h)


def cached_band_sizes(graph: PlanGraph, stages: list[Stage], tile_h: int, align: int) -> list[dict[int, int]]:
    """Per stage, the bytes of each tensor's band in the tile its timeline peaks in, cached
    tensors 0 (they are in the slots): what `tiling.group_band_sizes` gives for other plans."""
    out = []
    for st in stages:
        best: tuple[int, dict[int, int]] = (-1, {})
        for tile in cached_tiles(graph, stages, tile_h):
            sizes = tile_sizes(graph, stages, tile)
            peak = timeline(graph, align, st.first, st.last, sizes).peak
            if peak > best[0]:
                best = (peak, sizes)
        out.append(best[1])
    return out
