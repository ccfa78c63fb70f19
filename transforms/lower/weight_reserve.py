"""How much of the fast arena the LZ4 weight reserve (`fast_reserved`) may take beside a plan.

The runtime decompresses a stage's weight block into `fast_reserved`, a prefix of the arena that
every stage gives up: the bump pointer starts at it aligned up (tigris_mem_reset_fast). So the
reserve is what the hungriest stage leaves, counting a tiled or chained stage by its band peak,
which the IR does not store: `scheduled_peaks` recomputes it from the tile height as the planner
did, so neither the budget nor a re-plan is needed to read it back.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr
from xdsl.dialects.func import FuncOp

from tigris.dialects.tgr.attributes import MemoryAttr, StageAttr, TilePlanAttr
from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.passes import DEFAULT_ALIGN
from tigris.transforms.plan.planner import tile_peak
from tigris.transforms.plan.temporal import Stage


def reserve_capacity(budget: int, peaks: list[int], align: int) -> int:
    """Bytes fast_reserved may hold so that it, aligned up, plus every peak stays within `budget`
    (nothing when a stage overflows the budget already)."""
    slack = budget - max(peaks, default=0)
    return max(0, slack - slack % align)


def plan_align(func: FuncOp) -> int:
    """The tensor alignment the plan was made with (memory-timeline records it)."""
    memory = func.attributes.get("tgr.memory")
    return memory.align.data if isinstance(memory, MemoryAttr) else DEFAULT_ALIGN


def scheduled_peaks(func: FuncOp, graph: PlanGraph) -> list[int]:
    """Each `#tgr.stage`'s scheduled peak: its peak, or the band peak of its tile plan (the whole
    chain's, for a stage of a chain)."""
    stages_attr = func.attributes.get("tgr.stages")
    listed = stages_attr.data if isinstance(stages_attr, ArrayAttr) else ()
    attrs = [a for a in listed if isinstance(a, StageAttr)]
    stages = [
        Stage(a.index.data, a.first_step.data, a.last_step.data, a.peak.data,
              [int(v) for v in a.inputs.get_values()], [int(v) for v in a.outputs.get_values()])
        for a in attrs
    ]  # fmt: skip
    align = plan_align(func)
    chain_peaks: dict[int, int] = {}
    peaks = []
    for attr, stage in zip(attrs, stages):
        tile = attr.tile
        if not isinstance(tile, TilePlanAttr):
            peaks.append(stage.peak)
        elif tile.chain.data < 0:
            peaks.append(tile_peak(graph, [stage], tile.tile_h.data, align))
        else:
            chain = tile.chain.data
            if chain not in chain_peaks:
                members = [s for a, s in zip(attrs, stages) if a.tile == tile]
                chain_peaks[chain] = tile_peak(graph, members, tile.tile_h.data, align)
            peaks.append(chain_peaks[chain])
    return peaks
