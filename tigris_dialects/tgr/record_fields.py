"""How a `tgr` op's properties become fields of its `tigris_op_t` record.

Every op that has parameters says which record fields they fill, by name, in a
`runtime_fields()` method: the built-in ops exactly as a plugin's ops do (docs/extending.md),
so the emitter keeps no table of op types. What the emitter does for every op alike (its
type, operands, `weight`/`bias` roles, fused activation, zero points, the int8 parameters
compute-quant-scales attached) is not repeated here. This module holds the rules several
ops share: the IR is NCHW while the runtime stores activations channels-last, and a window
(conv, pool) is recorded as H and W kernel, stride, dilation and pads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `tigris run` imports this module for channels_last_order, without xDSL
    from xdsl.ir import Operation

Fields = dict[str, object]
"""`tigris_op_t` field name -> value (emit/tgrs/model.py's `Op` names them)."""


class RecordFieldError(ValueError):
    """The op has a parameter the record cannot express; the emitter names the op."""


def channels_last_order(rank: int) -> list[int]:
    """The model (NCHW) axes in the order the runtime stores them: N, spatial..., C."""
    return [0, *range(2, rank), 1] if rank >= 3 else list(range(rank))


def runtime_axis(axis: int, rank: int) -> int:
    """A model-order (NCHW) axis, possibly negative, as the runtime's channels-last axis."""
    axis %= rank if rank else 1
    return channels_last_order(rank).index(axis) if rank >= 3 else axis


def to_runtime(values: Sequence[int], rank: int) -> list[int]:
    """Per-axis values (one per model axis) in channels-last order."""
    return [values[a] for a in channels_last_order(rank)] if rank >= 3 else list(values)


def window_fields(op: Operation, kernel: Sequence[int]) -> Fields:
    """kernel/stride/dilation/pad fields of a window op over its input's spatial axes (H, or H
    and W), from `kernel` and the `strides`, `dilations`, `pads` properties (1, 1, 0 if absent)."""
    from tigris.dialects.shapes import ints, shape_of

    rank = len(shape_of(op.operands[0]))
    spatial = max(1, rank - 2)
    if spatial > 2:
        raise RecordFieldError(f"{spatial} spatial dims: the format has H and W only")
    kernel = list(kernel) or [1] * spatial
    strides = ints(op, "strides") or [1] * spatial
    dilations = ints(op, "dilations") or [1] * spatial
    pads = ints(op, "pads") or [0] * (2 * spatial)
    if any(p < 0 for p in pads):
        raise RecordFieldError(f"negative pads {pads}")
    fields: Fields = {"kernel_h": kernel[0], "stride_h": strides[0], "dilation_h": dilations[0],
                      "pad_top": pads[0], "pad_bottom": pads[spatial]}  # fmt: skip
    if spatial == 2:
        fields |= {"kernel_w": kernel[1], "stride_w": strides[1], "dilation_w": dilations[1],
                   "pad_left": pads[1], "pad_right": pads[3]}  # fmt: skip
    return fields
