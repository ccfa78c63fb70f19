"""Resize, Pad and Slice, following onnxruntime's CPU kernels.

Resize is separable: each resized axis is resampled on its own (nearest: a gather;
linear: two taps). Coordinates are computed in float32 with onnxruntime's formulas
(upsamplebase.h), so nearest-neighbour picks the same source pixel bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tigris.dialects.shapes import slice_indices

F32 = np.float32


def source_coordinates(
    mode: str, out_len: int, in_len: int, scale: float, roi: tuple[float, float] = (0.0, 1.0)
) -> np.ndarray:
    """Input coordinate (float32) of every output index along one axis (ONNX coordinate_transformation_mode)."""
    x = np.arange(out_len, dtype=F32)
    s = F32(scale)
    half = F32(0.5)
    if mode == "half_pixel":
        return (x + half) / s - half
    if mode == "pytorch_half_pixel":
        return (x + half) / s - half if out_len > 1 else np.zeros(out_len, F32)
    if mode == "asymmetric":
        return x / s
    if mode == "tf_half_pixel_for_nn":
        return (x + half) / s
    if mode == "align_corners":
        if out_len == 1:
            return np.zeros(out_len, F32)
        return x * F32(in_len - 1) / F32(out_len - 1)
    if mode == "half_pixel_symmetric":
        adjustment = F32(out_len) / (s * F32(in_len))
        center = F32(in_len) / F32(2)
        offset = center * (F32(1) - adjustment)
        return offset + (x + half) / s - half
    if mode == "tf_crop_and_resize":
        start, end = F32(roi[0]), F32(roi[1])
        if out_len == 1:
            return np.full(out_len, (end - start) * F32(in_len - 1) / F32(2) + start * F32(in_len - 1), F32)
        return start * F32(in_len - 1) + x * (end - start) * F32(in_len - 1) / F32(out_len - 1)
    raise ValueError(f"unsupported coordinate_transformation_mode '{mode}'")


def nearest_index(coords: np.ndarray, nearest_mode: str, in_len: int, downsampling: bool = False) -> np.ndarray:
    """Round source coordinates to pixel indices (ONNX nearest_mode), clamped to the input."""
    floor = np.floor(coords)
    frac = coords - floor
    if nearest_mode == "round_prefer_floor":
        idx = np.where(frac > 0.5, floor + 1, floor)
    elif nearest_mode == "round_prefer_ceil":
        idx = np.where(frac >= 0.5, floor + 1, floor)
    elif nearest_mode == "floor":
        idx = floor
    elif nearest_mode == "ceil":
        idx = np.ceil(coords)
    elif nearest_mode == "simple":  # Upsample (opset 7-9): truncate, or ceil when shrinking
        idx = np.ceil(coords) if downsampling else np.trunc(coords)
    else:
        raise ValueError(f"unsupported nearest_mode '{nearest_mode}'")
    return np.clip(idx, 0, in_len - 1).astype(np.int64)


def _resample_axis(
    x: np.ndarray,
    axis: int,
    out_len: int,
    scale: float,
    mode: str,
    ctm: str,
    nearest_mode: str,
    roi: tuple[float, float],
    extrapolation: float,
) -> np.ndarray:
    in_len = x.shape[axis]
    coords = source_coordinates(ctm, out_len, in_len, scale, roi)
    if mode == "nearest":
        y = np.take(x, nearest_index(coords, nearest_mode, in_len, scale < 1), axis=axis)
    elif mode == "linear":
        clamped = np.clip(coords, F32(0), F32(in_len - 1))
        low = np.minimum(clamped.astype(np.int64), in_len - 1)
        high = np.minimum(low + 1, in_len - 1)
        w_high = np.abs(clamped - low.astype(F32))  # onnxruntime: dx1 = |x - x1|, dx2 = |x - x2|
        w_low = np.abs(clamped - high.astype(F32))
        same = low == high
        w_high = np.where(same, F32(0.5), w_high).astype(F32)
        w_low = np.where(same, F32(0.5), w_low).astype(F32)
        shape = [1] * x.ndim
        shape[axis] = out_len
        y = np.take(x, low, axis=axis) * w_low.reshape(shape) + np.take(x, high, axis=axis) * w_high.reshape(shape)
    else:
        raise ValueError(f"unsupported resize mode '{mode}'")
    if ctm == "tf_crop_and_resize":
        outside = (coords < 0) | (coords > in_len - 1)
        index = [slice(None)] * x.ndim
        index[axis] = outside  # type: ignore[call-overload]
        y[tuple(index)] = extrapolation
    return y


def resize(
    x: np.ndarray,
    out_shape: Sequence[int],
    scales: Sequence[float],
    mode: str = "nearest",
    ctm: str = "half_pixel",
    nearest_mode: str = "round_prefer_floor",
    roi: Sequence[float] | None = None,
    extrapolation: float = 0.0,
) -> np.ndarray:
    """Resize every axis whose size or scale changes; scales are the float32 factors ORT uses."""
    rank = x.ndim
    y = np.asarray(x, np.float32) if mode == "linear" else np.asarray(x)
    for axis in range(rank):
        if out_shape[axis] == x.shape[axis] and float(scales[axis]) == 1.0 and ctm != "tf_crop_and_resize":
            continue
        axis_roi = (float(roi[axis]), float(roi[rank + axis])) if roi is not None and len(roi) else (0.0, 1.0)
        y = _resample_axis(
            y, axis, int(out_shape[axis]), float(scales[axis]), mode, ctm, nearest_mode, axis_roi, extrapolation
        )
    return y.astype(x.dtype, copy=False) if mode == "nearest" else y


def pad(x: np.ndarray, pads: Sequence[int], mode: str = "constant", value: float | int = 0) -> np.ndarray:
    """ONNX Pad with [begins..., ends...] over all axes; negative pads crop (applied first)."""
    rank = x.ndim
    begins, ends = list(pads[:rank]), list(pads[rank:])
    crop = tuple(slice(max(0, -b), x.shape[i] - max(0, -e)) for i, (b, e) in enumerate(zip(begins, ends)))
    x = x[crop]
    widths = [(max(0, b), max(0, e)) for b, e in zip(begins, ends)]
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=np.asarray(value).astype(x.dtype))
    if mode in ("reflect", "edge", "wrap"):
        return np.pad(x, widths, mode=mode)
    raise ValueError(f"unsupported pad mode '{mode}'")


def onnx_slice(
    x: np.ndarray, starts: Sequence[int], ends: Sequence[int], axes: Sequence[int] | None, steps: Sequence[int] | None
) -> np.ndarray:
    axes = list(axes) if axes is not None else list(range(len(starts)))
    steps = list(steps) if steps is not None else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = axis % x.ndim
        x = np.take(x, np.asarray(slice_indices(x.shape[axis], int(start), int(end), int(step)), np.int64), axis=axis)
    return x
