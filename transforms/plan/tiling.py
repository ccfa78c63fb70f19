"""partition-spatial and chain tiling (spec/tiling.md).

A stage is cut into horizontal bands of its output. `band_rows` walks the stage
backwards and says how many rows of every tensor one band of `tile_h` output rows
needs (spatial ops widen it by their window, resampling narrows it); a band's memory
is the stage's timeline with each tensor cut to those rows. The spec's formula picks
a first tile height, which is lowered until that computed peak really fits.

Reduction tiles (`plan_reduction`) cut the other way round: a stage whose op reduces its
whole input to one value per channel (global pooling: `AccumulatesRows`) has a one-row
output, so its tiles are bands of the op's *input*; the op keeps an accumulator in the
arena across the tiles and writes its output after the last one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from tigris.dialects.tgr.runtime_enums import FEATURE_BLOCK_OPS, TILEABLE_2D_OPS
from tigris.dialects.tgr.traits import RuntimeOp, TileKind, Window
from tigris.transforms.plan import row_cache
from tigris.transforms.plan.bands import axis_tile_ranges, distinct_extents
from tigris.transforms.plan.geometry import Axis, extent, has_axis, input_extent
from tigris.transforms.plan.graph import PlanGraph, PlanStep, PlanTensor
from tigris.transforms.plan.memory import align_up, timeline
from tigris.transforms.plan.temporal import Stage, span_key


@dataclass(frozen=True)
class TilePlan:
    tile_h: int
    num_tiles: int
    halo: int
    out_h: int
    peak: int  # computed peak of one band (of the whole chain, for chains; the accumulator included)
    chain: int = -1
    acc: int = 0  # reduction tiles: accumulator bytes of the stage's last op; 0: output-row tiles
    tile_w: int = 0  # 2-D tiles: output columns per tile; 0: full-width rows (the fields below unused)
    num_tiles_w: int = 1  # 2-D tiles: tiles along W; a stage runs num_tiles x num_tiles_w tiles
    halo_w: int = 0  # 2-D tiles: extra input columns (receptive field along W - 1)
    out_w: int = 0  # 2-D tiles: output columns the tiles cover
    tile_c: int = 0  # reduction tiles in channel blocks: input channels per block; 0: all
    num_tiles_c: int = 1  # reduction tiles: channel blocks (outermost), each reading the whole input
    cache: int = 0  # row caches (`row_cache.py`): bytes of the slots kept across the tiles (part of peak); 0: none

    @property
    def row_cache(self) -> bool:
        return self.cache > 0

    @property
    def reduces(self) -> bool:
        return self.acc > 0

    @property
    def is_2d(self) -> bool:
        return self.tile_w > 0

    @property
    def feature_blocks(self) -> bool:
        """Output-feature blocks of a lone dense op (`plan_feature_blocks`): channel blocks
        without an accumulator."""
        return self.tile_c > 0 and self.acc == 0

    @property
    def total_tiles(self) -> int:
        return self.num_tiles * self.num_tiles_w * self.num_tiles_c


def receptive_field(windows: list[Window]) -> int:
    """spec/tiling.md: walk spatial ops in reverse, RF += (eff_kernel - 1) * cumulative stride."""
    rf, stride = 1, 1
    for w in reversed(windows):
        rf += (w.effective_kernel - 1) * stride
        stride *= w.stride
    return rf


def stage_windows(graph: PlanGraph, stages: list[Stage]) -> list[Window]:
    return [s.window for st in stages for s in graph.steps[st.first : st.last + 1] if s.window is not None]


def is_tileable(graph: PlanGraph, stage: Stage) -> bool:
    """No structural/dense op, and outputs that have rows to cut. Any number of spatial ops: a
    stage of several (a fused stage: an inverted-residual block, an encoder level) runs band by
    band like any other, each band recomputing the rows its windows overlap (`recompute_macs`;
    the planner bounds it, `cuts.fitting_tile`)."""
    steps = graph.steps[stage.first : stage.last + 1]
    if any(not s.kind.tileable for s in steps):
        return False
    heights = {graph.tensors[t].height for t in stage.outputs}
    return len(heights) == 1 and heights.pop() > 1 and all(len(graph.tensors[t].shape) >= 3 for t in stage.outputs)


def spatial_ops(graph: PlanGraph, stages: list[Stage]) -> int:
    """Spatial ops (windows) in the stages: a stage of more than one is a fused stage."""
    return sum(s.kind is TileKind.SPATIAL for st in stages for s in graph.steps[st.first : st.last + 1])


def input_rows(step: PlanStep, out_rows: int, tensor: PlanTensor) -> int:
    """Rows of `tensor` that `out_rows` output rows of `step` read."""
    return input_extent(step, Axis.H, out_rows, tensor)


def band_rows(
    graph: PlanGraph, stage: Stage, out_rows: int, demand: dict[int, int] | None = None, axis: Axis = Axis.H
) -> dict[int, int]:
    """Rows (columns, along W) per tensor for one band; `demand` gives rows already required
    of stage outputs."""
    rows = {t: min(extent(graph.tensors[t], axis), out_rows) for t in stage.outputs}
    for t, r in (demand or {}).items():
        rows[t] = max(rows.get(t, 0), r)
    for step in reversed(graph.steps[stage.first : stage.last + 1]):
        produced = [rows[o] for o in step.outputs if o in rows]
        r_out = max(produced) if produced else out_rows
        for o in step.outputs:
            rows.setdefault(o, r_out)
        for i in step.inputs:
            rows[i] = max(rows.get(i, 0), input_extent(step, axis, r_out, graph.tensors[i]))
    return rows


def band_peak(
    graph: PlanGraph, stage: Stage, rows: dict[int, int], align: int, cols: dict[int, int] | None = None
) -> int:
    """The stage's timeline peak with every tensor cut to its band: `rows` along H and, for a
    2-D tile, `cols` along W."""
    sizes = {t: band_bytes(graph.tensors[t], r, (cols or {}).get(t)) for t, r in rows.items()}
    return timeline(graph, align, stage.first, stage.last, sizes).peak


def band_bytes(tensor: PlanTensor, rows: int, cols: int | None = None) -> int:
    """Bytes of a band of `rows` rows (and `cols` columns; None: the full width) of a tensor."""
    if cols is None:
        return tensor.row_bytes * rows
    return tensor.row_bytes // extent(tensor, Axis.W) * cols * rows


def out_height(graph: PlanGraph, stage: Stage) -> int:
    return graph.tensors[stage.outputs[0]].height


def plan_spatial(graph: PlanGraph, stage: Stage, budget: int, align: int) -> TilePlan | None:
    """The spec's tile height, lowered until the band fits; None if the stage is not tileable.
    If even one-row full-width bands do not fit, 2-D tiles (`plan_2d`) where the stage allows
    them; failing those, the plan keeps tile_h 1 and its peak exceeds the budget: the planner
    then runs the stage normally instead (`planner.assign_strategies`). A fused stage (several
    spatial ops) takes the tallest bands that fit (a binary search: the spec's guess assumes
    one window) and no 2-D tiles (its halos would be recomputed along both axes)."""
    if not is_tileable(graph, stage):
        return None
    height = out_height(graph, stage)
    halo = receptive_field(stage_windows(graph, [stage])) - 1
    if spatial_ops(graph, [stage]) > 1:
        tile_h = _largest_fitting(height, lambda rows: tiles_peak(graph, [stage], rows, align) <= budget)
        return TilePlan(tile_h, math.ceil(height / tile_h), halo, height, tiles_peak(graph, [stage], tile_h, align))
    tile_h = min(height, max(1, budget * height // max(stage.peak, 1) - halo))
    peak = tiles_peak(graph, [stage], tile_h, align)
    while tile_h > 1 and peak > budget:
        tile_h -= 1
        peak = tiles_peak(graph, [stage], tile_h, align)
    strips = TilePlan(tile_h, math.ceil(height / tile_h), halo, height, peak)
    if peak <= budget:
        return strips
    return plan_2d(graph, stage, budget, align) or strips


def plan_cached(graph: PlanGraph, stages: list[Stage], budget: int, align: int, chain: int = -1) -> TilePlan | None:
    """Full-width output-row tiles with row caches (`row_cache.py`): the tallest that fit (a
    binary search), None if the group cannot run with caches or not even one-row tiles fit.
    Nothing is recomputed. Remembered on the graph (the cut search asks again for the spans it
    cannot tile)."""
    key = ("plan_cached", span_key(stages), budget, align)
    if key not in graph.memo:
        graph.memo[key] = _plan_cached(graph, stages, budget, align)
    tile = graph.memo[key]
    return replace(tile, chain=chain) if tile is not None else None  # type: ignore[arg-type]


def _plan_cached(graph: PlanGraph, stages: list[Stage], budget: int, align: int) -> TilePlan | None:
    if not row_cache.cacheable(graph, stages):
        return None
    height = out_height(graph, stages[-1])
    tile_h = _largest_fitting(height, lambda rows: row_cache.cached_fits(graph, stages, rows, budget, align))
    # one-row tiles are asked last (they are the most tiles to walk): only when no taller fits
    if tile_h == 1 and not row_cache.cached_fits(graph, stages, 1, budget, align):
        return None
    halo = receptive_field(stage_windows(graph, stages)) - 1
    return TilePlan(tile_h, math.ceil(height / tile_h), halo, height, row_cache.cached_peak(graph, stages, tile_h, align),
                    cache=row_cache.cache_bytes(graph, stages, tile_h, align))  # fmt: skip


def one_row_fits(graph: PlanGraph, stage: Stage, budget: int, align: int) -> bool:
    """Whether one-row full-width bands of a tileable stage fit: the smallest output-row tiles."""
    return tiles_peak(graph, [stage], 1, align) <= budget


def is_tileable_2d(graph: PlanGraph, stage: Stage) -> bool:
    """Whether 2-D tiles can cut the stage: it is tileable and not fused (one spatial op at
    most: a fused stage's halos would be recomputed along both axes), every op is one the runtime's
    kernels run on a 2-D window (`TILEABLE_2D_OPS`: a plugin's kernel sees whole rows, so its
    stages are cut in full-width rows only) and can be cut along W too (pointwise,
    channel-wise, or windowed along both axes, not accumulating), and its outputs are rank-4
    maps more than one column wide. A resample op (pad, resize) is cut along W when its row map
    holds there too (`RowMap.along`: its columns follow the same rule as its rows)."""
    if not is_tileable(graph, stage) or spatial_ops(graph, [stage]) > 1:
        return False
    for step in graph.steps[stage.first : stage.last + 1]:
        windowed = step.kind_w is TileKind.SPATIAL and step.window_w is not None and step.acc_bytes is None
        mapped = step.row_map is not None and step.op is not None and step.row_map.along(step.op, Axis.W)
        cut_w = step.kind_w in (TileKind.POINTWISE, TileKind.CHANNELWISE) or windowed or mapped
        if (step.row_map is not None and not mapped) or not cut_w or _op_type(step) not in TILEABLE_2D_OPS:
            return False
    return all(has_axis(graph.tensors[t], Axis.W) for t in stage.outputs)


def _op_type(step: PlanStep) -> int | None:
    """The runtime op type the step lowers to (`RuntimeOp`), None for an op without one."""
    trait = step.op.get_trait(RuntimeOp) if step.op is not None else None
    return trait.op_type if trait is not None else None


def plan_2d(graph: PlanGraph, stage: Stage, budget: int, align: int) -> TilePlan | None:
    """tile_h x tile_w tiles: for every tile height, the widest tiles that fit; of those, the
    plan that reads the fewest bytes from slow memory (halos overlap along both axes), then the
    one with fewest tiles, then the lowest. None if the stage cannot be cut in 2-D or not even
    1 x 1 tiles fit. O(sqrt(H) log W) band peaks: a handful of timelines of one stage."""
    if not is_tileable_2d(graph, stage):
        return None
    height, width = out_height(graph, stage), extent(graph.tensors[stage.outputs[0]], Axis.W)
    windows = stage_windows(graph, [stage])
    halo = receptive_field(windows) - 1
    halo_w = receptive_field([s.window_w for s in graph.steps[stage.first : stage.last + 1] if s.window_w]) - 1

    def peak(tile_h: int, tile_w: int) -> int:
        return tile_peak_2d(graph, stage, tile_h, tile_w, align)

    extents: dict[tuple[Axis, int], dict[int, int]] = {}

    def reads(tile_h: int, tile_w: int) -> int:
        for key in ((Axis.H, tile_h), (Axis.W, tile_w)):
            if key not in extents:
                extents[key] = read_extents(graph, [stage], key[1], key[0])
        return reads_of(graph, [stage], extents[(Axis.H, tile_h)], extents[(Axis.W, tile_w)])

    best: tuple[tuple[int, int], TilePlan] | None = None
    # only the smallest height giving each number of row bands: a taller one has the same bands
    # to read, less room for columns
    for tile_h in sorted({-(-height // k) for k in range(1, height + 1)}):
        if peak(tile_h, 1) > budget:
            break
        low = _largest_fitting(width, lambda cols: peak(tile_h, cols) <= budget)  # noqa: B023 (called at once)
        plan = TilePlan(tile_h, math.ceil(height / tile_h), halo, height, peak(tile_h, low),
                        tile_w=low, num_tiles_w=math.ceil(width / low), halo_w=halo_w, out_w=width)
        cost = (reads(tile_h, low), plan.total_tiles)
        if best is None or cost < best[0]:
            best = (cost, plan)
    return best[1] if best is not None else None


def tile_peak_2d(graph: PlanGraph, stage: Stage, tile_h: int, tile_w: int, align: int) -> int:
    """The band peak of tile_h x tile_w output tiles of a stage."""
    return tiles_peak(graph, [stage], tile_h, align, tile_w)


def tiles_peak(graph: PlanGraph, stages: list[Stage], tile_h: int, align: int, tile_w: int = 0) -> int:
    """The arena the tiles of `tile_h` output rows (x `tile_w` columns; 0: full width) of a
    stage or a chain need: the largest timeline peak over the tiles, each tensor cut to its
    exact range in that tile (`bands.axis_tile_ranges`, the runtime's rule). Edge tiles read
    fewer rows than `band_rows`' bound (the window is clamped to the map), so two tiles may
    both be smaller than it: the peak predicted is the one the runtime reaches. Tiles with the
    same extents share a timeline: a handful per call."""
    rows = distinct_extents(graph, stages, tile_h, Axis.H)
    cols = distinct_extents(graph, stages, tile_w, Axis.W) if tile_w else [None]
    return max(band_peak(graph, st, r, align, c) for r in rows for c in cols for st in stages)


def tile_reads(graph: PlanGraph, stages: list[Stage], tile: TilePlan) -> int:
    """Bytes the tiles load from slow memory: each stage input's rows (and columns) per tile,
    summed. Along each axis a tile's range is the same for every tile of its row (column), so a
    2-D total is (sum of row-band heights) x (sum of column-band widths) x bytes per pixel. With
    row caches, each cached input's rows are loaded once."""
    if tile.row_cache:
        return row_cache.cached_reads(graph, stages, tile.tile_h)
    rows = read_extents(graph, stages, tile.tile_h, Axis.H)
    cols = read_extents(graph, stages, tile.tile_w, Axis.W) if tile.is_2d else None
    return reads_of(graph, stages, rows, cols)


def read_extents(graph: PlanGraph, stages: list[Stage], size: int, axis: Axis) -> dict[int, int]:
    """Per input of the first stage, its rows (columns) summed over the bands of `size` outputs."""
    bands = axis_tile_ranges(graph, stages, size, axis)
    return {t: sum(b[t][1] - b[t][0] for b in bands if t in b) for t in stages[0].inputs}


def reads_of(graph: PlanGraph, stages: list[Stage], rows: dict[int, int], cols: dict[int, int] | None) -> int:
    """Slow-memory bytes of the stage inputs' bands, from their summed extents per axis."""
    return sum(band_bytes(graph.tensors[t], rows[t], None if cols is None else cols[t]) for t in stages[0].inputs)


def chain_links(graph: PlanGraph, a: Stage, b: Stage) -> bool:
    """spec/tiling.md chain detection: both tileable, `a` has one output, consumed only by `b`
    (no fan-out), which is `b`'s only input, and it is a feature map (has rows)."""
    if not (is_tileable(graph, a) and is_tileable(graph, b)) or len(a.outputs) != 1:
        return False
    t = graph.tensors[a.outputs[0]]
    inside_b = all(b.first <= c <= b.last for c in t.consumers)
    return inside_b and not t.is_output and b.inputs == [t.index] and len(t.shape) == 4 and t.height > 1


def chain_rows(graph: PlanGraph, stages: list[Stage], out_rows: int) -> list[dict[int, int]]:
    """Band rows for every stage of a chain, back-propagated from the last stage's output."""
    per_stage: list[dict[int, int]] = [{} for _ in stages]
    demand: dict[int, int] = {}
    rows_out = out_rows
    for k in reversed(range(len(stages))):
        rows = band_rows(graph, stages[k], rows_out, demand)
        per_stage[k] = rows
        if k > 0:
            link = stages[k - 1].outputs[0]
            demand = {link: rows[link]}
            rows_out = rows[link]
    return per_stage


def plan_chain(graph: PlanGraph, stages: list[Stage], budget: int, align: int, chain: int) -> TilePlan:
    """Largest output tile height whose bands fit in every stage of the chain (binary search)."""
    height = out_height(graph, stages[-1])

    def peak(rows_out: int) -> int:
        return tiles_peak(graph, stages, rows_out, align)

    low = _largest_fitting(height, lambda rows: peak(rows) <= budget)
    halo = receptive_field(stage_windows(graph, stages)) - 1
    return TilePlan(low, math.ceil(height / low), halo, height, peak(low), chain)


def reduction_step(graph: PlanGraph, stage: Stage) -> PlanStep | None:
    """The stage's op if reduction tiles can run it: one op that accumulates over rows, whose
    outputs are the stage's, reading an input with rows to cut (the runtime checks the same)."""
    if stage.first != stage.last:
        return None
    step = graph.steps[stage.first]
    if step.acc_bytes is None or not step.inputs or sorted(stage.outputs) != sorted(step.outputs):
        return None
    source = graph.tensors[step.inputs[0]]
    return step if len(source.shape) >= 3 and source.height > 1 else None


def reduction_peak(
    graph: PlanGraph, stage: Stage, step: PlanStep, rows: int, align: int, cols: int | None = None,
    channels: int | None = None,
) -> int:  # fmt: skip
    """Arena bytes of one reduction tile of `rows` input rows (of `cols` columns; None: whole
    rows): the band of the input, the whole (one-row) output and the accumulator, which stays
    for every tile; in channel blocks of `channels` (None: all), the accumulator holds a block."""
    band = {step.inputs[0]: rows, **{t: graph.tensors[t].height for t in step.outputs}}
    widths = None if cols is None else {step.inputs[0]: cols}
    return band_peak(graph, stage, band, align, widths) + align_up(block_acc(graph, step, channels), align)


def block_acc(graph: PlanGraph, step: PlanStep, channels: int | None) -> int:
    """Accumulator bytes of a reducing step for a block of `channels` input channels (None: all):
    the accumulator keeps the same state per (batch item, channel)."""
    assert step.acc_bytes is not None
    if channels is None:
        return step.acc_bytes
    return step.acc_bytes // graph.tensors[step.inputs[0]].shape[1] * channels


def plan_reduction(graph: PlanGraph, stage: Stage, budget: int, align: int) -> TilePlan | None:
    """Reduction tiles reading the input once if they can: of the largest height that fits
    (fewest tiles; the input is read once whatever the height), else one row tall and as many
    columns as fit (one row tall, the pixels are still summed in row-major order, bit-identical
    to the untiled op). If not even one pixel fits beside the whole accumulator, channel blocks:
    the fewest blocks whose accumulator fits beside one pixel (each block reads the whole input
    again), then the largest tiles at that block. None if the stage cannot reduce over tiles;
    if nothing fits, the one-row plan is returned and the caller runs the stage normally, as
    `plan_spatial` does."""
    step = reduction_step(graph, stage)
    if step is None:
        return None
    source = graph.tensors[step.inputs[0]]
    whole = _reduction_tiles(graph, stage, step, budget, align, None)
    channels = source.shape[1]
    if whole.peak <= budget or channels == 1:
        return whole
    pixel = 1 if has_axis(source, Axis.W) else None
    block = _largest_fitting(channels, lambda c: reduction_peak(graph, stage, step, 1, align, pixel, c) <= budget)
    if reduction_peak(graph, stage, step, 1, align, pixel, block) > budget:
        return whole
    return _reduction_tiles(graph, stage, step, budget, align, block)


def _reduction_tiles(graph: PlanGraph, stage: Stage, step: PlanStep, budget: int, align: int,
                     channels: int | None) -> TilePlan:  # fmt: skip
    """The largest reduction tiles that fit at a channel block (None: all channels): the most
    rows, else one row of the most columns; one row (the smallest) if none fits."""
    source = graph.tensors[step.inputs[0]]
    height = source.height
    acc = block_acc(graph, step, channels)
    blocks = {} if channels is None else {"tile_c": channels, "num_tiles_c": math.ceil(source.shape[1] / channels)}

    def peak(rows: int, cols: int | None = None) -> int:
        return reduction_peak(graph, stage, step, rows, align, cols, channels)

    low = _largest_fitting(height, lambda rows: peak(rows) <= budget)
    rows = TilePlan(low, math.ceil(height / low), 0, height, peak(low), acc=acc, **blocks)
    if rows.peak <= budget or not has_axis(source, Axis.W):
        return rows
    width = extent(source, Axis.W)
    cols = _largest_fitting(width, lambda c: peak(1, c) <= budget)
    if peak(1, cols) > budget:
        return rows
    return TilePlan(1, height, 0, height, peak(1, cols), acc=acc, tile_w=cols, num_tiles_w=math.ceil(width / cols),
                    out_w=width, **blocks)  # fmt: skip


def feature_block_step(graph: PlanGraph, stage: Stage) -> PlanStep | None:
    """The stage's op if output-feature blocks can run it: one op of `FEATURE_BLOCK_OPS` (a
    fully_connected layer: its weights are constant, so a block reads only its own weight rows)
    whose one output [N, M] has more than one feature and is the stage's only output (the runtime
    checks the same)."""
    if stage.first != stage.last:
        return None
    step = graph.steps[stage.first]
    if _op_type(step) not in FEATURE_BLOCK_OPS or len(step.outputs) != 1 or list(stage.outputs) != step.outputs:
        return None
    shape = graph.tensors[step.outputs[0]].shape
    return step if len(shape) == 2 and shape[1] > 1 else None


def feature_block_peak(graph: PlanGraph, stage: Stage, step: PlanStep, features: int, align: int,
                       inputs: int | None = None) -> int:  # fmt: skip
    """Arena bytes of one block of `features` output features: the stage's timeline with its
    output cut to [N, features]; with `inputs`, a reduction block: input 0 cut to [N, inputs]
    too, plus the block's partial sums (`dense_acc`), which stay across the input blocks."""
    out = graph.tensors[step.outputs[0]]
    sizes = {out.index: out.nbytes // out.shape[1] * features}
    acc = 0
    if inputs is not None:
        x = graph.tensors[step.inputs[0]]
        sizes[x.index] = x.nbytes // x.shape[1] * inputs
        acc = align_up(dense_acc(graph, step, features), align)
    return timeline(graph, align, stage.first, stage.last, sizes).peak + acc


def dense_acc(graph: PlanGraph, step: PlanStep, features: int) -> int:
    """Partial-sum bytes of a dense op in reduction blocks: one float32 (float) or int32 (int8)
    sum per batch row and output feature of the block."""
    return graph.tensors[step.outputs[0]].shape[0] * features * 4


def plan_feature_blocks(graph: PlanGraph, stage: Stage, budget: int, align: int) -> TilePlan | None:
    """A dense op in blocks of output features: each block reads the whole input (so the fewest
    blocks read the least), either at once (output-feature blocks) or, as reduction blocks, in
    blocks of its K input features, summing into partial sums that stay in the arena, the
    features written after the last input block. Of the two, the plan reading the input fewer
    times wins (then the fewer tiles); each block as wide, then as deep, as fits. If neither
    fits, the one-feature plan (its peak over the budget: the caller runs the stage normally, as
    `plan_spatial` does). None if the stage is not one dense op."""
    step = feature_block_step(graph, stage)
    if step is None:
        return None
    features = graph.tensors[step.outputs[0]].shape[1]
    block = _largest_fitting(features, lambda c: feature_block_peak(graph, stage, step, c, align) <= budget)
    whole = TilePlan(1, 1, 0, 1, feature_block_peak(graph, stage, step, block, align), tile_c=block,
                     num_tiles_c=math.ceil(features / block))  # fmt: skip
    reduced = _reduction_blocks(graph, stage, step, budget, align)
    fitting = [p for p in (whole, reduced) if p is not None and p.peak <= budget]
    return min(fitting, key=lambda p: (p.num_tiles_c, p.total_tiles)) if fitting else whole


def _reduction_blocks(graph: PlanGraph, stage: Stage, step: PlanStep, budget: int, align: int) -> TilePlan | None:
    """Reduction blocks of a dense op: the widest block of output features whose partial sums fit
    beside one input feature, then the deepest input blocks that fit at that width; None if not
    even one feature of each fits."""
    features = graph.tensors[step.outputs[0]].shape[1]
    depth = graph.tensors[step.inputs[0]].shape[1]

    def peak(c: int, k: int) -> int:
        return feature_block_peak(graph, stage, step, c, align, k)

    block = _largest_fitting(features, lambda c: peak(c, 1) <= budget)
    if peak(block, 1) > budget:
        return None
    rows = _largest_fitting(depth, lambda k: peak(block, k) <= budget)
    return TilePlan(rows, math.ceil(depth / rows), 0, depth, peak(block, rows), acc=dense_acc(graph, step, block),
                    tile_c=block, num_tiles_c=math.ceil(features / block))  # fmt: skip


def _largest_fitting(size: int, fits: Callable[[int], bool]) -> int:
    """The largest n in [1, size] with fits(n), `fits` being monotone (true up to some n); 1 if
    none fits. A binary search: O(log size) calls."""
    low, high = 1, size
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def group_band_sizes(graph: PlanGraph, stages: list[Stage], tile: TilePlan, align: int) -> list[dict[int, int]]:
    """Bytes per tensor of one band, per stage of a tiled group (a lone tiled stage, a chain, a
    2-D tiled stage, a reduction stage, or a dense op in blocks: the output's block and, in
    reduction blocks, the input's block): for each stage, the sizes of the tile its peak comes
    from (`tiles_peak`: the largest over the tiles; a reduction adds its accumulator)."""
    if tile.row_cache:
        return row_cache.cached_band_sizes(graph, stages, tile.tile_h, align)
    dense = feature_block_step(graph, stages[0]) if len(stages) == 1 else None
    if dense is not None and tile.tile_c > 0:
        out, x = graph.tensors[dense.outputs[0]], graph.tensors[dense.inputs[0]]
        sizes = {out.index: out.nbytes // out.shape[1] * tile.tile_c}
        if tile.reduces:
            sizes[x.index] = x.nbytes // x.shape[1] * tile.tile_h
        return [sizes]
    if tile.reduces:
        step = graph.steps[stages[0].last]
        rows = {step.inputs[0]: tile.tile_h, **{t: graph.tensors[t].height for t in step.outputs}}
        cols = {step.inputs[0]: tile.tile_w} if tile.is_2d else {}
        return [{t: band_bytes(graph.tensors[t], r, cols.get(t)) for t, r in rows.items()}]
    row_bands = distinct_extents(graph, stages, tile.tile_h, Axis.H)
    col_bands = distinct_extents(graph, stages, tile.tile_w, Axis.W) if tile.is_2d else [None]
    out = []
    for stage in stages:
        rows, cols = max(((r, c) for r in row_bands for c in col_bands),
                         key=lambda rc: band_peak(graph, stage, rc[0], align, rc[1]))  # noqa: B023
        out.append({t: band_bytes(graph.tensors[t], r, None if cols is None else cols.get(t)) for t, r in rows.items()})
    return out


def computed_elements(graph: PlanGraph, stages: list[Stage], tile: TilePlan) -> dict[int, tuple[int, int]]:
    """Per step of the stages, (output elements its tiles compute, output elements): above the
    second where halos are recomputed along H and, for 2-D tiles, along W. Counted in rows x
    columns of the output's map (the other axes are whole in every tile)."""
    rows = axis_tile_ranges(graph, stages, tile.tile_h, Axis.H)
    cols = axis_tile_ranges(graph, stages, tile.tile_w, Axis.W) if tile.is_2d else None
    out: dict[int, tuple[int, int]] = {}
    for stage in stages:
        for step in graph.steps[stage.first : stage.last + 1]:
            t = step.outputs[0]
            computed = sum(r[t][1] - r[t][0] for r in rows if t in r)
            total = graph.tensors[t].height
            if cols is not None:
                computed *= sum(c[t][1] - c[t][0] for c in cols if t in c)
                total *= extent(graph.tensors[t], Axis.W)
            out[step.index] = (computed, total)
    return out


def recompute_macs(graph: PlanGraph, stages: list[Stage], tile: TilePlan) -> int:
    """MACs the tiles of a group compute beyond the untiled run's: each op's halo rows (and
    columns) computed again by the band that overlaps them, at the op's MACs per output element.
    Zero for reduction tiles and dense blocks (every element is computed once)."""
    if tile.reduces or tile.feature_blocks:
        return 0
    extra = 0
    found = row_cache.cached_computed(graph, stages, tile.tile_h) if tile.row_cache else computed_elements(graph, stages, tile)
    for step, (computed, total) in found.items():
        if computed > total and total:
            extra += graph.steps[step].macs * (computed - total) // total
    return extra


def recomputed_rows(graph: PlanGraph, stages: list[Stage], tile: TilePlan) -> int:
    """Rows the tiles of a group compute more than once, the runtime's `recomputed_rows`: over
    the tiles, the rows of each op output's band (with row caches: the rows its slot does not
    hold yet) minus the output's rows; a 2-D tile's rows once per column band (its column halo
    is not rows). Zero for reduction tiles and dense blocks (every element is computed once)."""
    if tile.reduces or tile.feature_blocks:
        return 0
    ranges = ([t.new for t in row_cache.cached_tiles(graph, stages, tile.tile_h)] if tile.row_cache
              else axis_tile_ranges(graph, stages, tile.tile_h, Axis.H))
    rows = 0
    for stage in stages:
        for step in graph.steps[stage.first : stage.last + 1]:
            for t in step.outputs:
                rows += sum(r[t][1] - r[t][0] for r in ranges if t in r) - graph.tensors[t].height
    return rows * (tile.num_tiles_w if tile.is_2d else 1)
