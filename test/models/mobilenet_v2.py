"""MobileNetV2-like classifier (the canonical MCU vision workload).

Why: exercises depthwise convs (group=C), Clip(0, 6) with initializer bounds,
inverted-residual Adds, and a GAP -> Flatten -> Gemm head. With
``resolution=224, width=1.0`` the block table equals the real MobileNetV2
(~3.5 M weights), so memory-planning numbers are representative.
"""

from __future__ import annotations

import onnx

from graph_builder import GraphBuilder
from prune import magnitude_prune

# (expansion t, output channels c, repeats n, first stride s) — the paper's table.
BLOCKS: tuple[tuple[int, int, int, int], ...] = (
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
)


def make_divisible(value: float, divisor: int = 8) -> int:
    """Round channels like torchvision's ``_make_divisible``."""
    new = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * value else new


def _conv_bn(g: GraphBuilder, x: str, cout: int, k: int, stride: int = 1,
             groups: int = 1, act: bool = True) -> str:
    gain = 2.0 if act else 1.0
    y = g.bn(g.conv(x, cout, k, stride, groups, bias=False, gain=gain))
    return g.clip(y, 0.0, 6.0) if act else y


def _inverted_residual(g: GraphBuilder, x: str, cout: int, stride: int, expand: int) -> str:
    cin = g.shapes[x][1]
    hidden = cin * expand
    y = _conv_bn(g, x, hidden, 1) if expand != 1 else x
    y = _conv_bn(g, y, hidden, 3, stride, groups=hidden)
    y = _conv_bn(g, y, cout, 1, act=False)
    return g.add(x, y) if stride == 1 and cin == cout else y


def build_mobilenet_v2(resolution: int = 96, width: float = 1.0, num_classes: int = 1000,
                       last_channels: int | None = None, seed: int = 0,
                       prune: float = 0.0) -> onnx.ModelProto:
    """Build the model; ``last_channels`` defaults to torchvision's rule. ``prune`` zeroes that
    fraction of each conv's and the classifier's smallest-magnitude weights (``magnitude_prune``)."""
    g = GraphBuilder("mobilenet_v2", seed)
    x = g.add_input("input", (1, 3, resolution, resolution))
    x = _conv_bn(g, x, make_divisible(32 * width), 3, stride=2)
    for t, c, n, s in BLOCKS:
        for i in range(n):
            x = _inverted_residual(g, x, make_divisible(c * width), s if i == 0 else 1, t)
    if last_channels is None:
        last_channels = make_divisible(1280 * max(1.0, width))
    x = _conv_bn(g, x, last_channels, 1)
    x = g.flatten(g.global_avg_pool(x))
    logits = g.gemm(x, num_classes, gain=1.0)
    doc = f"MobileNetV2-like r={resolution} w={width}" + (f" pruned={prune}" if prune else "")
    model = g.build({"logits": logits}, doc=doc)
    return magnitude_prune(model, prune) if prune else model
