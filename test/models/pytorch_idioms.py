"""Small conv net written the way ``torch.onnx.export`` writes things.

Why: real exported graphs are noisier than hand-built ones. This covers
Clip with min/max from Constant nodes, HardSwish, Identity, inference-mode
Dropout, ReduceMean(axes=[2, 3], keepdims=1) global pooling, the
``x.view(x.size(0), -1)`` chain Shape -> Gather -> Unsqueeze -> Concat ->
Reshape, and a trailing Transpose. ``build_silu_ops`` is the opset-24 sibling
using the standalone ``Swish`` op (runs in onnxruntime >= 1.31 CPU).
"""

from __future__ import annotations

import numpy as np
import onnx

from graph_builder import GraphBuilder


def _view_flatten(g: GraphBuilder, x: str) -> str:
    """``x.view(x.size(0), -1)`` exactly as the TorchScript exporter emits it."""
    shape = g.op("Shape", [x], (len(g.shapes[x]),))
    batch = g.op("Gather", [shape, g.constant(np.array(0, dtype=np.int64))], (), axis=0)
    batch = g.op("Unsqueeze", [batch, g.constant(np.array([0], dtype=np.int64))], (1,))
    target = g.op("Concat", [batch, g.constant(np.array([-1], dtype=np.int64))], (2,), axis=0)
    n, *rest = g.shapes[x]
    return g.op("Reshape", [x, target], (n, int(np.prod(rest))))


def build_pytorch_idioms(resolution: int = 32, num_classes: int = 10,
                         seed: int = 6) -> onnx.ModelProto:
    g = GraphBuilder("pytorch_idioms", seed)
    x = g.add_input("input.1", (1, 3, resolution, resolution))
    x = g.clip(g.conv(x, 16, 3, 2), 0.0, 6.0, constant_nodes=True)
    x = g.unary("HardSwish", g.bn(g.conv(x, 32, 3, bias=False)))
    x = g.unary("Identity", x)
    x = g.unary("HardSwish", g.bn(g.conv(x, 32, 3, groups=32, bias=False)))
    n, c, _, _ = g.shapes[x]
    x = g.op("ReduceMean", [x], (n, c, 1, 1), axes=[2, 3], keepdims=1)
    x = g.unary("Dropout", _view_flatten(g, x))
    logits = g.transpose(g.gemm(x, num_classes, gain=1.0), (1, 0))
    return g.build({"logits_t": logits}, doc="PyTorch-exporter idioms")


def build_silu_ops(resolution: int = 32, num_classes: int = 10, seed: int = 7) -> onnx.ModelProto:
    """Opset 24: standalone Swish (alpha 1, i.e. SiLU: the only alpha the runtime supports) + HardSwish."""
    g = GraphBuilder("silu_ops", seed, opset=24)
    x = g.add_input("input", (1, 3, resolution, resolution))
    x = g.unary("Swish", g.bn(g.conv(x, 16, 3, 2, bias=False)), alpha=1.0)
    x = g.unary("Swish", g.bn(g.conv(x, 32, 3, bias=False)), alpha=1.0)
    x = g.unary("HardSwish", g.conv(x, 32, 1))
    x = g.flatten(g.global_avg_pool(x))
    logits = g.gemm(x, num_classes, gain=1.0)
    return g.build({"logits": logits}, doc="Swish-family activations (opset 24)")
