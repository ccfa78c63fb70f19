"""The integer parts of the int8 kernels: exact int32 accumulators and sums, on numpy arrays.

What happens to an accumulator or a sum afterwards (the float32 requantization, the mean, the
quantize) is `tigris.dialects.quant.arith`'s, the one definition shared with the compiler and
the C kernels. Tensors are numpy int8/uint8; intermediates are int64, and every accumulator is
checked to fit the int32 the device computes it in.

Layouts are the IR's (NC + spatial). Padding of convolutions and average pools is the input's
zero point: a padded element is the real value 0, as in float.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tigris.dialects.interpreter import kernels_window as kw
from tigris.dialects.quant import arith

I64 = np.int64


def check_int32(values: np.ndarray, what: str) -> np.ndarray:
    """`values` (int64), after making sure they fit the int32 the device computes them in."""
    if values.size and (int(values.min()) < arith.INT32_MIN or int(values.max()) > arith.INT32_MAX):
        raise ValueError(f"{what} leaves the int32 range ({int(values.min())} .. {int(values.max())})")
    return values


def along(values: np.ndarray | int, axis: int, rank: int) -> np.ndarray:
    """A scalar or 1-D per-channel parameter shaped to broadcast along `axis` of a rank-`rank` array."""
    array = np.asarray(values)
    if array.ndim == 0 or array.size == 1:
        return array.reshape(())
    shape = [1] * rank
    shape[axis] = array.size
    return array.reshape(shape)


def lookup(x: np.ndarray, table: np.ndarray, qmin: int) -> np.ndarray:
    """Element-wise op as a table lookup: table[x - qmin]."""
    return np.asarray(table)[np.asarray(x, I64) - qmin]


# -- convolutions and dense layers ---------------------------------------------------------------


def conv_accumulate(
    x: np.ndarray,
    x_zp: int,
    w: np.ndarray,
    w_zp: np.ndarray | int,
    bias: np.ndarray | None,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    group: int,
) -> np.ndarray:
    """int32 accumulators of a grouped convolution (ONNX Conv shapes: x [N, C, *S], w [O, C/g, *K]):
    acc[n, o, p] = sum (x - x_zp) * (w - w_zp[o]) + bias[o]; padding is x_zp (contributes 0)."""
    n, c = x.shape[:2]
    rank = x.ndim - 2
    o, kernel = w.shape[0], w.shape[2:]
    if c != w.shape[1] * group or o % group:
        raise ValueError(f"conv: input {x.shape} does not match weight {w.shape} with group {group}")
    xc = np.asarray(x, I64) - x_zp
    wc = np.asarray(w, I64) - along(np.asarray(w_zp, I64), 0, w.ndim)
    xp = np.pad(xc, [(0, 0), (0, 0)] + [(pads[i], pads[rank + i]) for i in range(rank)])
    out = [(xp.shape[2 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(rank)]
    if min(out, default=1) < 1:
        raise ValueError(f"conv: window larger than padded input {xp.shape}")
    cols = np.empty((n, c, *kernel, *out), I64)
    for offset in np.ndindex(*kernel):
        window = tuple(
            slice(k * d, k * d + (m - 1) * s + 1, s) for k, d, s, m in zip(offset, dilations, strides, out)
        )
        cols[(slice(None), slice(None), *offset)] = xp[(slice(None), slice(None), *window)]
    taps = (c // group) * math.prod(kernel)
    cols = cols.reshape(n, group, taps, math.prod(out))
    acc = np.matmul(wc.reshape(group, o // group, taps)[None], cols).reshape(n, o, *out)
    if bias is not None:
        acc = acc + along(np.asarray(bias, I64), 1, acc.ndim)
    return check_int32(acc, "convolution accumulator")


def conv_transpose_accumulate(
    x: np.ndarray,
    x_zp: int,
    w: np.ndarray,
    w_zp: np.ndarray | int,
    bias: np.ndarray | None,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    output_padding: Sequence[int],
    group: int,
) -> np.ndarray:
    """int32 accumulators of a transposed convolution (x [N, C, *S], w [C, O/g, *K]; `w_zp` scalar
    or per output channel along w's axis 1): TFLite TransposeConv's scatter of (x - x_zp) * (w - w_zp)."""
    n, c = x.shape[:2]
    rank = x.ndim - 2
    in_spatial = x.shape[2:]
    per_group, kernel = w.shape[1], w.shape[2:]
    o = per_group * group
    xc = np.asarray(x, I64) - x_zp
    wc = np.asarray(w, I64) - along(np.asarray(w_zp, I64), 1, w.ndim)
    taps = per_group * math.prod(kernel)
    weights = wc.reshape(group, c // group, taps).transpose(0, 2, 1)
    cols = np.matmul(weights[None], xc.reshape(n, group, c // group, math.prod(in_spatial)))
    cols = cols.reshape(n, o, *kernel, *in_spatial)
    full = [
        strides[i] * (in_spatial[i] - 1) + dilations[i] * (kernel[i] - 1) + 1 + output_padding[i] for i in range(rank)
    ]
    acc = np.zeros((n, o, *full), I64)
    for offset in np.ndindex(*kernel):
        window = tuple(
            slice(k * d, k * d + (m - 1) * s + 1, s) for k, d, s, m in zip(offset, dilations, strides, in_spatial)
        )
        acc[(slice(None), slice(None), *window)] += cols[(slice(None), slice(None), *offset)]
    acc = acc[(slice(None), slice(None), *(slice(pads[i], full[i] - pads[rank + i]) for i in range(rank)))]
    if bias is not None:
        acc = acc + along(np.asarray(bias, I64), 1, acc.ndim)
    return check_int32(acc, "transposed convolution accumulator")


def matmul_accumulate(
    a: np.ndarray, a_zp: int, b: np.ndarray, b_zp: np.ndarray | int, bias: np.ndarray | None = None
) -> np.ndarray:
    """(a - a_zp) @ (b - b_zp) (+ bias along the last axis); b_zp scalar or per column of b."""
    ac = np.asarray(a, I64) - a_zp
    bc = np.asarray(b, I64) - along(np.asarray(b_zp, I64), b.ndim - 1, b.ndim)
    acc = np.matmul(ac, bc)
    if bias is not None:
        acc = acc + np.asarray(bias, I64)
    return check_int32(acc, "matmul accumulator")


# -- pooling and reductions ----------------------------------------------------------------------


def avg_pool_sums(
    x: np.ndarray,
    zero_point: int,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    ceil: bool,
    count_include_pad: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Per output element of an average pool: the int32 sum of x - zero_point over its window,
    and the element count it is divided by. Counts follow ONNX/onnxruntime (see
    kernels_window.pool): with count_include_pad the explicit pads count (as the real 0); the
    ceil-mode overhang never counts."""
    rank = x.ndim - 2
    spatial = x.shape[2:]
    out = [
        kw.pool_output(spatial[i], kernel[i], strides[i], dilations[i], pads[i], pads[rank + i], ceil)
        for i in range(rank)
    ]
    overhang = [
        max(0, (out[i] - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 - (spatial[i] + pads[i] + pads[rank + i]))
        for i in range(rank)
    ]
    explicit = [(0, 0), (0, 0)] + [(pads[i], pads[rank + i]) for i in range(rank)]
    tail = [(0, 0), (0, 0)] + [(0, overhang[i]) for i in range(rank)]
    xp = np.pad(np.asarray(x, I64) - zero_point, explicit)
    xp = np.pad(xp, tail, constant_values=0)
    if count_include_pad:
        counted = np.ones([spatial[i] + pads[i] + pads[rank + i] for i in range(rank)], I64)
    else:
        counted = np.pad(np.ones(spatial, I64), explicit[2:])
    counted = np.pad(counted, tail[2:])
    total = np.zeros((*x.shape[:2], *out), I64)
    count = np.zeros(out, I64)
    for offset in np.ndindex(*kernel):
        window = tuple(
            slice(k * d, k * d + (m - 1) * s + 1, s) for k, d, s, m in zip(offset, dilations, strides, out)
        )
        total += xp[(slice(None), slice(None), *window)]
        count += counted[window]
    check_int32(total, "average pool sum")
    if np.any(count == 0):
        raise ValueError("average pool window without input elements")
    return total, count


def mean_sums(x: np.ndarray, zero_point: int, axes: Sequence[int], keepdims: bool) -> tuple[np.ndarray, int]:
    """The int32 sums of x - zero_point over `axes`, and how many elements each sums."""
    total = np.sum(np.asarray(x, I64) - zero_point, axis=tuple(axes), keepdims=keepdims)
    return check_int32(np.asarray(total, I64), "mean sum"), math.prod(np.shape(x)[a] for a in axes)
