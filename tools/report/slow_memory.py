"""Slow memory (PSRAM): the most bytes it holds at once during one inference.

spec/memory-model.md: the caller puts the model inputs in slow memory before the
run and reads the outputs there after it; between stages the runtime spills stage
outputs there and, after each stage, reclaims the dead tensors and compacts it. So,
counting in stage groups (a chain runs as one group and keeps its links in SRAM, see
`planner.groups`), exactly as the runtime's executor frees (`free_dead`):

- a model input is held from the start to the last group that reads it (it is dead
  after that, like any other tensor: the runtime reclaims it), or to the end if it is
  also a model output;
- a tensor a group spills (the outputs of its last stage) is held from that group
  to the last group that reads it, both inclusive, or to the end if it is a model
  output: while a group runs, the inputs it reads and the outputs it writes
  coexist in slow memory (a tile loop interleaves them), the same inclusive rule
  the fast-arena timeline uses for a step's inputs and outputs;
- every tensor takes its size padded to the alignment, as in the arena.

The peak is the largest sum over groups; it is the runtime's `slow_peak` exactly,
except that a stage over the budget also puts tensors it produces that do not fit the
arena in slow memory, which the runtime counts on top (its allocator decides which).
A single-stage untiled plan needs no slow memory at all (`needs_slow_memory`); its
peak is then just the inputs plus outputs the host keeps wherever it likes.
"""

from __future__ import annotations

from tigris.transforms.plan.memory import align_up
from tigris.transforms.plan.planner import Plan, groups


def slow_peak(plan: Plan, *, model_io: bool = True) -> int:
    """The slow buffer's peak; `model_io=False` leaves the model's inputs and outputs out:
    what the slow buffer holds between stages (`between_stages`)."""
    graph = plan.graph
    runs = groups(plan)
    last = max(len(runs) - 1, 0)
    group_of_step = {
        step: k
        for k, run in enumerate(runs)
        for sp in run
        for step in range(sp.stage.first, sp.stage.last + 1)
    }
    held = [0] * (last + 1)

    def hold(tensor: int, start: int, end: int) -> None:
        if not model_io and (graph.tensors[tensor].producer < 0 or graph.tensors[tensor].is_output):
            return
        size = align_up(graph.tensors[tensor].nbytes, plan.align)
        for k in range(start, end + 1):
            held[k] += size

    def end(index: int, default: int) -> int:
        t = graph.tensors[index]
        return last if t.is_output else max((group_of_step[c] for c in t.consumers), default=default)

    for t in graph.tensors:
        if t.producer < 0:
            hold(t.index, 0, end(t.index, 0))
    for k, run in enumerate(runs):
        for index in run[-1].stage.outputs:
            hold(index, k, end(index, k))
    return max(held)


def between_stages(plan: Plan) -> int:
    """The most bytes of tensors passed between stages (spilled by one group, reloaded by a
    later one) held at once: the slow buffer's peak without the model's inputs and outputs.
    Without PSRAM (`sram_only.py`) they are SRAM the plan needs beside its arena."""
    return slow_peak(plan, model_io=False)


def model_io_bytes(plan: Plan) -> int:
    """The model's inputs and outputs, each padded to the alignment as in the slow buffer:
    the buffers the caller fills and reads."""
    return sum(align_up(t.nbytes, plan.align) for t in plan.graph.tensors if t.producer < 0 or t.is_output)


def needs_slow_memory(plan: Plan) -> bool:
    """spec/memory-model.md: PSRAM is required once anything spills or is tiled from it."""
    return len(plan.stages) > 1 or any(sp.tile is not None for sp in plan.stages)
