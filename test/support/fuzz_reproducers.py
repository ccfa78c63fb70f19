"""The crash-reproducer corpus of the loader+executor fuzzer, as source.

Each entry is a hostile plan that once made the runtime misbehave (undefined behaviour that
passed a check, an out-of-range loop, OK without an output), written with the `.tgrs` writer
from hand-made records, and what the runtime must now answer: the `fuzz_plan -r` fields
(`exec`, `op`, `tensor`, `kernel`). test_runtime_fuzz.py replays every one under ASan + UBSan.
Nothing binary is committed; `python test/support/fuzz_reproducers.py DIR` writes the files
(e.g. to replay them with a libFuzzer build, docs/runtime.md).

A new reproducer found by the fuzzer (its fuzz-crash.tgrs) is added here as the smallest
plan that shows the same fault, with the answer the fixed runtime gives.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tigris.emit.tgrs import write_plan
from tigris.emit.tgrs.enums import DType, OpFlag, OpType, WeightLayout
from tigris.emit.tgrs.model import Op, PlanFile, Stage, Tensor, TilePlan, Weight
from geometries import SAME  # test/support

INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Reproducer:
    """A plan and the `fuzz_plan -r` answer it must get (fields not given are not checked)."""

    build: Callable[[], bytes]
    expect: dict[str, str] = field(default_factory=dict)
    why: str = ""


def _f32(name: str, shape: tuple[int, ...], weight: int | None = None) -> Tensor:
    return Tensor(name, DType.F32, shape, weight=weight)


def one_op(x: tuple[int, ...], y: tuple[int, ...], op: Op, *consts: tuple[Tensor, Weight]) -> bytes:
    """A plan of one op reading input 0 (and the given constants) into tensor 1."""
    tensors = [_f32("x", x), _f32("y", y), *(t for t, _ in consts)]
    plan = PlanFile("hostile", tensors, [op], [Stage((0,), (0,), (1,), 0)], (0,), (1,),
                    weights=[w for _, w in consts])
    return write_plan(plan)


def resize_scale_wraps() -> bytes:
    """4 rows x scale 1073741826 = 4294967304, 8 modulo 2^32: the int32 check passed."""
    op = Op(OpType.RESIZE, "resize", (0,), (1,), params=(1, 1073741826, 1, 1))
    return one_op((1, 1, 4, 4), (1, 1, 8, 4), op)


def pad_wraps() -> bytes:
    """4 + 2147483647 - 2147483645 = 6 rows, but the bottom crop removes 2^31 - 3 rows of 4."""
    op = Op(OpType.PAD, "pad", (0,), (1,), params=(0, INT32_MAX, 0, 0, 0, -(INT32_MAX - 2), 0, 0))
    return one_op((1, 1, 4, 4), (1, 1, 6, 4), op)


def conv_transpose_output_padding() -> bytes:
    """An output padding (params[0]) of 2^31 - 1 overflowed the output-height check."""
    w = np.ones((1, 1, 1, 1), np.float32)
    op = Op(OpType.CONV_TRANSPOSE, "deconv", (0, 2), (1,), weight=2, params=(INT32_MAX, 0))
    return one_op((1, 1, 4, 4), (1, 1, 8, 4), op, (_f32("w", w.shape, 0), Weight(w, WeightLayout.OHWI)))


def max_pool_span() -> bytes:
    """kernel 65535 x dilation 65535: d (k - 1) overflowed int32 (and the taps loop ran 4e9 times)."""
    op = Op(OpType.MAX_POOL, "pool", (0,), (1,), kernel_h=65535, dilation_h=65535, pad_top=65535,
            pad_bottom=65535)
    return one_op((1, 1, 4, 4), (1, 1, 1, 4), op)


def conv_group_channels() -> bytes:
    """32769 input channels per group x 65535 groups overflowed the channel check."""
    w = np.ones((1, 1, 1, 32769), np.float32)
    op = Op(OpType.CONV, "conv", (0, 2), (1,), weight=2, group=65535)
    return one_op((1, 1, 4, 4), (1, 1, 4, 4), op, (_f32("w", w.shape, 0), Weight(w, WeightLayout.OHWI)))


def avg_pool_huge_window() -> bytes:
    """A 65535 x 65535 window over a 1 x 1 image, padding counted: rows x cols overflowed int32
    and each output looped over 4.3e9 taps. Now: the one tap inside, divided by 65535^2."""
    op = Op(OpType.AVG_POOL, "pool", (0,), (1,), kernel_h=65535, kernel_w=65535, pad_top=32767,
            pad_bottom=32767, pad_left=32767, pad_right=32767, flags=OpFlag.COUNT_INCLUDE_PAD)
    return one_op((1, 2, 1, 1), (1, 2, 1, 1), op)


def stage_outputs_emptied() -> bytes:
    """The stage spills nothing, so the model output is never in the slow buffer: tigris_run
    returned OK (its header promised the outputs were there)."""
    t = [_f32("x", (1, 2, 4, 4)), _f32("y", (1, 2, 4, 4))]
    return write_plan(PlanFile("hostile", t, [Op(OpType.RELU, "relu", (0,), (1,))], [Stage((0,), (0,), (), 0)],
                               (0,), (1,)))


def tiled_output_unwritten() -> bytes:
    """A tiled stage spills a model output none of its ops writes: it came back as whatever
    the slow buffer held."""
    t = [_f32("x", (1, 2, 8, 4)), _f32("y", (1, 2, 8, 4)), _f32("z", (1, 2, 8, 4))]
    plan = PlanFile("hostile", t, [Op(OpType.RELU, "relu", (0,), (1,), **SAME)],
                    [Stage((0,), (0,), (1, 2), 0, tile_plan=0)], (0,), (1, 2), [TilePlan(4, 2, 0, 8, 1024)])
    return write_plan(plan)


CORPUS: dict[str, Reproducer] = {
    "resize_scale_wraps": Reproducer(resize_scale_wraps, {"exec": "KERNEL", "op": "0", "kernel": "SHAPE"}),
    "pad_wraps": Reproducer(pad_wraps, {"exec": "KERNEL", "op": "0", "kernel": "SHAPE"}),
    "conv_transpose_output_padding": Reproducer(conv_transpose_output_padding,
                                                {"exec": "KERNEL", "op": "0", "kernel": "SHAPE"}),
    "max_pool_span": Reproducer(max_pool_span, {"exec": "KERNEL", "op": "0", "kernel": "RANGE"}),
    "conv_group_channels": Reproducer(conv_group_channels, {"exec": "KERNEL", "op": "0", "kernel": "SHAPE"}),
    "avg_pool_huge_window": Reproducer(avg_pool_huge_window, {"exec": "OK"}),
    "stage_outputs_emptied": Reproducer(stage_outputs_emptied, {"exec": "OUTPUT", "tensor": "1"}),
    "tiled_output_unwritten": Reproducer(tiled_output_unwritten, {"exec": "PLAN", "tensor": "2", "stage": "0"}),
}


def write_corpus(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, rep in CORPUS.items():
        paths[name] = folder / f"{name}.tgrs"
        paths[name].write_bytes(rep.build())
    return paths


if __name__ == "__main__":
    for path in write_corpus(Path(sys.argv[1] if len(sys.argv) > 1 else "fuzz_corpus")).values():
        print(path)
