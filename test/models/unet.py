"""UNet-like segmentation net (input 1x3x64x64, output 1x2x64x64).

Why: long-lived skip tensors (memory pressure for the planner), MaxPool 2x2
down-sampling, opset-13 nearest Resize x2 (roi "", constant scales) and
channel Concat. Convs carry biases and no BatchNorm, like the original UNet.
"""

from __future__ import annotations

import onnx

from graph_builder import GraphBuilder


def _double_conv(g: GraphBuilder, x: str, cout: int) -> str:
    return g.relu(g.conv(g.relu(g.conv(x, cout, 3)), cout, 3))


def build_unet(resolution: int = 64, in_channels: int = 3, num_classes: int = 2,
               base: int = 8, seed: int = 2) -> onnx.ModelProto:
    g = GraphBuilder("unet", seed)
    x = g.add_input("input", (1, in_channels, resolution, resolution))
    skips: list[str] = []
    for level in range(2):
        x = _double_conv(g, x, base << level)
        skips.append(x)
        x = g.pool("MaxPool", x, 2, 2)
    x = _double_conv(g, x, base << 2)
    for level in reversed(range(2)):
        x = g.concat([g.upsample2x(x), skips[level]], axis=1)
        x = _double_conv(g, x, base << level)
    mask = g.conv(x, num_classes, 1, gain=1.0)
    return g.build({"mask_logits": mask}, doc="UNet-like, 2 levels")
