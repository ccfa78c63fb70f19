"""`choose_plan_budget`: the budget to plan at when weights are LZ4-compressed.

group-weights{compress=lz4} can only put into `fast_reserved` what the plan leaves of the arena.
A plan made at the full budget leaves little: partition-temporal fills each stage up to the
budget, so a plan of several stages leaves a few KiB (0 to 8 KiB over the zoo at 16K..512K) and
almost every weight would stay uncompressed. So, with LZ4, tigris-compile re-plans at budget - R,
reserving R for the weights: the plan is the one an uncompressed compile makes for that smaller
arena, and every stage still fits beside the reserve by construction.

Choice of R: 0, 1/8, 1/4, 3/8 or 1/2 of the budget, whichever stores the weights in the fewest bytes
(`pack_lz4`, the rule group-weights applies, priced by `stored_bytes` as the writer lays it out). A larger
reserve costs stages (more spills, reloads and halo recomputation at run time), so it must save
more than 1/64 of the weight bytes over the best smaller one, and a reserve whose plan overflows
its own smaller budget is not tried. Dense float or int8 weights, which LZ4 barely shrinks, thus
keep the plan at the full budget (their weights in the blob, read in place); magnitude-pruned
weights get the reserve that holds most of them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tigris.dialects.tgr.weight import WeightOp
from tigris.transforms.lower.group_weights import pack_lz4, stored_bytes, weight_bytes
from tigris.transforms.lower.weight_reserve import reserve_capacity
from tigris.transforms.plan.graph import build_plan_graph, main_func
from tigris.transforms.plan.planner import plan_memory

RESERVE_EIGHTHS = (0, 1, 2, 3, 4)
"""Reserves tried, in eighths of the budget: at most half, beyond which stages multiply."""

MIN_GAIN = 64
"""A larger reserve must save more than (weight bytes) / MIN_GAIN over the best smaller one."""


def choose_plan_budget(module: ModuleOp, budget: int, align: int) -> int:
    """The budget to plan at (`budget` minus the chosen reserve) for group-weights{compress=lz4
    budget=`budget`}; the weights must be final (after layout-nhwc)."""
    graph = build_plan_graph(module)
    step_of = {step.op: step.index for step in graph.steps}
    weights = [op for op in main_func(module).walk() if isinstance(op, WeightOp)]
    payloads = [weight_bytes(w) for w in weights]
    readers = [{step_of[u.operation] for u in w.output.uses if u.operation in step_of} for w in weights]
    min_gain = sum(map(len, payloads)) // MIN_GAIN
    best_budget, best_bytes = budget, None
    for eighths in RESERVE_EIGHTHS:
        at = budget - budget * eighths // 8
        planned = plan_memory(graph, at, align).stages  # the stages tigris-plan{budget=at} cuts
        stages = [p.stage for p in planned]
        peaks = [p.scheduled_peak for p in planned]
        if eighths and max(peaks, default=0) > at:
            continue
        stage_of = {step: s.index for s in stages for step in range(s.first, s.last + 1)}
        blocks = pack_lz4(payloads, [{stage_of[s] for s in steps} for steps in readers],
                          reserve_capacity(budget, peaks, align))
        size = stored_bytes(payloads, blocks)
        if best_bytes is None or best_bytes - size > min_gain:
            best_budget, best_bytes = at, size
    return best_budget
