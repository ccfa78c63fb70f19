"""SRAM-only plans (`-m FAST+0`, issue G3 item 3): a device with no PSRAM.

Without slow memory the runtime's slow buffer is carved from the same SRAM as the fast arena,
so what a plan passes between stages (a stage group's spilled outputs, held until the last
group that reloads them: `slow_memory.between_stages`) costs SRAM like the arena does. An
SRAM-only budget T therefore holds

    arena (the plan's peak)  +  tensors between stages  <=  T

beside the model's own input and output buffers, which the caller fills and reads (a camera's
frame, a result array) and which are not counted in T, as the published SRAM-only figures
(MCUNetV2, msf-CNN) count them; `model_io_bytes` reports them. The runtime is given an arena
of the plan's peak and a slow buffer of `slow_peak` bytes (the I/O and the tensors between
stages), both in SRAM.

A larger arena cuts fewer stages and passes less between them, a smaller one leaves SRAM for
what is passed: the total is not monotone in the arena, so the search plans a grid of arenas
(`STEPS_PER_DOUBLING` per factor of two, rounded to the alignment), each with the planner's
usual objective (the least slow-memory traffic under `--max-recompute`; a larger
`--max-recompute` fuses more and so passes less):

- `smallest_sram_only`: upward from the smallest budget that needs no overflow until the budget
  alone reaches the best total found, then once more at the best plan's own peak: the smallest
  SRAM-only budget the grid finds, a search bound, not a proof;
- `sram_only_plan`: downward from T, the first (largest) budget whose plan fits T with what
  it passes between stages, so the plan keeps as much in the arena as T allows.

A plan's arena is its peak (the runtime runs a plan in an arena of its peak, whatever budget
it was compiled at), so a plan compiled at a grid budget may use less.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tigris.tools.report.slow_memory import between_stages, model_io_bytes, slow_peak
from tigris.transforms.plan.memory import align_up
from tigris.transforms.plan.planner import Plan

STEPS_PER_DOUBLING = 4
"""Arenas tried per factor of two (about 19% apart): finer finds totals a few percent smaller
for proportionally more plans."""


@dataclass(frozen=True)
class SramOnly:
    """A plan without PSRAM, planned at `budget` (the `-m` it is compiled at): `arena` is the
    fast arena it needs (its peak, to the alignment: the runtime runs a plan in an arena of
    its peak), `between` the SRAM the tensors between its stages take at most; `total` what it
    needs of the SRAM-only budget."""

    budget: int
    arena: int
    between: int
    model_io: int  # the model's input and output buffers (not part of the budget)
    slow_buffer: int  # what the runtime's slow buffer must hold: I/O and tensors between stages
    traffic: int  # bytes copied between the arena and the slow buffer per inference
    stages: int

    @property
    def total(self) -> int:
        return self.arena + self.between


def sram_only_of(plan: Plan) -> SramOnly:
    return SramOnly(plan.budget, align_up(plan.scheduled_peak, plan.align), between_stages(plan),
                    model_io_bytes(plan), slow_peak(plan), plan.traffic.written + plan.traffic.read,
                    len(plan.stages))


def _grid(start: int, align: int) -> Iterator[int]:
    """Budgets from `start` up, each about 2^(1/STEPS_PER_DOUBLING) times the last."""
    k, last = 0, 0
    while True:
        budget = align_up(max(int(start * 2 ** (k / STEPS_PER_DOUBLING)), start), align)
        if budget > last:
            yield budget
            last = budget
        k += 1


def smallest_sram_only(plan_at: Callable[[int], Plan], graph_floor: int, align: int) -> SramOnly:
    """The smallest total the grid finds; `plan_at(budget)` plans (memoized by the caller),
    `graph_floor` is the smallest budget with no overflow (`smallest_fitting_budget`)."""
    best: SramOnly | None = None
    for budget in _grid(graph_floor, align):
        if best is not None and budget >= best.total:
            break
        plan = plan_at(budget)
        if plan.overflow:
            continue
        found = sram_only_of(plan)
        if best is None or found.total < best.total:
            best = found
    assert best is not None  # the grid reaches a budget where the model runs as one stage
    if best.arena < best.budget:  # planned again at the arena it uses, the plan may cut otherwise
        tighter = plan_at(best.arena)
        if not tighter.overflow and sram_only_of(tighter).total < best.total:
            best = sram_only_of(tighter)
    return best


def sram_only_plan(plan_at: Callable[[int], Plan], total: int, graph_floor: int, align: int) -> SramOnly | None:
    """The plan at the largest budget (of the grid, and `total` itself to the alignment) that
    fits `total` with the tensors it passes between stages; None when none does
    (`smallest_sram_only` then says what would)."""
    top = total // align * align
    budgets: list[int] = []
    for budget in _grid(graph_floor, align):
        if budget >= top:
            break
        budgets.append(budget)
    if top >= graph_floor:
        budgets.append(top)
    for budget in reversed(budgets):
        plan = plan_at(budget)
        if plan.overflow:
            continue
        found = sram_only_of(plan)
        if found.total <= total:
            return found
    return None
