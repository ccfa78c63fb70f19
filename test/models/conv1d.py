"""1-D convolutional classifier (input 1x8x128, e.g. IMU/audio features).

Why: rank-3 tensors everywhere — Conv with kernel_shape [k], BatchNorm and
MaxPool in 1-D, GlobalAveragePool over one spatial axis.
"""

from __future__ import annotations

import onnx

from graph_builder import GraphBuilder


def build_conv1d(channels: int = 8, length: int = 128, num_classes: int = 5,
                 seed: int = 4) -> onnx.ModelProto:
    g = GraphBuilder("conv1d", seed)
    x = g.add_input("input", (1, channels, length))
    x = g.relu(g.conv(x, 16, 5))
    x = g.pool("MaxPool", x, 2, 2)
    x = g.relu(g.bn(g.conv(x, 32, 3, bias=False)))
    x = g.flatten(g.global_avg_pool(x))
    logits = g.gemm(x, num_classes, gain=1.0)
    return g.build({"logits": logits}, doc="Conv1D classifier")
