"""Small versions of the classifier families users bring, written the way PyTorch exports them.

Why: each family brings the idioms that stopped real models before (issue G1): MobileNetV3's
squeeze-and-excitation blocks with HardSigmoid gates and HardSwish; ShuffleNetV2's channel split
(Split) and channel shuffle (Reshape -> Transpose -> Reshape); EfficientNet's SiLU (exported as
x * Sigmoid(x)) and SE blocks on MBConv; SqueezeNet's fire modules (two expand branches
concatenated) with ceil-mode MaxPool and Dropout; MNASNet's 5x5 depthwise MBConv blocks. The
block tables are cut down (few blocks, narrow, 64x64 inputs) so a test compiles and runs them
in seconds; the structure of each block is the published one.
"""

from __future__ import annotations

import numpy as np
import onnx

from graph_builder import GraphBuilder
from mobilenet_v2 import make_divisible


def _conv_bn(g: GraphBuilder, x: str, cout: int, k: int, stride: int = 1, groups: int = 1,
             act: str | None = "Relu") -> str:
    """Conv (no bias) + BatchNorm + an activation: Relu, HardSwish, SiLU (Mul of Sigmoid) or None."""
    y = g.bn(g.conv(x, cout, k, stride, groups, bias=False, gain=2.0 if act else 1.0))
    if act == "SiLU":
        return g.silu(y)
    return g.unary(act, y) if act else y


def _squeeze_excite(g: GraphBuilder, x: str, squeeze: int, gate: str, inner: str) -> str:
    """SE block: GAP -> 1x1 conv -> `inner` -> 1x1 conv -> `gate` -> x * gate (channel-wise)."""
    c = g.shapes[x][1]
    s = g.global_avg_pool(x)
    s = g.conv(s, squeeze, 1)
    s = g.silu(s) if inner == "SiLU" else g.unary(inner, s)
    s = g.conv(s, c, 1, gain=1.0)
    s = g.unary("HardSigmoid", s, alpha=1.0 / 6.0, beta=0.5) if gate == "HardSigmoid" else g.unary(gate, s)
    return g.binary("Mul", x, s)


def _classifier(g: GraphBuilder, x: str, num_classes: int, dropout: bool = True) -> str:
    x = g.flatten(g.global_avg_pool(x))
    if dropout:
        x = g.unary("Dropout", x)
    return g.gemm(x, num_classes, gain=1.0)


# ---------------------------------------------------------------- MobileNetV3
# (kernel, expanded, out, SE, activation, stride): MobileNetV3-Small's first blocks
V3_BLOCKS = ((3, 16, 16, True, "Relu", 2), (3, 72, 24, False, "Relu", 2), (3, 88, 24, False, "Relu", 1),
             (5, 96, 40, True, "HardSwish", 2), (5, 240, 40, True, "HardSwish", 1))  # fmt: skip


def build_mobilenet_v3(resolution: int = 64, width: float = 0.5, num_classes: int = 10,
                       seed: int = 31) -> onnx.ModelProto:
    g = GraphBuilder("mobilenet_v3", seed)
    x = _conv_bn(g, g.add_input("input", (1, 3, resolution, resolution)), make_divisible(16 * width), 3, 2,
                 act="HardSwish")  # fmt: skip
    for k, exp, out, se, act, stride in V3_BLOCKS:
        cin, hidden, cout = g.shapes[x][1], make_divisible(exp * width), make_divisible(out * width)
        y = _conv_bn(g, x, hidden, 1, act=act) if hidden != cin else x
        y = _conv_bn(g, y, hidden, k, stride, groups=hidden, act=act)
        if se:
            y = _squeeze_excite(g, y, make_divisible(hidden / 4), "HardSigmoid", "Relu")
        y = _conv_bn(g, y, cout, 1, act=None)
        x = g.add(x, y) if stride == 1 and cin == cout else y
    x = _conv_bn(g, x, make_divisible(288 * width), 1, act="HardSwish")
    x = g.global_avg_pool(x)
    x = g.unary("HardSwish", g.conv(x, 64, 1))
    return g.build({"logits": _classifier(g, x, num_classes)}, doc="MobileNetV3-Small-like")


