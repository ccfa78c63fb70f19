"""Flash size estimate: the weights plus the plan's records.

An ESTIMATE until the `.tgrs` emitter lands (emit/tgrs/); then the report should
take the real file size. The record sizes below are round guesses at the fixed-size
records DESIGN.md lists for the format; pools (shapes, names), quantization records
and weight alignment padding are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from tigris.transforms.plan.planner import Plan

HEADER_BYTES = 64
TENSOR_RECORD_BYTES = 32  # every tensor: activations and weights
OP_RECORD_BYTES = 32
STAGE_RECORD_BYTES = 32
TILE_PLAN_RECORD_BYTES = 16  # one per tiled stage, one per chain (its stages share it)


@dataclass(frozen=True)
class FlashEstimate:
    weight_bytes: int
    overhead_bytes: int

    @property
    def total(self) -> int:
        return self.weight_bytes + self.overhead_bytes


def estimate_flash(plan: Plan, weight_count: int, weight_bytes: int) -> FlashEstimate:
    tile_plans = sum(sp.strategy == "tiled" for sp in plan.stages) + plan.chains
    overhead = (
        HEADER_BYTES
        + TENSOR_RECORD_BYTES * (len(plan.graph.tensors) + weight_count)
        + OP_RECORD_BYTES * len(plan.graph.steps)
        + STAGE_RECORD_BYTES * len(plan.stages)
        + TILE_PLAN_RECORD_BYTES * tile_plans
    )
    return FlashEstimate(weight_bytes, overhead)
