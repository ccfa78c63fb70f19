"""partition-temporal{cuts=greedy}: the greedy forward pass of spec/pipeline.md section 5 (the
default cuts are by shortest path, `cuts.py`, which starts from this partition).

Ops join the current stage in order; when one would push the stage's peak over the
budget, the stage is cut before it. An op that alone exceeds the budget forms its
own stage (spatial tiling or slow-memory overflow deals with it later).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tigris.transforms.plan.graph import PlanGraph
from tigris.transforms.plan.memory import stage_intervals, timeline


@dataclass
class Stage:
    index: int
    first: int
    last: int
    peak: int
    inputs: list[int] = field(default_factory=list)  # tensors reloaded from slow memory
    outputs: list[int] = field(default_factory=list)  # tensors spilled to slow memory


def span_key(stages: list[Stage]) -> tuple[object, ...]:
    """What identifies a group of stages (a stage, a chain) in the plan graph's memo."""
    return tuple((st.first, st.last, tuple(st.outputs)) for st in stages)


def partition_temporal(graph: PlanGraph, budget: int, align: int) -> list[Stage]:
    bounds: list[tuple[int, int]] = []
    first = 0
    for step in range(len(graph.steps)):
        if step > first and timeline(graph, align, first, step).peak > budget:
            bounds.append((first, step - 1))
            first = step
    if graph.steps:
        bounds.append((first, graph.last_step))
    return [make_stage(graph, i, a, b, align) for i, (a, b) in enumerate(bounds)]


def make_stage(graph: PlanGraph, index: int, first: int, last: int, align: int) -> Stage:
    intervals = stage_intervals(graph, first, last)
    inputs = sorted(t for t in intervals if graph.tensors[t].producer < first)
    outputs = sorted(
        t
        for t in intervals
        if graph.tensors[t].producer >= first
        and (graph.tensors[t].is_output or any(c > last for c in graph.tensors[t].consumers))
    )
    return Stage(index, first, last, timeline(graph, align, first, last).peak, inputs, outputs)
