"""Keras layers as tf2onnx writes them, channels-last or channels-first from one description.

Why: most microcontroller models are trained in Keras and reach ONNX through tf2onnx. Such a
graph takes its input channels-last (NHWC) and transposes it to NCHW for ONNX's Conv; every
layer whose meaning depends on the layout (ZeroPadding2D, GlobalAveragePooling2D, Flatten,
Reshape) is written between a Transpose back to NHWC and, if the result is still a feature
map, a Transpose to NCHW again: the form before (or without) tf2onnx's transpose optimizer,
and the one a compiler must cope with. With ``channels_last=False`` the same calls build the
same network exported channels-first (no Transpose at all), drawing the same weights from the
same seed, so the two exports compute the same function and can be compared.

Every tensor name the methods take and return is in NCHW order; ``channels_last`` only changes
how the model input and the layout-dependent layers are written. Padding follows TensorFlow's
'same' rule (the odd pixel goes at the end), which gives asymmetric pads on stride 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx

from graph_builder import GraphBuilder, Shape

TO_NCHW = (0, 3, 1, 2)
TO_NHWC = (0, 2, 3, 1)


def same_pads(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """TensorFlow's padding='same' along one axis: (begin, end), the odd pixel at the end."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def correct_pad(size: int, kernel: int) -> tuple[int, int]:
    """keras.applications' ``correct_pad``: the ZeroPadding2D before a stride-2 'valid' conv."""
    correct = kernel // 2
    return correct - (1 - size % 2), correct


class KerasGraph:
    """A GraphBuilder that writes Keras layers the tf2onnx way (see the module docstring)."""

    def __init__(self, name: str, seed: int, channels_last: bool) -> None:
        self.channels_last = channels_last
        self.g = GraphBuilder(name if channels_last else f"{name}_nchw", seed, opset=13)

    def shape(self, x: str) -> Shape:
        return self.g.shapes[x]

    def input(self, name: str, h: int, w: int, c: int) -> str:
        """The model input [1, h, w, c] (channels-first: [1, c, h, w]), as an NCHW tensor."""
        if not self.channels_last:
            return self.g.add_input(name, (1, c, h, w))
        return self.g.transpose(self.g.add_input(name, (1, h, w, c)), TO_NCHW)

    def _in_nhwc(self, x: str, op_type: str, params: Sequence[str], nhwc_shape: Shape, **attrs: object) -> str:
        """A layout-dependent op applied to NHWC data: Transpose, the op (its NHWC result)."""
        return self.g.op(op_type, [self.g.transpose(x, TO_NHWC), *params], nhwc_shape, **attrs)

    def _ints(self, values: Sequence[int], prefix: str) -> str:
        return self.g.init(self.g.unique(prefix), np.array(values, dtype=np.int64))

    # ------------------------------------------------------------------ layers
    def conv(self, x: str, filters: int, kernel: tuple[int, int], stride: int = 1, padding: str = "same",
             bias: bool = True, groups: int = 1) -> str:
        """Conv2D; padding 'same' (TensorFlow's rule) or 'valid'."""
        _, _, h, w = self.shape(x)
        (top, bottom), (left, right) = (
            (same_pads(h, kernel[0], stride), same_pads(w, kernel[1], stride)) if padding == "same" else ((0, 0), (0, 0))
        )
        return self.g.conv_window(x, filters, kernel, (stride, stride), [top, left, bottom, right], groups, bias)

    def depthwise_conv(self, x: str, stride: int = 1, padding: str = "same", bias: bool = True) -> str:
        """DepthwiseConv2D((3, 3), depth_multiplier=1)."""
        channels = self.shape(x)[1]
        return self.conv(x, channels, (3, 3), stride, padding, bias, groups=channels)

    def bn(self, x: str) -> str:
        return self.g.bn(x)

    def relu(self, x: str) -> str:
        return self.g.relu(x)

    def relu6(self, x: str) -> str:
        return self.g.clip(x, 0.0, 6.0)

    def add(self, a: str, b: str) -> str:
        return self.g.add(a, b)

    def zero_padding(self, x: str, rows: tuple[int, int], cols: tuple[int, int]) -> str:
        """ZeroPadding2D(((top, bottom), (left, right)))."""
        n, c, h, w = self.shape(x)
        if not self.channels_last:
            pads = self._ints([0, 0, rows[0], cols[0], 0, 0, rows[1], cols[1]], "pads")
            return self.g.op("Pad", [x, pads], (n, c, h + sum(rows), w + sum(cols)), mode="constant")
        pads = self._ints([0, rows[0], cols[0], 0, 0, rows[1], cols[1], 0], "pads")
        y = self._in_nhwc(x, "Pad", [pads], (n, h + sum(rows), w + sum(cols), c), mode="constant")
        return self.g.transpose(y, TO_NCHW)

    def average_pooling(self, x: str, pool: tuple[int, int]) -> str:
        """AveragePooling2D(pool_size=pool): 'valid', strides = pool."""
        n, c, h, w = self.shape(x)
        return self.g.op("AveragePool", [x], (n, c, h // pool[0], w // pool[1]), kernel_shape=list(pool),
                         strides=list(pool), pads=[0, 0, 0, 0])

    def global_average_pooling(self, x: str, keepdims: bool) -> str:
        """GlobalAveragePooling2D(keepdims=...): tf.reduce_mean over H and W."""
        n, c, _, _ = self.shape(x)
        if not self.channels_last:
            return self.g.op("ReduceMean", [x], (n, c, 1, 1) if keepdims else (n, c), axes=[2, 3],
                             keepdims=int(keepdims))
        y = self._in_nhwc(x, "ReduceMean", [], (n, 1, 1, c) if keepdims else (n, c), axes=[1, 2],
                          keepdims=int(keepdims))
        return self.g.transpose(y, TO_NCHW) if keepdims else y

    def flatten(self, x: str) -> str:
        """Flatten (or Reshape((c,))) of a 1x1 map. Keras flattens in NHWC order, which is
        NCHW order only when H = W = 1: the one case these models need."""
        n, c, h, w = self.shape(x)
        assert h == w == 1, "Flatten over a map is not the same function channels-first"
        target = self._ints([-1, c], "shape")
        if not self.channels_last:
            return self.g.op("Reshape", [x, target], (n, c))
        return self._in_nhwc(x, "Reshape", [target], (n, c))

    def dense(self, x: str, units: int) -> str:
        """Dense: tf2onnx's MatMul(x, W[in, out]) + Add(bias)."""
        return self.g.matmul_add(x, units, gain=1.0)

    def softmax(self, x: str) -> str:
        return self.g.unary("Softmax", x, axis=-1)

    def build(self, output: str, doc: str) -> onnx.ModelProto:
        return self.g.build({"probabilities": output}, doc=doc)
