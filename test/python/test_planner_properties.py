"""Properties of the memory planner on random graphs (hypothesis, derandomized).

Checked, on random graphs and random budgets/alignments:
  - lifetimes and the whole-model timeline equal a reference computed from the IR;
  - temporal stages: every step in exactly one stage, contiguous and in order; reloaded
    inputs / spilled outputs equal the sets recomputed from producers and consumers;
    stage peaks equal an independent event sweep; the greedy cut (a stage of several
    ops fits, adding the next op would not); a bigger budget never gives more stages;
  - tiled and chained stages (from plan_memory, and from arbitrary multi-op stages as
    partition-spatial/tile-chains read them from IR): the output tiles cover [0, H)
    exactly once; every tile's row ranges hold every row its outputs read (and exactly
    those without dilation); the first tile of a stage input starts at row 0 and the
    last ends where the rows read end (H at stride 1); `band_rows` bounds every range,
    so the band sized from the exact ranges fits in the plan's `scheduled_peak`, which is
    <= the budget whenever the plan reports no overflow; halo = RF - 1;
  - a single window: halo = eff_kernel - 1 and consecutive input bands overlap by
    exactly eff_kernel - stride away from the edges (the clamped formula everywhere);
  - row caches: replayed row by row, every row computed and loaded once (end of the file);
  - plan_memory overflows exactly below minimum_budget;
  - tigris-plan writes exactly these figures, and they verify and round-trip.

Graphs of `tgr.conv`, `tgr.depthwise_conv`, `tgr.max_pool`, `tgr.add`, `tgr.concat`
(channel axis) and `tgr.relu` are written as IR text and parsed, so the planner reads
them through the op traits. Every value that no op consumes is returned, so no tensor is
dead. Windows vary along H only (kernels k x 1, W unchanged): kernel 1/2/3/5, stride 1/2,
dilation 1/2, any pads in [0, eff_kernel - 1] on each side.

The references here are recomputed from the IR and the rules (spec/pipeline.md 3-5,
spec/tiling.md), not from the planner's helpers: producers/consumers from SSA uses,
stage intervals and the event sweep re-derived, and the rows a band really reads by
enumerating every kernel tap of every output row.

Narrowed on purpose (see the planner bug report): no `tgr.pad`, `tgr.resize` or concat
along H in the generator; their band ranges are wrong today.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, NoneAttr
from xdsl.dialects.func import ReturnOp
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.tgr.attributes import LifetimeAttr, MemoryAttr, StageAttr, TilePlanAttr
from tigris.dialects.tgr.weight import WeightOp
from tigris.transforms.plan.bands import axis_tile_ranges, tile_ranges
from tigris.transforms.plan.geometry import Axis
from tigris.transforms.plan.graph import PlanGraph, PlanStep, build_plan_graph, main_func
from tigris.transforms.plan.memory import align_up, lifetimes, timeline
from tigris.transforms.plan.passes import TigrisPlanPass
from tigris.transforms.plan.planner import (
    Plan,
    StagePlan,
    assign_strategies,
    groups,
    minimum_budget,
    plan_memory,
)
from tigris.transforms.plan.temporal import Stage, make_stage, partition_temporal
from tigris.transforms.plan.row_cache import (
    cache_bytes, cached_peak, cached_reads, cached_tensors, cached_tiles, cacheable, slot_rows, slots_hold,
)
from tigris.transforms.plan.tiling import TilePlan, band_peak, band_rows, chain_rows, is_tileable, plan_cached, receptive_field


# When a property fails, hypothesis's pytest plugin imports libcst to suggest a patch, and
# libcst (through mypy_extensions) raises a DeprecationWarning that `-W error` turns into a
# pytest INTERNALERROR hiding the falsifying example. Importing it here, warnings silenced,
# keeps failures readable.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst not installed: the plugin skips the patch
        pass




CTX = make_context()


def deterministic(examples: int) -> settings:
    """The same examples on every run (no database, no deadline): a CI test, not a fuzzer."""
    return settings(
        derandomize=True,
        database=None,
        deadline=None,
        max_examples=examples,
        suppress_health_check=[HealthCheck.too_slow],
    )


ALIGNS = st.sampled_from([1, 4, 16, 32])


# -- random graphs as IR text ---------------------------------------------------------------------


def ttype(shape: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


@dataclass
class Builder:
    shapes: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    order: list[str] = field(default_factory=list)

    def new(self, shape: tuple[int, int, int, int], arg: bool = False) -> str:
        name = f"%v{len(self.shapes)}"
        self.shapes[name] = shape
        self.order.append(name)
        if arg:
            self.args.append(name)
        return name

    def window(self, x: str, kind: str, cout: int, k: int, s: int, d: int, pb: int, pe: int) -> str:
        n, c, h, w = self.shapes[x]
        out_h = (h + pb + pe - d * (k - 1) - 1) // s + 1
        props = f"strides = array<i64: {s}, 1>, pads = array<i64: {pb}, 0, {pe}, 0>"
        self.used.add(x)
        if kind == "max_pool":
            out = self.new((n, c, out_h, w))
            types = f"({ttype(self.shapes[x])}) -> {ttype(self.shapes[out])}"
            attrs = f"{{kernel_shape = array<i64: {k}, 1>, {props}}}"
            self.lines.append(f"{out} = tgr.max_pool {x} {attrs} : {types}")
            return out
        dw = kind == "depthwise_conv"
        cout = c if dw else cout
        wshape = (cout, 1 if dw else c, k, 1)
        weight = f"%w{len(self.lines)}"
        self.lines.append(f"{weight} = tgr.weight dense<1.0> : {ttype(wshape)}")
        out = self.new((n, cout, out_h, w))
        types = f"({ttype(self.shapes[x])}, {ttype(wshape)}) -> {ttype(self.shapes[out])}"
        attrs = f"{{dilations = array<i64: {d}, 1>, {props}}}"
        self.lines.append(f"{out} = tgr.{kind} {x}, {weight} {attrs} : {types}")
        return out

    def simple(self, op: str, xs: list[str], shape: tuple[int, int, int, int], props: str = "") -> str:
        self.used.update(xs)
        out = self.new(shape)
        ins = ", ".join(ttype(self.shapes[x]) for x in xs)
        self.lines.append(f"{out} = tgr.{op} {', '.join(xs)}{props} : ({ins}) -> {ttype(shape)}")
        return out

    def text(self) -> str:
        outs = [v for v in self.order if v not in self.used and v not in self.args] or [self.order[-1]]
        sig = ", ".join(f"{a}: {ttype(self.shapes[a])}" for a in self.args)
        results = ", ".join(ttype(self.shapes[o]) for o in outs)
        body = "\n  ".join([*self.lines, f"func.return {', '.join(outs)} : {results}"])
        return f"func.func @main({sig}) -> ({results}) {{\n  {body}\n}}"


@st.composite
def window_params(draw: st.DrawFn, h: int, pool: bool = False) -> tuple[int, int, int, int, int]:
    k = draw(st.sampled_from([2, 3]) if pool else st.sampled_from([1, 2, 3, 5]))
    s = draw(st.sampled_from([1, 2]))
    d = 1 if pool else draw(st.sampled_from([1, 1, 2]))
    eff = d * (k - 1) + 1
    pb = draw(st.integers(0, eff - 1))
    pe = draw(st.integers(0, eff - 1))
    if h + pb + pe < eff:  # too short for this window: pad it so one output row exists
        pe = min(eff - 1, eff - h - pb)
        pb = max(pb, eff - h - pe)
    return k, s, d, pb, pe


@st.composite
def graph_texts(draw: st.DrawFn, max_ops: int = 7) -> str:
    b = Builder()
    h = draw(st.integers(3, 16))
    x = b.new((1, draw(st.integers(1, 3)), h, draw(st.integers(1, 3))), arg=True)
    values = [x]
    for _ in range(draw(st.integers(1, max_ops))):
        src = draw(st.sampled_from(values[-3:]))
        n, c, h, w = b.shapes[src]
        kind = draw(st.sampled_from(["conv", "depthwise_conv", "max_pool", "relu", "add", "concat"]))
        if kind in ("conv", "depthwise_conv", "max_pool"):
            k, s, d, pb, pe = draw(window_params(h, pool=kind == "max_pool"))
            out = b.window(src, kind, draw(st.integers(1, 4)), k, s, d, pb, pe)
        elif kind == "relu":
            out = b.simple("relu", [src], b.shapes[src])
        else:
            if kind == "add":
                mates = [v for v in values if v != src and b.shapes[v] == b.shapes[src]]
            else:
                mates = [v for v in values if v != src and b.shapes[v][2:] == b.shapes[src][2:]]
            if not mates:
                out = b.simple("relu", [src], b.shapes[src])
            elif kind == "add":
                out = b.simple("add", [src, draw(st.sampled_from(mates))], b.shapes[src])
            else:
                other = draw(st.sampled_from(mates))
                shape = (n, c + b.shapes[other][1], h, w)
                out = b.simple("concat", [src, other], shape, " {axis = 1 : i64}")
        values.append(out)
    return b.text()


def parse(text: str) -> ModuleOp:
    module = Parser(CTX, text).parse_module()
    module.verify()
    return module


# -- references recomputed from the IR and the rules -----------------------------------------------


@dataclass
class Ref:
    nbytes: list[int]
    height: list[int]
    producer: list[int]
    consumers: list[set[int]]
    is_output: list[bool]
    steps: int


def reference(module: ModuleOp) -> Ref:
    """Tensor numbering of #tgr.stage: model inputs, then op results in program order."""
    func = main_func(module)
    ids: dict[object, int] = {}
    ref = Ref([], [], [], [], [], 0)

    def add(value: object, producer: int) -> None:
        shape = value.type.get_shape()  # type: ignore[attr-defined]
        ids[value] = len(ref.nbytes)
        ref.nbytes.append(math.prod(shape) * 4)
        ref.height.append(shape[2] if len(shape) >= 3 else 1)
        ref.producer.append(producer)
        ref.consumers.append(set())
        ref.is_output.append(False)

    for arg in func.body.block.args:
        add(arg, -1)
    for op in func.body.block.ops:
        if isinstance(op, WeightOp):
            continue
        if isinstance(op, ReturnOp):
            for v in op.operands:
                ref.is_output[ids[v]] = True
            continue
        for v in op.operands:
            if v in ids:
                ref.consumers[ids[v]].add(ref.steps)
        for r in op.results:
            add(r, ref.steps)
        ref.steps += 1
    return ref


