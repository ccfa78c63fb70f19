"""YOLO-like detector (input 1x3x64x64, two NHWC detection outputs).

Why: SiLU written as x * Sigmoid(x) (how PyTorch exports nn.SiLU below
opset 24), a stride-2 backbone, an FPN-style Resize + Concat neck, 1x1 heads
and trailing Transposes to NHWC on the graph outputs.
"""

from __future__ import annotations

import onnx

from graph_builder import GraphBuilder


def _cbs(g: GraphBuilder, x: str, cout: int, k: int, stride: int = 1) -> str:
    """Conv + BN + SiLU, the YOLOv5/v8 building block."""
    return g.silu(g.bn(g.conv(x, cout, k, stride, bias=False)))


def build_yolo(resolution: int = 64, num_anchors: int = 3, num_classes: int = 3,
               seed: int = 3) -> onnx.ModelProto:
    g = GraphBuilder("yolo", seed)
    x = g.add_input("images", (1, 3, resolution, resolution))
    x = _cbs(g, x, 16, 3, 2)            # /2
    x = _cbs(g, x, 32, 3, 2)            # /4
    p3 = _cbs(g, x, 32, 3, 2)           # /8
    p4 = _cbs(g, _cbs(g, p3, 64, 3, 2), 64, 1)  # /16
    lateral = _cbs(g, p4, 32, 1)
    p3 = _cbs(g, g.concat([g.upsample2x(lateral), p3], axis=1), 32, 3)
    outputs: dict[str, str] = {}
    for name, feat in (("det_p3", p3), ("det_p4", p4)):
        head = g.conv(feat, num_anchors * (5 + num_classes), 1, gain=1.0)
        outputs[name] = g.transpose(head, (0, 2, 3, 1))
    return g.build(outputs, doc="YOLO-like, two detection scales")