# ---------------------------------------------------------------- ShuffleNetV2
def _channel_shuffle(g: GraphBuilder, x: str, groups: int = 2) -> str:
    """torch's view(n, g, c/g, h, w).transpose(1, 2).view(n, c, h, w)."""
    n, c, h, w = g.shapes[x]
    split = g.constant(np.array([n, groups, c // groups, h, w], dtype=np.int64))
    y = g.op("Reshape", [x, split], (n, groups, c // groups, h, w))
    y = g.transpose(y, (0, 2, 1, 3, 4))
    merged = g.constant(np.array([n, c, h, w], dtype=np.int64))
    return g.op("Reshape", [y, merged], (n, c, h, w))


def _split_channels(g: GraphBuilder, x: str) -> tuple[str, str]:
    """x.chunk(2, dim=1), as opset-13 Split with a `split` input: two outputs."""
    n, c, h, w = g.shapes[x]
    name = g.unique("Split")
    outs = [f"{name}_out0", f"{name}_out1"]
    sizes = g.constant(np.array([c // 2, c - c // 2], dtype=np.int64))
    g.nodes.append(onnx.helper.make_node("Split", [x, sizes], outs, name=name, axis=1))
    g.shapes[outs[0]], g.shapes[outs[1]] = (n, c // 2, h, w), (n, c - c // 2, h, w)
    return outs[0], outs[1]


def _shuffle_unit(g: GraphBuilder, x: str, cout: int, stride: int) -> str:
    half = cout // 2
    if stride == 1:
        keep, y = _split_channels(g, x)
    else:
        keep = _conv_bn(g, _conv_bn(g, x, g.shapes[x][1], 3, 2, groups=g.shapes[x][1], act=None), half, 1)
        y = x
    y = _conv_bn(g, y, half, 1)
    y = _conv_bn(g, y, half, 3, stride, groups=half, act=None)
    y = _conv_bn(g, y, half, 1)
    return _channel_shuffle(g, g.concat([keep, y]))


def build_shufflenet_v2(resolution: int = 64, num_classes: int = 10, seed: int = 32) -> onnx.ModelProto:
    g = GraphBuilder("shufflenet_v2", seed)
    x = _conv_bn(g, g.add_input("input", (1, 3, resolution, resolution)), 16, 3, 2)
    x = g.pool("MaxPool", x, 3, 2, 1)
    for cout, repeats in ((32, 2), (64, 2)):
        for i in range(repeats):
            x = _shuffle_unit(g, x, cout, 2 if i == 0 else 1)
    x = _conv_bn(g, x, 128, 1)
    return g.build({"logits": _classifier(g, x, num_classes, dropout=False)}, doc="ShuffleNetV2-like")


# ---------------------------------------------------------------- EfficientNet / MNASNet
def _mbconv(g: GraphBuilder, x: str, cout: int, k: int, stride: int, expand: int, act: str,
            se: bool) -> str:
    """Inverted residual with a k x k depthwise conv; EfficientNet adds an SE block (SiLU inside,
    Sigmoid gate, a quarter of the block's input channels)."""
    cin = g.shapes[x][1]
    hidden = cin * expand
    y = _conv_bn(g, x, hidden, 1, act=act) if expand != 1 else x
    y = _conv_bn(g, y, hidden, k, stride, groups=hidden, act=act)
    if se:
        y = _squeeze_excite(g, y, max(1, cin // 4), "Sigmoid", "SiLU")
    y = _conv_bn(g, y, cout, 1, act=None)
    return g.add(x, y) if stride == 1 and cin == cout else y


# (expansion, out, kernel, stride): EfficientNet-B0's first stages, MNASNet-B1's
EFFICIENTNET_BLOCKS = ((1, 16, 3, 1), (6, 24, 3, 2), (6, 24, 3, 1), (6, 40, 5, 2), (6, 40, 5, 1))
MNASNET_BLOCKS = ((3, 24, 3, 2), (3, 24, 3, 1), (3, 40, 5, 2), (3, 40, 5, 1), (6, 48, 3, 1))


def build_efficientnet(resolution: int = 64, num_classes: int = 10, seed: int = 33) -> onnx.ModelProto:
    g = GraphBuilder("efficientnet", seed)
    x = _conv_bn(g, g.add_input("input", (1, 3, resolution, resolution)), 16, 3, 2, act="SiLU")
    for expand, out, k, stride in EFFICIENTNET_BLOCKS:
        x = _mbconv(g, x, out, k, stride, expand, "SiLU", se=True)
    x = _conv_bn(g, x, 128, 1, act="SiLU")
    return g.build({"logits": _classifier(g, x, num_classes)}, doc="EfficientNet-B0-like")


def build_mnasnet(resolution: int = 64, num_classes: int = 10, seed: int = 34) -> onnx.ModelProto:
    g = GraphBuilder("mnasnet", seed)
    x = _conv_bn(g, g.add_input("input", (1, 3, resolution, resolution)), 16, 3, 2)
    x = _conv_bn(g, x, 16, 3, groups=16)
    x = _conv_bn(g, x, 8, 1, act=None)
    for expand, out, k, stride in MNASNET_BLOCKS:
        x = _mbconv(g, x, out, k, stride, expand, "Relu", se=False)
    x = _conv_bn(g, x, 128, 1)
    return g.build({"logits": _classifier(g, x, num_classes)}, doc="MNASNet-B1-like")


# ---------------------------------------------------------------- SqueezeNet
def _fire(g: GraphBuilder, x: str, squeeze: int, expand: int) -> str:
    s = g.relu(g.conv(x, squeeze, 1))
    return g.concat([g.relu(g.conv(s, expand, 1)), g.relu(g.conv(s, expand, 3))])


def _ceil_max_pool(g: GraphBuilder, x: str) -> str:
    """torchvision's MaxPool2d(3, 2, ceil_mode=True)."""
    n, c, h, w = g.shapes[x]
    size = [-(-(s - 3) // 2) + 1 for s in (h, w)]
    return g.op("MaxPool", [x], (n, c, *size), kernel_shape=[3, 3], strides=[2, 2], pads=[0] * 4, ceil_mode=1)


def build_squeezenet(resolution: int = 64, num_classes: int = 10, seed: int = 35) -> onnx.ModelProto:
    g = GraphBuilder("squeezenet", seed)
    x = g.relu(g.conv_window(g.add_input("input", (1, 3, resolution, resolution)), 32, (3, 3), (2, 2), [0] * 4))
    x = _ceil_max_pool(g, x)
    x = _fire(g, _fire(g, x, 8, 32), 8, 32)
    x = _ceil_max_pool(g, x)
    x = _fire(g, x, 16, 48)
    x = g.unary("Dropout", x)
    x = g.relu(g.conv(x, num_classes, 1))
    x = g.flatten(g.global_avg_pool(x))
    return g.build({"logits": x}, doc="SqueezeNet-1.1-like")
