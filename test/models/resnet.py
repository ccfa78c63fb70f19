"""Small ResNet-like classifier (input 1x3x64x64).

Why: covers Relu-terminated residual Adds, a strided block whose shortcut is a
1x1 stride-2 projection Conv+BN (two live branches of different shapes), and
the MaxPool(3x3, s2, pads 1) stem of the ResNet family.
"""

from __future__ import annotations

import onnx

from graph_builder import GraphBuilder


def _basic_block(g: GraphBuilder, x: str, cout: int, stride: int) -> str:
    y = g.relu(g.bn(g.conv(x, cout, 3, stride, bias=False)))
    y = g.bn(g.conv(y, cout, 3, bias=False, gain=1.0))
    shortcut = x
    if stride != 1 or g.shapes[x][1] != cout:
        shortcut = g.bn(g.conv(x, cout, 1, stride, bias=False, gain=1.0))
    return g.relu(g.add(y, shortcut))


def build_resnet(resolution: int = 64, num_classes: int = 10, seed: int = 1) -> onnx.ModelProto:
    g = GraphBuilder("resnet", seed)
    x = g.add_input("input", (1, 3, resolution, resolution))
    x = g.relu(g.bn(g.conv(x, 16, 3, bias=False)))
    x = g.pool("MaxPool", x, 3, 2, pad=1)
    for cout, stride in ((16, 1), (16, 1), (32, 2), (32, 1)):
        x = _basic_block(g, x, cout, stride)
    x = g.flatten(g.global_avg_pool(x))
    logits = g.gemm(x, num_classes, gain=1.0)
    return g.build({"logits": logits}, doc="ResNet-like, 4 basic blocks")
