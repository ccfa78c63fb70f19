"""Phase lines on stderr for commands that take a while (`tigris analyze`, later `compile`).

A person watching a terminal wants to see that a large model is being imported, not a
silent prompt for several seconds; a script, a pipe or a CI log wants none of it, and
machine-readable output (`--json`) must stay exactly the document. So lines are written
only when the stream is a TTY and the caller has not turned them off; otherwise every
call is a no-op, and commands can call `phase` unconditionally.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """`phase("normalize")` prints `tigris analyze: [2/4] normalize (0.4 s)`, the
    seconds since the start; `done()` prints the total. `total` counts the phases, if known."""

    def __init__(self, prefix: str, total: int | None = None, *, stream: TextIO | None = None,
                 enabled: bool = True) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled and _is_tty(self.stream)
        self.prefix, self.total = prefix, total
        self._count = 0
        self._start = time.perf_counter()

    def phase(self, name: str) -> None:
        if not self.enabled:
            return
        self._count += 1
        step = f"{self._count}/{self.total}" if self.total else str(self._count)
        self._write(f"[{step}] {name} ({time.perf_counter() - self._start:.1f} s)")

    def done(self) -> None:
        if self.enabled and self._count:
            self._write(f"done in {time.perf_counter() - self._start:.1f} s")

    def _write(self, text: str) -> None:
        self.stream.write(f"{self.prefix}: {text}\n")
        self.stream.flush()


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False
