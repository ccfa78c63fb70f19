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
    "greedy": {"compress": "none", "cuts": "greedy"},
}
"""How the weights are stored: raw blocks, LZ4 blocks, or raw and read in place (XIP); `greedy`:
raw, with the greedy's stage cuts (one window per tiled stage, chains between them: the default
cuts fuse them)."""

REPRESENTATIVE = (
    "mobilenet_v3", "conv1d", "resnet8",  # float: row bands, 2-D and reduction tiles, chains; 1-D; softmax
    "mobilenet_v2_int8", "unet_int8", "keras_mobilenet_v2_int8",  # int8: chains of 2 and 3+, resize, concat, pad
    "silu_ops_int8", "dense_autoencoder_int8", "pytorch_idioms_int8", "shufflenet_v2_int8",  # tables, (de)quantize, gather, slice
)  # fmt: skip
"""The zoo models CI runs the per-model format checks on (test_compile's round trip, the C
loader's fields): together they hold every op type of the zoo (test_compile checks it), float
and int8, and at 8 KiB every tile-plan kind (row bands, 2-D, reduction, chains of 2 and 3+) and
lookup tables. bench/e2e_sweep.py runs the same checks on the whole zoo."""


@cache
def _compile(path: str, budget: int, variant: str) -> bytes:
    from tigris.tools.cli import compile_bytes

    return compile_bytes(path, budget, **VARIANTS[variant])  # type: ignore[arg-type]


def zoo_plan(path: Path | str, budget: int, variant: str) -> bytes:
    """The plan of one zoo model at a fast-memory budget, stored as `variant` (VARIANTS)."""
    return _compile(str(path), budget, variant)