def intervals(ref: Ref, first: int, last: int) -> dict[int, tuple[int, int]]:
    """Who occupies the arena in stage [first, last], from the rules in memory.py's docstring."""
    out: dict[int, tuple[int, int]] = {}
    for t in range(len(ref.nbytes)):
        inside = [c for c in ref.consumers[t] if first <= c <= last]
        later = ref.is_output[t] or any(c > last for c in ref.consumers[t])
        if first <= ref.producer[t] <= last:
            out[t] = (ref.producer[t], last if later else max(inside, default=ref.producer[t]))
        elif ref.producer[t] < first and inside:
            out[t] = (first, max(inside))
    return out


def sweep(ref: Ref, first: int, last: int, align: int, sizes: dict[int, int] | None = None) -> int:
    live = [0] * (last - first + 1)
    for t, (a, b) in intervals(ref, first, last).items():
        size = (sizes or {}).get(t, ref.nbytes[t])
        for s in range(a, b + 1):
            live[s - first] += -(-size // align) * align
    return max(live, default=0)


def rows_read(g: PlanGraph, stages: list[Stage], out: tuple[int, int]) -> dict[int, set[int]]:
    """Every row of every tensor that output rows `out` of the last stage read, by enumerating
    the kernel taps r * stride - pad_begin + j * dilation of each output row r."""
    need: dict[int, set[int]] = {t: set(range(*out)) for t in stages[-1].outputs}
    for stage in reversed(stages):
        for step in reversed(g.steps[stage.first : stage.last + 1]):
            rows_out = set().union(*(need.get(o, set()) for o in step.outputs))
            for i in step.inputs:
                h = g.tensors[i].height
                w = step.window
                if len(g.tensors[i].shape) < 3:
                    rows = set(range(h))
                elif w is not None:
                    taps = range(w.kernel)
                    rows = {r * w.stride - w.pad_begin + j * w.dilation for r in rows_out for j in taps}
                else:
                    rows = set(rows_out)
                need.setdefault(i, set()).update(r for r in rows if 0 <= r < h)
    return need


# -- properties ---------------------------------------------------------------------------------------


def check_stages(ref: Ref, stages: list[Stage], budget: int, align: int) -> None:
    # every step in exactly one stage; stages contiguous and in order
    assert [s.index for s in stages] == list(range(len(stages)))
    assert stages[0].first == 0 and stages[-1].last == ref.steps - 1
    for a, b in zip(stages, stages[1:]):
        assert b.first == a.last + 1
    for s in stages:
        assert s.first <= s.last
        # reloaded iff produced before S and consumed in S; spilled iff produced in S and
        # consumed after S or a model output
        tensors = range(len(ref.nbytes))
        used_in = {t for t in tensors if any(s.first <= c <= s.last for c in ref.consumers[t])}
        needed_after = {t for t in tensors if ref.is_output[t] or any(c > s.last for c in ref.consumers[t])}
        reload = {t for t in used_in if ref.producer[t] < s.first}
        spill = {t for t in needed_after if s.first <= ref.producer[t] <= s.last}
        assert s.inputs == sorted(reload)
        assert s.outputs == sorted(spill)
        # in terms of lifetimes [birth, death]: a reloaded tensor is live across the stage's
        # start, a spilled one beyond its end or a model output (necessary, not sufficient: a
        # tensor live across a stage that does not read it is not reloaded there)
        last = ref.steps - 1
        death = [last if ref.is_output[t] else max(ref.consumers[t], default=ref.producer[t]) for t in tensors]
        assert all(ref.producer[t] < s.first <= death[t] for t in reload)
        assert all(s.first <= ref.producer[t] <= s.last and (s.last < death[t] or ref.is_output[t]) for t in spill)
        assert s.peak == sweep(ref, s.first, s.last, align)


def steps_of(g: PlanGraph, stages: list[Stage]) -> list[PlanStep]:
    return [s for st_ in stages for s in g.steps[st_.first : st_.last + 1]]


def window_bytes(g: PlanGraph, t: int, rows: int, cols: tuple[int, int] | None) -> int:
    """Bytes of a band of `rows` rows and the columns [a, b) (None: every column) of tensor t."""
    shape = g.tensors[t].shape
    if cols is None or len(shape) != 4:
        return g.tensors[t].row_bytes * rows
    return g.tensors[t].row_bytes // shape[3] * rows * (cols[1] - cols[0])


def check_columns(
    g: PlanGraph, stages: list[Stage], tile: TilePlan, budget: int, align: int
) -> list[dict[int, tuple[int, int]]]:
    """2-D tiles: the column bands cover [0, W) of every output exactly once and, the generated
    windows being k x 1 (stride 1 along W), every tensor's columns are the output's. Returns the
    column ranges per column band ([{}]: full-width strips)."""
    if not tile.is_2d:
        assert (tile.num_tiles_w, tile.halo_w, tile.out_w) == (1, 0, 0)
        return [{}]
    event("2-D tiles")
    width = g.tensors[stages[-1].outputs[0]].shape[3]
    assert len(stages) == 1 and tile.out_w == width and tile.halo_w == 0
    assert tile.num_tiles_w == math.ceil(width / tile.tile_w) and 1 <= tile.tile_w <= width
    # chosen only where full-width one-row strips do not fit
    assert band_peak(g, stages[0], band_rows(g, stages[0], 1), align) > budget
    cols = axis_tile_ranges(g, stages, tile.tile_w, Axis.W)
    want = [(s, min(s + tile.tile_w, width)) for s in range(0, width, tile.tile_w)]
    for c in cols:
        assert all(rng == c[stages[-1].outputs[0]] for t, rng in c.items() if len(g.tensors[t].shape) == 4
                   and g.tensors[t].shape[3] == width)
    assert [c[stages[-1].outputs[0]] for c in cols] == want
    return cols


def check_tiling(g: PlanGraph, ref: Ref, plans: list[StagePlan], budget: int, align: int) -> None:
    plan = Plan(g, budget, align, plans, 0, 0)
    for group in groups(plan):
        tile = group[0].tile
        event(f"has a {group[0].strategy} stage")
        if tile is None:
            assert all(sp.strategy == "normal" for sp in group)
            continue
        stages = [sp.stage for sp in group]
        assert all(sp.tile == tile for sp in group)
        if tile.row_cache:  # no halo: replayed row by row instead (test_row_caches_*)
            event("has row caches")
            replay(g, stages, tile.tile_h)
            assert tile.peak == cached_peak(g, stages, tile.tile_h, align) and tile.cache > 0
            continue
        assert all(sp.strategy == ("chain" if len(group) > 1 else "tiled") for sp in group)
        assert (tile.chain >= 0) == (len(group) > 1)
        if len(group) == 1:
            assert tile.peak < stages[0].peak  # tiling is only chosen when it helps
        height = g.tensors[stages[-1].outputs[0]].height
        assert tile.out_h == height and tile.num_tiles == math.ceil(height / tile.tile_h)
        windows = [s.window for s in steps_of(g, stages) if s.window is not None]
        assert tile.halo == receptive_field(windows) - 1
        if len(stages) > 1:
            bound = chain_rows(g, stages, tile.tile_h)
        else:
            bound = [band_rows(g, stages[0], tile.tile_h)]
        tiles = tile_ranges(g, stages, tile.tile_h)
        assert len(tiles) == tile.num_tiles
        column_bands = check_columns(g, stages, tile, budget, align)
        read_inside = {i for s in steps_of(g, stages) for i in s.inputs}
        # OUTPUT ranges: consecutive, no gap, no overlap, cover [0, H)
        for o in stages[-1].outputs:
            want = [(s, min(s + tile.tile_h, height)) for s in range(0, height, tile.tile_h)]
            got = [r[o] for r in tiles]
            if o in read_inside:  # also read inside the stage: computed with that halo
                assert all(g_[0] <= w[0] and w[1] <= g_[1] for g_, w in zip(got, want))
            else:
                assert got == want
        strides_one = all(w.stride == 1 for w in windows)
        dilation_one = all(w.dilation == 1 for w in windows)
        whole = rows_read(g, stages, (0, height))
        for k, r in enumerate(tiles):
            out = (k * tile.tile_h, min((k + 1) * tile.tile_h, height))
            read = rows_read(g, stages, out)
            for t, rows in read.items():
                if not rows:
                    continue
                # sound: the band holds every row the tile reads; tight without dilation
                assert r[t][0] <= min(rows) and max(rows) < r[t][1], (t, r[t], min(rows), max(rows))
                if dilation_one:
                    assert r[t] == (min(rows), max(rows) + 1)
            # the band sizes the plan budgets for bound the exact ranges ...
            for st_, rows_bound in zip(stages, bound):
                for t, (a, b) in r.items():
                    if t in rows_bound:
                        assert b - a <= rows_bound[t]
                # ... so the real band, sized from the exact ranges, fits in the planned peak
                # (2-D tiles: every column band of the row band)
                for c in column_bands:
                    exact = {t: window_bytes(g, t, b - a, c.get(t)) for t, (a, b) in r.items()}
                    assert sweep(ref, st_.first, st_.last, align, exact) <= tile.peak
        # stage inputs: the first tile starts at row 0, the last ends where the rows read end
        for t in stages[0].inputs:
            if len(g.tensors[t].shape) < 3 or not whole.get(t):
                continue
            assert tiles[0][t][0] == 0
            assert tiles[-1][t][1] == max(whole[t]) + 1 or not dilation_one
            assert max(r[t][1] for r in tiles) == tiles[-1][t][1]
            if strides_one:
                assert tiles[-1][t][1] == g.tensors[t].height
    if plan.overflow == 0:
        assert all(sp.scheduled_peak <= budget for sp in plans)


@deterministic(100)
@given(text=graph_texts(), align=ALIGNS)
def test_lifetimes_and_timeline_match_the_ir(text: str, align: int) -> None:
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    assert len(g.steps) == ref.steps
    last = ref.steps - 1
    for t, span in enumerate(lifetimes(g)):
        death = last if ref.is_output[t] else max(ref.consumers[t], default=ref.producer[t])
        assert (span.birth, span.death) == (ref.producer[t], max(death, ref.producer[t]))
    assert timeline(g, align).peak == sweep(ref, 0, last, align)


@deterministic(150)
@given(text=graph_texts(), align=ALIGNS, fraction=st.floats(0.05, 1.2))
def test_temporal_stages(text: str, align: int, fraction: float) -> None:
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    budget = max(1, int(sweep(ref, 0, ref.steps - 1, align) * fraction))
    stages = partition_temporal(g, budget, align)
    check_stages(ref, stages, budget, align)
    for s, nxt in zip(stages, stages[1:]):
        # greedy: a stage of several ops fits, and it was cut only because the next op would
        # not; an op alone over the budget is a stage of its own
        assert s.first == s.last or s.peak <= budget
        assert sweep(ref, s.first, nxt.first, align) > budget
    assert stages[-1].first == stages[-1].last or stages[-1].peak <= budget


@deterministic(200)
@given(text=graph_texts(), align=ALIGNS, fraction=st.floats(0.05, 1.2))
def test_plan_tiles_fit_and_cover(text: str, align: int, fraction: float) -> None:
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    budget = max(1, int(sweep(ref, 0, ref.steps - 1, align) * fraction))
    plan = plan_memory(g, budget, align)
    check_stages(ref, [sp.stage for sp in plan.stages], budget, align)
    check_tiling(g, ref, plan.stages, budget, align)


@deterministic(200)
@given(text=graph_texts(), align=ALIGNS, data=st.data())
def test_tiling_on_arbitrary_stages(text: str, align: int, data: st.DataObject) -> None:
    """Stages of several ops, as partition-spatial/tile-chains see them when `tgr.stages`
    comes from elsewhere (another budget, or written by hand)."""
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    n = ref.steps
    cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    bounds = list(zip([0, *cuts], [c - 1 for c in cuts] + [n - 1]))
    stages = [make_stage(g, i, a, b, align) for i, (a, b) in enumerate(bounds)]
    check_stages(ref, stages, 1, align)
    budget = data.draw(st.integers(1, max(s.peak for s in stages)))
    check_tiling(g, ref, assign_strategies(g, stages, budget, align), budget, align)


@st.composite
def single_window(draw: st.DrawFn) -> tuple[str, int, int, int, int]:
    """One spatial op on 1xCxHxW (maybe after a relu): text, kernel, stride, dilation, pad_begin."""
    b = Builder()
    h = draw(st.integers(4, 24))
    x = b.new((1, draw(st.integers(1, 3)), h, draw(st.integers(1, 3))), arg=True)
    if draw(st.booleans()):
        x = b.simple("relu", [x], b.shapes[x])
    kind = draw(st.sampled_from(["conv", "depthwise_conv", "max_pool"]))
    k, s, d, pb, pe = draw(window_params(h, pool=kind == "max_pool"))
    b.window(x, kind, draw(st.integers(1, 4)), k, s, d, pb, pe)
    return b.text(), k, s, d, pb


@deterministic(200)
@given(case=single_window(), align=ALIGNS, fraction=st.floats(0.05, 0.99))
def test_single_window_halo_and_overlap(
    case: tuple[str, int, int, int, int], align: int, fraction: float
) -> None:
    text, k, s, d, pb = case
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    eff = d * (k - 1) + 1
    step = g.steps[-1]
    x, y = step.inputs[0], step.outputs[0]
    h_in = g.tensors[x].height
    stage = make_stage(g, 0, step.index, step.index, align)
    budget = max(1, int(stage.peak * fraction))
    [sp] = assign_strategies(g, [stage], budget, align)
    event(f"{sp.strategy}, stride {s}, dilation {d}")
    if sp.tile is None:
        return
    tile = sp.tile
    assert tile.halo == receptive_field([step.window]) - 1 == eff - 1  # type: ignore[list-item]
    tiles = tile_ranges(g, [stage], tile.tile_h)
    for a, b in zip(tiles, tiles[1:]):
        boundary = a[y][1]  # first output row of the next tile
        # tile k reads up to (boundary - 1) * s - pb + eff, tile k + 1 from boundary * s - pb
        end_k = (boundary - 1) * s - pb + eff
        start_next = boundary * s - pb
        assert a[x][1] == min(h_in, end_k) and b[x][0] == max(0, start_next)
        overlap = a[x][1] - b[x][0]  # negative: rows between the two bands are never read
        assert overlap == min(h_in, end_k) - max(0, start_next)
        if start_next >= 0 and end_k <= h_in:
            assert overlap == eff - s
        assert overlap <= tile.halo
    check_tiling(g, ref, [sp], budget, align)


@deterministic(80)
@given(text=graph_texts(), align=ALIGNS, fractions=st.lists(st.floats(0.02, 1.2), min_size=2, max_size=5))
def test_bigger_budget_never_more_stages(text: str, align: int, fractions: list[float]) -> None:
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    peak = sweep(ref, 0, ref.steps - 1, align)
    budgets = sorted({max(1, int(peak * f)) for f in fractions})
    counts = [len(partition_temporal(g, b, align)) for b in budgets]
    assert counts == sorted(counts, reverse=True), (budgets, counts)


@deterministic(60)
@given(text=graph_texts(), align=ALIGNS, fraction=st.floats(0.05, 1.2))
def test_tigris_plan_pass_writes_the_plan(text: str, align: int, fraction: float) -> None:
    """The pass pipeline writes what plan_memory computes; the attributes verify and round-trip."""
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    budget = max(1, int(sweep(ref, 0, ref.steps - 1, align) * fraction))
    plan = plan_memory(g, budget, align)
    TigrisPlanPass(budget, align).apply(Context(), module)
    module.verify()
    func = main_func(module)
    memory = func.attributes["tgr.memory"]
    assert isinstance(memory, MemoryAttr)
    assert (memory.peak.data, memory.step.data) == (plan.unscheduled_peak, plan.peak_step)
    assert memory.align.data == align
    attrs = func.attributes["tgr.stages"]
    assert isinstance(attrs, ArrayAttr) and len(attrs.data) == len(plan.stages)
    for attr, sp in zip(attrs.data, plan.stages):
        assert isinstance(attr, StageAttr)
        s = sp.stage
        assert (attr.index.data, attr.first_step.data, attr.last_step.data) == (s.index, s.first, s.last)
        assert attr.peak.data == s.peak
        assert [int(v) for v in attr.inputs.get_values()] == s.inputs
        assert [int(v) for v in attr.outputs.get_values()] == s.outputs
        if sp.tile is None:
            assert isinstance(attr.tile, NoneAttr)
        else:
            assert isinstance(attr.tile, TilePlanAttr)
            got = (attr.tile.tile_h, attr.tile.num_tiles, attr.tile.halo, attr.tile.out_h, attr.tile.chain)
            want = (sp.tile.tile_h, sp.tile.num_tiles, sp.tile.halo, sp.tile.out_h, sp.tile.chain)
            assert tuple(f.data for f in got) == want
    spans = lifetimes(g)
    for step in g.steps:
        assert step.op is not None
        stage = step.op.attributes["tgr.stage"]
        assert isinstance(stage, IntegerAttr)
        [owner] = [sp.stage for sp in plan.stages if sp.stage.first <= step.index <= sp.stage.last]
        assert stage.value.data == owner.index
        life = step.op.attributes["tgr.lifetime"]
        assert isinstance(life, LifetimeAttr)
        span = spans[step.outputs[0]]
        assert (life.birth.data, life.death.data) == (span.birth, span.death)
    # printed and parsed again, the plan is the same
    again = parse(str(module))
    assert main_func(again).attributes["tgr.stages"] == attrs


@st.composite
def chain_texts(draw: st.DrawFn) -> str:
    """Straight chains of same-shape windows (pads keep H) and relus: where the chains are."""
    b = Builder()
    x = b.new((1, draw(st.integers(1, 3)), draw(st.integers(4, 16)), draw(st.integers(1, 3))), arg=True)
    for _ in range(draw(st.integers(2, 4))):
        kind = draw(st.sampled_from(["conv", "depthwise_conv", "max_pool", "relu"]))
        if kind == "relu":
            x = b.simple("relu", [x], b.shapes[x])
            continue
        k = draw(st.sampled_from([2, 3]) if kind == "max_pool" else st.sampled_from([1, 3, 5]))
        x = b.window(x, kind, b.shapes[x][1], k, 1, 1, (k - 1) // 2, k // 2)
    return b.text()


@deterministic(120)
@given(text=st.one_of(graph_texts(), chain_texts()), align=ALIGNS, data=st.data())
def test_minimum_budget_is_the_overflow_threshold(text: str, align: int, data: st.DataObject) -> None:
    """minimum_budget is the largest single-op need (one-row bands where tileable). At or above it
    every op fits on its own, and a chain that would not fits stage by stage: no overflow. Below
    it that op cannot fit in any plan (a chain only widens its band): overflow."""
    g = build_plan_graph(parse(text))
    low = minimum_budget(g, align)
    for budget in {max(1, low - 1), low, low + 1, data.draw(st.integers(1, 3 * low))}:
        assert (plan_memory(g, budget, align).overflow == 0) == (budget >= low), (budget, low)


# -- row caches (transforms/plan/row_cache.py) against an independent replay of their rule -------
#
# For random groups of stages and tile heights, the tiles the planner derives are replayed row by
# row: every kernel tap of every row an op computes is a row its input holds in that tile (inside
# its band, computed or loaded in this tile or an earlier one, before the op runs), no row is
# computed or loaded twice, cached bands only move down and keep rows of the previous band, and
# each tile's output rows are held when it ends; the planned peak and reads are recomputed.


def taps(g: PlanGraph, step: PlanStep, tensor: int, rows: range) -> set[int]:
    """Rows of `tensor` that output rows `rows` of `step` read, tap by tap (no range algebra)."""
    t = g.tensors[tensor]
    if len(t.shape) < 3 or t.height <= 1:
        return set(range(t.height))
    w = step.window
    if w is not None:
        found = {r * w.stride - w.pad_begin + j * w.dilation for r in rows for j in range(w.kernel)}
    else:
        found = set(rows)
    return {r for r in found if 0 <= r < t.height}


def replay(g: PlanGraph, stages: list[Stage], tile_h: int) -> None:
    """The properties of the module docstring for one group and tile height."""
    steps = [s for st_ in stages for s in g.steps[st_.first : st_.last + 1]]
    produced = {o: s for s in steps for o in s.outputs}
    cached = cached_tensors(g, stages)
    tiles = cached_tiles(g, stages, tile_h)
    height = g.tensors[stages[-1].outputs[0]].height
    assert len(tiles) == -(-height // tile_h)
    made: dict[int, set[int]] = {}  # rows of each tensor computed or loaded so far
    previous: dict[int, tuple[int, int]] = {}
    if not slots_hold(g, stages, tile_h):
        event("a cached band moves back: not planned")
        return
    for k, tile in enumerate(tiles):
        for t, (a, b) in tile.need.items():
            if t in cached and t in previous:
                pa, pb = previous[t]
                assert a >= pa and b >= pb, "a cached band never moves up"
                kept = set(range(a, min(b, pb)))
                assert kept <= set(range(pa, pb)), "kept rows were in the previous band"
        for t, (a, b) in tile.new.items():
            rows = set(range(a, b))
            assert not rows & made.get(t, set()), f"tensor {t}: rows {sorted(rows & made.get(t, set()))} again"
            assert tile.need[t][0] <= a and b <= tile.need[t][1]
        loaded = {t: set(range(*r)) for t, r in tile.new.items() if t not in produced}
        for t, rows in loaded.items():
            made.setdefault(t, set()).update(rows)
        for step in steps:  # program order: an op runs after the ops it reads
            o = step.outputs[0]
            if o not in tile.new:
                continue
            out_rows = range(*tile.new[o])
            for i in step.inputs:
                if i not in tile.need:
                    assert g.tensors[i].producer < 0 or i not in produced  # a constant-free graph: every input has a band
                    continue
                need = taps(g, step, i, out_rows)
                a, b = tile.need[i]
                held = made.get(i, set()) & set(range(a, b))
                assert need <= held, (k, step.name, i, sorted(need - held))
            for out in step.outputs:
                made.setdefault(out, set()).update(out_rows)
        out_rows = set(range(k * tile_h, min((k + 1) * tile_h, height)))
        for o in stages[-1].outputs:
            a, b = tile.need[o]
            assert out_rows <= made[o] & set(range(a, b)), "the tile's output rows are held to be written"
        previous = {t: r for t, r in tile.need.items() if t in cached}
    # every row computed once: no recompute
    for t, s in produced.items():
        if g.tensors[t].height > 1 and t in made:
            assert len(made[t]) <= g.tensors[t].height
    # the reads the planner counts are the rows loaded
    inputs = set(stages[0].inputs)
    rows_loaded = {t: 0 for t in inputs}
    for tile in tiles:
        for t, (a, b) in tile.new.items():
            if t in inputs:
                rows_loaded[t] += b - a
    assert cached_reads(g, stages, tile_h) == sum(g.tensors[t].row_bytes * n for t, n in rows_loaded.items())
    for t in inputs & cached:
        assert rows_loaded[t] <= g.tensors[t].height, "a cached input row is loaded once"


def group_of(g: PlanGraph, data: st.DataObject, align: int) -> list[Stage]:
    """A random tileable lone stage, or a random run of stages as a chain would be."""
    n = len(g.steps)
    first = data.draw(st.integers(0, n - 1))
    last = data.draw(st.integers(first, n - 1))
    cuts = sorted(data.draw(st.sets(st.integers(first + 1, last), max_size=3))) if last > first else []
    bounds = list(zip([first, *cuts], [c - 1 for c in cuts] + [last]))
    return [make_stage(g, i, a, b, align) for i, (a, b) in enumerate(bounds)]


@deterministic(250)
@given(text=st.one_of(graph_texts(), chain_texts()), align=ALIGNS, data=st.data())
def test_row_caches_compute_and_load_every_row_once(text: str, align: int, data: st.DataObject) -> None:
    g = build_plan_graph(parse(text))
    stages = group_of(g, data, align)
    if not all(is_tileable(g, s) for s in stages) or not cacheable(g, stages):
        event("not a cacheable group")
        return
    if len({g.tensors[t].height for t in stages[-1].outputs}) != 1:
        return
    event(f"{len(stages)} stage(s), {len(cached_tensors(g, stages))} cached")
    height = g.tensors[stages[-1].outputs[0]].height
    replay(g, stages, data.draw(st.integers(1, height)))


@deterministic(150)
@given(text=st.one_of(graph_texts(), chain_texts()), align=ALIGNS, data=st.data())
def test_row_cache_peak_holds_every_tile(text: str, align: int, data: st.DataObject) -> None:
    """The planned peak is the slots plus the largest timeline of the other bands: recomputed
    here with the reference sweep over each tile's exact bands (cached tensors in their slots)."""
    module = parse(text)
    g, ref = build_plan_graph(module), reference(module)
    stages = group_of(g, data, align)
    if not all(is_tileable(g, s) for s in stages) or not cacheable(g, stages):
        return
    height = g.tensors[stages[-1].outputs[0]].height
    tile_h = data.draw(st.integers(1, height))
    cached = cached_tensors(g, stages)
    slots = slot_rows(g, stages, tile_h)
    assert set(slots) <= cached
    assert cache_bytes(g, stages, tile_h, align) == sum(align_up(g.tensors[t].row_bytes * r, align)
                                                        for t, r in slots.items())  # fmt: skip
    worst = 0
    for tile in cached_tiles(g, stages, tile_h):
        for t, (a, b) in tile.need.items():
            if t in cached:
                assert b - a <= slots[t]
        # a tensor of the group without a band in this tile is not in the arena (nothing of the
        # tile touches it); a cached one is in its slot
        touched = {t for st_ in stages for s in g.steps[st_.first : st_.last + 1] for t in (*s.inputs, *s.outputs)}
        sizes = {t: 0 for t in touched}
        sizes |= {t: g.tensors[t].row_bytes * (b - a) for t, (a, b) in tile.need.items() if t not in cached}
        for st_ in stages:
            worst = max(worst, sweep(ref, st_.first, st_.last, align, sizes))
    assert cached_peak(g, stages, tile_h, align) == cache_bytes(g, stages, tile_h, align) + worst


RESIDUAL_BLOCK = """
func.func @main(%x: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x4xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x4xf32>
  %y = tgr.add %c2, %x : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  func.return %y : tensor<1x2x8x4xf32>
}
"""


def test_residual_block_by_hand() -> None:
    # Tensors 0 x, 1 c1, 2 c2, 3 y; rows of 2 x 4 x 4 = 32 bytes, 8 rows. x and c1 are read by
    # 3x3 windows (stride 1): cached; c2 and y are not. Tiles of 2 output rows, 4 tiles:
    #   tile 0: y [0,2), c2 [0,2) (the add), c1 needs [0,3) (c2's window, the pad clamps) all
    #           new; x needs [0,4) for c1's rows [0,3) and [0,2) for the add: band [0,4), new.
    #   tile 1: y [2,4), c2 [2,4), c1 needs [1,5): new [3,5); x: c1's new rows [3,5) read
    #           [2,6), the add [2,4): band [2,6), new [4,6).
    #   tile 2: y [4,6), c2 [4,6), c1 [3,7) new [5,7); x band [4,8), new [6,8).
    #   tile 3: y [6,8), c2 [6,8), c1 [5,8) new [7,8); x: c1's row 7 reads [6,8), the add
    #           [6,8): band [6,8), nothing new.
    # Slots: x 4 rows, c1 4 rows (tile 1 and 2): 128 + 128 bytes. x is loaded once: 8 rows.
    g = build_plan_graph(parse(RESIDUAL_BLOCK))
    stage = make_stage(g, 0, 0, 2, 16)
    assert cached_tensors(g, [stage]) == {0, 1}
    tiles = cached_tiles(g, [stage], 2)
    assert [t.need[1] for t in tiles] == [(0, 3), (1, 5), (3, 7), (5, 8)]
    assert [t.new.get(1) for t in tiles] == [(0, 3), (3, 5), (5, 7), (7, 8)]
    assert [t.need[0] for t in tiles] == [(0, 4), (2, 6), (4, 8), (6, 8)]
    assert [t.new.get(0) for t in tiles] == [(0, 4), (4, 6), (6, 8), None]
    assert slot_rows(g, [stage], 2) == {0: 4, 1: 4}
    assert cache_bytes(g, [stage], 2, 16) == 256
    assert cached_reads(g, [stage], 2) == 8 * 32
    # Peak: the slots, plus the bands of c2 (2 rows, 64) and y (2 rows, 64) live at the add:
    # 256 + 128 = 384. plan_cached at budget 384 takes tile_h 2 (tile_h 3: slots x 5 rows
    # and c1 5 rows = 320, plus c2 and y 3 rows each = 192: 512 > 384).
    assert cached_peak(g, [stage], 2, 16) == 384
    tile = plan_cached(g, [stage], 384, 16)
    assert tile is not None and (tile.tile_h, tile.num_tiles, tile.peak, tile.cache) == (2, 4, 384, 256)
