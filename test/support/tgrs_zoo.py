"""`.tgrs` plans of the test-model zoo, compiled once per test session.

`zoo_plan(path, budget, variant)` compiles an ONNX model of the `model_zoo` fixture with
`tigris.tools.cli.compile_bytes`; the result is cached by arguments, so the C loader's
test and its fuzz test (which seeds from some of these plans) compile each plan once.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

VARIANTS = {
    "none": {"compress": "none"},
    "lz4": {"compress": "lz4"},
    "xip": {"compress": "none", "xip": True},
}
"""How the weights are stored: raw blocks, LZ4 blocks, or raw and read in place (XIP)."""


@cache
def _compile(path: str, budget: int, variant: str) -> bytes:
    from tigris.tools.cli import compile_bytes

    return compile_bytes(path, budget, **VARIANTS[variant])  # type: ignore[arg-type]


def zoo_plan(path: Path | str, budget: int, variant: str) -> bytes:
    """The plan of one zoo model at a fast-memory budget, stored as `variant` (VARIANTS)."""
    return _compile(str(path), budget, variant)
