"""Which input rows (H) or columns (W) a band of an op's output reads: the one rule behind the
planner's band sizes (`tiling.py`), its exact per-tile ranges (`bands.py`) and 2-D tiles.

Along an axis an op is a window (conv, pooling: output index i reads inputs
i*stride - pad_begin + k*dilation), a row map (pad, resize: their `RowMap`, one rule per axis,
H and W alike), or the identity (pointwise and channel-wise ops). A tensor without that axis
(rank < 3 for H, < 4 for W) is always read whole. Everything is read from the op's traits
(`SpatialWindow`, `RowMap`).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum

from tigris.transforms.plan.graph import PlanStep, PlanTensor

Range = tuple[int, int]


class Axis(IntEnum):
    """A spatial axis, by its index among the spatial axes (model order: H is axis 2, W axis 3)."""

    H = 0
    W = 1


def extent(tensor: PlanTensor, axis: Axis) -> int:
    """Rows (H) or columns (W) of the tensor; 1 if it has no such axis."""
    dim = 2 + int(axis)
    return tensor.shape[dim] if len(tensor.shape) > dim else 1


def has_axis(tensor: PlanTensor, axis: Axis) -> bool:
    """Whether bands can cut the tensor along `axis`: H of rank 3+ tensors, W of rank-4 ones,
    when that axis has more than one index."""
    rank_ok = len(tensor.shape) >= 3 if axis is Axis.H else len(tensor.shape) == 4
    return rank_ok and extent(tensor, axis) > 1


def _clamp(start: int, end: int, size: int) -> Range:
    """[start, end) cut to [0, size), never empty (an edge band reads at least one index)."""
    start, end = max(0, start), min(size, end)
    start = min(start, size - 1)
    return (start, max(end, start + 1))


def input_range(step: PlanStep, axis: Axis, out: Range, tensor: PlanTensor) -> Range:
    """The indices of `tensor` (an input of `step`) that outputs [start, end) along `axis` read."""
    shape, dim = tensor.shape, 2 + int(axis)  # `extent` and `has_axis` inline: the planner's hottest call
    size = shape[dim] if len(shape) > dim else 1
    if size <= 1 or (axis is Axis.W and len(shape) != 4):
        return (0, size)
    window = step.windows[axis]
    if window is not None:
        return _window_range(window.stride, window.pad_begin, window.effective_kernel, size, out)
    if step.row_map is not None and step.op is not None:
        return step.row_map.input_range(step.op, out[0], out[1], size, int(axis))
    return _clamp(out[0], out[1], size)


def _window_range(stride: int, pad: int, kernel: int, size: int, out: Range) -> Range:
    """Output indices [start, end) of a window read inputs [start * stride - pad, (end - 1) *
    stride - pad + kernel), clamped as `_clamp` does."""
    start = min(max(0, out[0] * stride - pad), size - 1)
    end = min(size, (out[1] - 1) * stride - pad + kernel)
    return (start, end if end > start else start + 1)


def range_reader(step: PlanStep, axis: Axis, tensor: PlanTensor) -> Callable[[Range], Range]:
    """`input_range` for one input of one op with its facts looked up once: the planner's
    row-cache tiles ask it for every input of every op of every tile."""
    window = step.windows[axis]
    if window is None or not has_axis(tensor, axis):
        return lambda out: input_range(step, axis, out, tensor)
    stride, pad, kernel, size = window.stride, window.pad_begin, window.effective_kernel, extent(tensor, axis)
    return lambda out: _window_range(stride, pad, kernel, size, out)


def input_extent(step: PlanStep, axis: Axis, count: int, tensor: PlanTensor) -> int:
    """The most indices of `tensor` any band of `count` outputs of `step` along `axis` reads."""
    size = extent(tensor, axis)
    if not has_axis(tensor, axis):
        return size
    window = step.windows[axis]
    if window is not None:
        need = (count - 1) * window.stride + window.effective_kernel
    elif step.row_map is not None and step.op is not None:
        need = step.row_map.rows_needed(step.op, count, size, int(axis))
    else:
        need = count
    return max(1, min(size, need))
