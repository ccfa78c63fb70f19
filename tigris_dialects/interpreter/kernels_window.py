"""Sliding-window kernels in NC(spatial) layout: convolution, transposed convolution, pooling.

Shared by the `onnx` and `tgr` implementations so both dialects compute the same
numbers. Convolutions are im2col + one float32 `np.matmul` per group, which is
how onnxruntime's CPU provider computes them (im2col + MLAS sgemm), so results
agree to float32 rounding of the accumulation order. Any spatial rank works.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def same_pads(
    in_spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int], upper: bool
) -> list[int]:
    """ONNX auto_pad SAME_UPPER/SAME_LOWER: output = ceil(in / stride); the odd pad goes last (upper)
    or first (lower)."""
    begins: list[int] = []
    ends: list[int] = []
    for size, k, s, d in zip(in_spatial, kernel, strides, dilations):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        begin = total // 2 if upper else total - total // 2
        begins.append(begin)
        ends.append(total - begin)
    return begins + ends


def resolve_pads(
    auto_pad: str,
    pads: Sequence[int] | None,
    in_spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """Explicit [begins..., ends...] pads for a Conv/pool given ONNX's auto_pad."""
    rank = len(in_spatial)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return same_pads(in_spatial, kernel, strides, dilations, auto_pad == "SAME_UPPER")
    if auto_pad == "VALID":
        return [0] * (2 * rank)
    if auto_pad != "NOTSET":
        raise ValueError(f"unknown auto_pad '{auto_pad}'")
    return list(pads) if pads is not None else [0] * (2 * rank)


def _window_slices(offset: Sequence[int], dilations: Sequence[int], strides: Sequence[int], out: Sequence[int]) -> tuple[slice, ...]:
    """The strided slice of a padded input that kernel tap `offset` reads for every output position."""
    return tuple(
        slice(o * d, o * d + (n - 1) * s + 1, s) for o, d, s, n in zip(offset, dilations, strides, out)
    )


