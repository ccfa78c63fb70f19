"""How much of the fast arena the LZ4 weight reserve (`fast_reserved`) may take beside a plan.

The runtime decompresses a stage's weight block into `fast_reserved`, a prefix of the arena that
every stage gives up: the bump pointer starts at it aligned up (tigris_mem_reset_fast). So the
reserve is what the hungriest stage leaves, counting a tiled or chained stage by its band peak
(`StoredPlan.scheduled_peaks`: the planner stored it in each `#tgr.tile_plan`).
"""

from __future__ import annotations


def reserve_capacity(budget: int, peaks: list[int], align: int) -> int:
    """Bytes fast_reserved may hold so that it, aligned up, plus every peak stays within `budget`
    (nothing when a stage overflows the budget already)."""
    slack = budget - max(peaks, default=0)
    return max(0, slack - slack % align)
