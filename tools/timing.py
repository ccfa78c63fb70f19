"""Wall-time accounting for `tigris-opt --timing` and the compile-time benchmark.

MLIR's `-mlir-timing` is the model: nested timers (a named pipeline's passes sit
under it), timers of the same name under one parent merged, and a report with
each timer's share of the total, either as a tree in execution order or as a flat
list sorted by time. xDSL 0.74 only has `--time-passes`, which prints one
unsorted line per pass to stdout, without parsing, printing, nesting or a total.

Nested passes are found by wrapping `apply` on the pass classes for the duration
of a run (`Timing.instrument`): a composite pass such as `tigris-plan` or
`tigris-compile` calls its sub-passes directly, so a wrapper on the class is the
one place that sees them, and no pass has to know it is being timed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from xdsl.passes import ModulePass

RULE = "===" + "-" * 73 + "==="


@dataclass
class Timer:
    """One named timer: its accumulated seconds, how often it ran, its sub-timers."""

    name: str
    seconds: float = 0.0
    count: int = 0
    children: list[Timer] = field(default_factory=list)

    def child(self, name: str) -> Timer:
        """The sub-timer called `name`, created on first use (so repeats merge, in first-run order)."""
        for c in self.children:
            if c.name == name:
                return c
        self.children.append(Timer(name))
        return self.children[-1]

    def find(self, name: str) -> Timer | None:
        """The first timer called `name` in this subtree (depth first), if any."""
        for c in self.children:
            if c.name == name:
                return c
            found = c.find(name)
            if found is not None:
                return found
        return None

    def leaves(self) -> Iterator[Timer]:
        for c in self.children:
            if c.children:
                yield from c.leaves()
            else:
                yield c


class Timing:
    """A tree of timers under a root that spans from construction to `stop()`."""

    def __init__(self) -> None:
        self.root = Timer("Total")
        self._stack = [self.root]
        self._start = time.perf_counter()

    @contextmanager
    def scope(self, name: str) -> Iterator[Timer]:
        timer = self._stack[-1].child(name)
        self._stack.append(timer)
        start = time.perf_counter()
        try:
            yield timer
        finally:
            timer.seconds += time.perf_counter() - start
            timer.count += 1
            self._stack.pop()

    def stop(self) -> Timer:
        self.root.seconds = time.perf_counter() - self._start
        self.root.count = 1
        return self.root

    @contextmanager
    def instrument(self, pass_classes: Iterable[type[ModulePass]]) -> Iterator[None]:
        """Time every `apply` of these classes (nested calls become sub-timers) while inside.
        Only a class's own `apply` is wrapped: a subclass that inherits it is timed
        through its parent's wrapper, under its own name."""
        originals = {cls: cls.__dict__["apply"] for cls in pass_classes if "apply" in cls.__dict__}
        for cls, apply in originals.items():
            setattr(cls, "apply", self._timed(apply))
        try:
            yield
        finally:
            for cls, apply in originals.items():
                setattr(cls, "apply", apply)

    def _timed(self, apply: Any) -> Any:
        timing = self

        def timed_apply(self: ModulePass, ctx: Any, op: Any) -> None:
            if timing._stack[-1].name == self.name:  # `super().apply` of a timed pass: one timer
                return apply(self, ctx, op)
            with timing.scope(self.name):
                return apply(self, ctx, op)

        return timed_apply


def loaded_pass_classes() -> list[type[ModulePass]]:
    """Every ModulePass subclass imported so far (xDSL's and ours), parents first."""
    found: list[type[ModulePass]] = []
    todo = list(ModulePass.__subclasses__())
    while todo:
        cls = todo.pop(0)
        if cls not in found:
            found.append(cls)
            todo.extend(cls.__subclasses__())
    return found


def render(root: Timer, display: str = "tree") -> str:
    """MLIR's execution time report. `tree`: execution order, sub-timers indented under
    their parent; `list`: leaf timers merged by name, slowest first. Both end with
    `Rest` (time no timer covers) and `Total`."""
    total = root.seconds
    if display == "list":
        merged: dict[str, float] = {}
        for leaf in root.leaves():
            merged[leaf.name] = merged.get(leaf.name, 0.0) + leaf.seconds
        rows = sorted(((s, 0, n) for n, s in merged.items()), key=lambda r: -r[0])
        covered = sum(merged.values())
    elif display == "tree":
        rows = list(_tree_rows(root.children, 0))
        covered = sum(c.seconds for c in root.children)
    else:
        raise ValueError(f"unknown timing display '{display}'; use tree or list")
    rows += [(max(0.0, total - covered), 0, "Rest"), (total, 0, "Total")]
    lines = [
        RULE,
        "... Execution time report ...".center(len(RULE)).rstrip(),
        RULE,
        f"  Total Execution Time: {total:.4f} seconds",
        "",
        "  ----Wall Time----  ----Name----",
    ]
    for seconds, depth, name in rows:
        pct = 100.0 * seconds / total if total > 0 else 0.0
        lines.append(f"  {seconds:8.4f} ({pct:5.1f}%)  {'  ' * depth}{name}")
    return "\n".join(lines) + "\n"


def _tree_rows(timers: list[Timer], depth: int) -> Iterator[tuple[float, int, str]]:
    for t in timers:
        yield t.seconds, depth, t.name if t.count <= 1 else f"{t.name} ({t.count}x)"
        yield from _tree_rows(t.children, depth + 1)