def conv(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    group: int,
) -> np.ndarray:
    """ONNX Conv: x [N, C, *S], w [O, C/group, *K], b [O]; float32 accumulation."""
    x = np.asarray(x, np.float32)
    w = np.asarray(w, np.float32)
    n, c = x.shape[:2]
    rank = x.ndim - 2
    o, kernel = w.shape[0], w.shape[2:]
    if c != w.shape[1] * group or o % group:
        raise ValueError(f"conv: input {x.shape} does not match weight {w.shape} with group {group}")
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[rank + i]) for i in range(rank)])
    out = [(xp.shape[2 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(rank)]
    if min(out, default=1) < 1:
        raise ValueError(f"conv: window larger than padded input {xp.shape}")
    cols = np.empty((n, c, *kernel, *out), np.float32)
    for offset in np.ndindex(*kernel):
        cols[(slice(None), slice(None), *offset)] = xp[(slice(None), slice(None), *_window_slices(offset, dilations, strides, out))]
    taps = (c // group) * math.prod(kernel)
    cols = cols.reshape(n, group, taps, math.prod(out))
    weights = w.reshape(group, o // group, taps)
    y = np.matmul(weights[None], cols).reshape(n, o, *out)
    if b is not None:
        y += np.asarray(b, np.float32).reshape(1, o, *([1] * rank))
    return y


def conv_transpose(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    output_padding: Sequence[int],
    group: int,
) -> np.ndarray:
    """ONNX ConvTranspose with explicit pads: x [N, C, *S], w [C, O/group, *K].

    gemm (W^T x) then col2im: every input pixel scatters its kernel-sized patch to
    stride-spaced output positions; pads crop the full result and output_padding
    extends its end."""
    x = np.asarray(x, np.float32)
    w = np.asarray(w, np.float32)
    n, c = x.shape[:2]
    rank = x.ndim - 2
    in_spatial = x.shape[2:]
    per_group, kernel = w.shape[1], w.shape[2:]
    o = per_group * group
    taps = per_group * math.prod(kernel)
    weights = w.reshape(group, c // group, taps).transpose(0, 2, 1)
    cols = np.matmul(weights[None], x.reshape(n, group, c // group, math.prod(in_spatial)))
    cols = cols.reshape(n, o, *kernel, *in_spatial)
    full = [
        strides[i] * (in_spatial[i] - 1) + dilations[i] * (kernel[i] - 1) + 1 + output_padding[i] for i in range(rank)
    ]
    y = np.zeros((n, o, *full), np.float32)
    for offset in np.ndindex(*kernel):
        y[(slice(None), slice(None), *_window_slices(offset, dilations, strides, in_spatial))] += cols[
            (slice(None), slice(None), *offset)
        ]
    crop = tuple(slice(pads[i], full[i] - pads[rank + i]) for i in range(rank))
    y = np.ascontiguousarray(y[(slice(None), slice(None), *crop)])
    if b is not None:
        y += np.asarray(b, np.float32).reshape(1, o, *([1] * rank))
    return y


def conv_transpose_pads(
    auto_pad: str,
    pads: Sequence[int] | None,
    output_shape: Sequence[int] | None,
    in_spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    output_padding: Sequence[int],
) -> list[int]:
    """Explicit pads for ConvTranspose as the ONNX spec (and onnxruntime) derive them.

    With `output_shape`, the total padding is whatever reaches that size; with auto_pad SAME_*
    the output is in * stride. SAME_UPPER puts the odd pad last, anything else first.
    """
    rank = len(in_spatial)
    if output_shape is not None:
        output_shape = list(output_shape)[-rank:]
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        output_shape = [size * s for size, s in zip(in_spatial, strides)]
    elif auto_pad == "VALID":
        return [0] * (2 * rank)
    else:
        return list(pads) if pads is not None else [0] * (2 * rank)
    begins: list[int] = []
    ends: list[int] = []
    for i in range(rank):
        full = (in_spatial[i] - 1) * strides[i] + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1
        total = max(0, full - output_shape[i])
        begin = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        begins.append(begin)
        ends.append(total - begin)
    return begins + ends


def pool_output(size: int, kernel: int, stride: int, dilation: int, begin: int, end: int, ceil: bool) -> int:
    """Pooled length; in ceil mode a last window that would start in the end padding is dropped
    (onnxruntime and the ONNX reference agree on this)."""
    span = size + begin + end - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil else span // stride) + 1
    if ceil and (out - 1) * stride >= size + begin:
        out -= 1
    return out


def pool(
    x: np.ndarray,
    kind: str,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    ceil: bool,
    count_include_pad: bool = False,
) -> np.ndarray:
    """MaxPool ("max") or AveragePool ("avg") over the spatial axes of x [N, C, *S].

    Average divisors follow onnxruntime: with count_include_pad, a window counts the
    explicit pads it covers but not the ceil-mode overhang past the end pad; without,
    it counts only real input elements."""
    rank = x.ndim - 2
    spatial = x.shape[2:]
    out = [
        pool_output(spatial[i], kernel[i], strides[i], dilations[i], pads[i], pads[rank + i], ceil)
        for i in range(rank)
    ]
    overhang = [
        max(0, (out[i] - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 - (spatial[i] + pads[i] + pads[rank + i]))
        for i in range(rank)
    ]
    widths = [(0, 0), (0, 0)] + [(pads[i], pads[rank + i] + overhang[i]) for i in range(rank)]
    if kind == "max":
        if np.issubdtype(x.dtype, np.floating):
            fill = -np.inf
        else:
            fill = np.iinfo(x.dtype).min
        xp = np.pad(x, widths, constant_values=fill)
        y = None
        for offset in np.ndindex(*kernel):
            tap = xp[(slice(None), slice(None), *_window_slices(offset, dilations, strides, out))]
            y = tap.copy() if y is None else np.maximum(y, tap)
        assert y is not None
        return y
    x = np.asarray(x, np.float32)
    xp = np.pad(x, widths)
    if count_include_pad:
        counted = np.pad(
            np.ones([spatial[i] + pads[i] + pads[rank + i] for i in range(rank)], np.float32),
            [(0, overhang[i]) for i in range(rank)],
        )
    else:
        counted = np.pad(np.ones(spatial, np.float32), widths[2:])
    total = np.zeros((*x.shape[:2], *out), np.float32)
    count = np.zeros(out, np.float32)
    for offset in np.ndindex(*kernel):
        window = _window_slices(offset, dilations, strides, out)
        total += xp[(slice(None), slice(None), *window)]
        count += counted[window]
    return total / count
