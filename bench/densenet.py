"""A DenseNet-like graph of a chosen size, for measuring how compile time grows.

Why this shape: dense blocks concatenate every earlier feature map of the block
before each layer (as torchvision's DenseNet exports), so the graph has long-lived
tensors with many consumers, wide Concats and a standalone BatchNorm after each of
them: the hard case for lifetimes, the memory timeline and temporal partitioning,
and it grows to hundreds of ops at 224x224 with a handful of parameters. The layer
helpers are test/models/graph_builder.py's, so the ops are the ones the tests cover.
"""

from __future__ import annotations

import onnx
from zoo_models import GraphBuilder

BLOCK_SHARES = (6, 12, 24, 16)  # DenseNet-121's layers per block, scaled to the size asked for


def layers_per_block(convs: int) -> list[int]:
    """Dense layers (two convs each) per block for about `convs` convolutions in all:
    one stem conv, one per transition (three) and two per layer."""
    layers = max(len(BLOCK_SHARES), (convs - 1 - (len(BLOCK_SHARES) - 1)) // 2)
    total = sum(BLOCK_SHARES)
    counts = [max(1, layers * share // total) for share in BLOCK_SHARES]
    counts[2] += layers - sum(counts)  # the rounding remainder goes to the largest block
    return counts


def conv_count(convs: int) -> int:
    """The convolutions `build_densenet(convs)` really has."""
    return 1 + (len(BLOCK_SHARES) - 1) + 2 * sum(layers_per_block(convs))


def build_densenet(convs: int = 100, resolution: int = 224, growth: int = 12, seed: int = 7) -> onnx.ModelProto:
    g = GraphBuilder(f"densenet{convs}", seed)
    x = g.add_input("input", (1, 3, resolution, resolution))
    x = g.relu(g.bn(g.conv(x, 2 * growth, 7, 2, bias=False)))
    x = g.pool("MaxPool", x, 3, 2, pad=1)
    blocks = layers_per_block(convs)
    for b, layers in enumerate(blocks):
        features = [x]
        for _ in range(layers):
            joined = g.concat(features) if len(features) > 1 else features[0]
            y = g.conv(g.relu(g.bn(joined)), 4 * growth, 1, bias=False)
            features.append(g.conv(g.relu(g.bn(y)), growth, 3, bias=False))
        x = g.concat(features)
        if b < len(blocks) - 1:  # transition: halve the channels and the resolution
            x = g.conv(g.relu(g.bn(x)), g.shapes[x][1] // 2, 1, bias=False)
            x = g.pool("AveragePool", x, 2, 2)
    x = g.flatten(g.global_avg_pool(g.relu(g.bn(x))))
    return g.build({"logits": g.gemm(x, 10, gain=1.0)}, doc=f"DenseNet-like, {conv_count(convs)} convolutions")
