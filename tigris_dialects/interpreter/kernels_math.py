"""Element-wise, normalization and (float-path) quantization kernels.

All float math is float32, in the order onnxruntime's CPU kernels use, and written
without overflow warnings (the test suite runs with `-W error`): sigmoid uses the
stable two-branch form, and division follows IEEE (inf/nan) like ORT.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tigris.dialects.quant import arith

F32 = np.float32

ONNX_DTYPES: dict[int, np.dtype] = {
    1: np.dtype(np.float32),
    2: np.dtype(np.uint8),
    3: np.dtype(np.int8),
    4: np.dtype(np.uint16),
    5: np.dtype(np.int16),
    6: np.dtype(np.int32),
    7: np.dtype(np.int64),
    9: np.dtype(np.bool_),
    10: np.dtype(np.float16),
    11: np.dtype(np.float64),
    12: np.dtype(np.uint32),
    13: np.dtype(np.uint64),
}
"""ONNX TensorProto data type numbers that have a numpy type (Cast `to`)."""


def sigmoid(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F32)
    e = np.exp(-np.abs(x))
    one = F32(1)
    return np.where(x >= 0, one / (one + e), e / (one + e)).astype(F32)


def hard_sigmoid(x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    x = np.asarray(x, F32)
    return np.maximum(F32(0), np.minimum(F32(1), F32(alpha) * x + F32(beta)))


def hard_swish(x: np.ndarray) -> np.ndarray:
    """x * HardSigmoid(x, 1/6, 0.5): onnxruntime's definition (alpha 1/6 as float32)."""
    x = np.asarray(x, F32)
    return x * hard_sigmoid(x, F32(1.0 / 6.0), F32(0.5))


def swish(x: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    x = np.asarray(x, F32)
    return x * sigmoid(F32(alpha) * x)


def leaky_relu(x: np.ndarray, alpha: float) -> np.ndarray:
    x = np.asarray(x, F32)
    return np.where(x >= 0, x, F32(alpha) * x).astype(F32)


def clip(x: np.ndarray, low: np.ndarray | float | None, high: np.ndarray | float | None) -> np.ndarray:
    """min(max(x, low), high): when low > high every value becomes high, as ONNX specifies."""
    y = np.asarray(x)
    if low is not None:
        y = np.maximum(y, np.asarray(low, y.dtype))
    if high is not None:
        y = np.minimum(y, np.asarray(high, y.dtype))
    return y


def activation(x: np.ndarray, name: str) -> np.ndarray:
    """A tgr `fused_activation` applied to a result."""
    if name == "none":
        return x
    if name == "relu":
        return np.maximum(x, F32(0))
    if name == "relu6":
        return np.minimum(np.maximum(x, F32(0)), F32(6))
    raise ValueError(f"unknown fused_activation '{name}'")


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    x = np.asarray(x, F32)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ONNX Div: IEEE for floats, truncation toward zero for integers (C++ `/`)."""
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        q = np.floor_divide(a, b)
        inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return (q + inexact).astype(np.result_type(a, b))
    return np.divide(a, b)


def _channel_shape(x: np.ndarray) -> tuple[int, ...]:
    return (1, x.shape[1], *([1] * (x.ndim - 2)))


def batch_norm(
    x: np.ndarray, scale: np.ndarray, bias: np.ndarray, mean: np.ndarray, var: np.ndarray, epsilon: float
) -> np.ndarray:
    """Inference batch norm as onnxruntime folds it: x * (scale / sqrt(var + eps)) + (bias - mean * that)."""
    shape = _channel_shape(x)
    inv_std = F32(1) / np.sqrt(np.asarray(var, F32) + F32(epsilon))
    new_scale = (inv_std * np.asarray(scale, F32)).reshape(shape)
    new_bias = np.asarray(bias, F32).reshape(shape) - np.asarray(mean, F32).reshape(shape) * new_scale
    return np.asarray(x, F32) * new_scale + new_bias


def instance_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, epsilon: float) -> np.ndarray:
    """Per (n, c): (x - mean) / sqrt(var + eps) * scale + bias over the spatial axes (biased variance)."""
    x = np.asarray(x, F32)
    axes = tuple(range(2, x.ndim))
    mean = np.mean(x, axis=axes, keepdims=True, dtype=F32)
    centered = x - mean
    var = np.mean(centered * centered, axis=axes, keepdims=True, dtype=F32)
    shape = _channel_shape(x)
    return centered / np.sqrt(var + F32(epsilon)) * np.asarray(scale, F32).reshape(shape) + np.asarray(
        bias, F32
    ).reshape(shape)


def lrn(x: np.ndarray, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """ONNX LRN across channels: x / (bias + alpha / size * sum of squares in the window) ** beta."""
    x = np.asarray(x, F32)
    channels = x.shape[1]
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    squares = np.pad(x * x, [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2))
    total = np.zeros_like(x)
    for k in range(size):
        total += squares[:, k : k + channels]
    return x / np.power(F32(bias) + F32(alpha) / F32(size) * total, F32(beta))


def per_axis(param: np.ndarray, x: np.ndarray, axis: int, block_size: int = 0) -> np.ndarray:
    """A Q/DQ scale or zero point shaped to broadcast against x: scalar, 1-D along `axis`, or blocked."""
    param = np.asarray(param)
    if param.ndim == 0 or x.ndim == 0:
        return param.reshape(())
    axis %= x.ndim
    if block_size > 0:
        return np.repeat(param, block_size, axis=axis)[tuple(slice(0, d) for d in x.shape)]
    if param.ndim == 1:
        shape = [1] * x.ndim
        shape[axis] = param.shape[0]
        return param.reshape(shape)
    return param


def quantize_linear(
    x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, dtype: np.dtype, axis: int, block_size: int = 0
) -> np.ndarray:
    """ONNX QuantizeLinear as onnxruntime computes it (`quant.arith.quantize`), scale and zero
    point per tensor, per axis or per block."""
    s = per_axis(np.asarray(scale, F32), x, axis, block_size)
    zp = np.int64(0) if zero_point is None else per_axis(zero_point, x, axis, block_size).astype(np.int64)
    info = np.iinfo(dtype)
    return arith.quantize(x, s, zp, int(info.min), int(info.max)).astype(dtype)


def dequantize_linear(
    x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, axis: int, block_size: int = 0
) -> np.ndarray:
    """ONNX DequantizeLinear as onnxruntime computes it (`quant.arith.dequantize`)."""
    s = per_axis(np.asarray(scale, F32), x, axis, block_size)
    zp = np.int64(0) if zero_point is None else per_axis(zero_point, x, axis, block_size).astype(np.int64)
    return arith.dequantize(x, s, zp)


def reduce(x: np.ndarray, kind: str, axes: Sequence[int] | None, keepdims: bool, noop_empty: bool) -> np.ndarray:
    """ReduceMean/Sum/Max/Min (`kind`); no axes means all axes unless noop_with_empty_axes."""
    if not axes:
        if noop_empty:
            return x
        axes = list(range(x.ndim))
    norm = tuple(sorted(a % x.ndim for a in axes))
    if kind == "mean":
        return np.mean(x, axis=norm, keepdims=keepdims, dtype=x.dtype if x.dtype.kind == "f" else None).astype(
            x.dtype
        )
    if kind == "sum":
        return np.sum(x, axis=norm, keepdims=keepdims, dtype=x.dtype)
    return (np.max if kind == "max" else np.min)(x, axis=norm, keepdims=keepdims)
