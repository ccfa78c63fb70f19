"""Keras models of the microcontroller benchmarks, exported the way tf2onnx writes them.

Why: the visual-wake-words MobileNetV1, a small MobileNetV2, and the MLPerf Tiny keyword
spotter (DS-CNN) and image classifier (ResNet-8) are what people deploy; they are trained in
Keras, so their ONNX graphs take channels-last inputs and carry layout Transposes
(keras_layers.py). Each architecture is written once; ``channels_last=False`` gives the same
network (same weights) exported channels-first, so tests can check that the layout costs
nothing.

int8 (``quantize_int8(model, exclude=float_nodes(model))``): the float input is quantized
inside the graph, after its layout Transpose, as a graph quantized after the TensorFlow export
has it; everything else, the final Softmax included, is int8.
"""

from __future__ import annotations

import onnx

from keras_layers import KerasGraph, correct_pad
from mobilenet_v2 import BLOCKS, make_divisible

# keras.applications.MobileNet: (pointwise filters, stride) of the 13 depthwise blocks
MOBILENET_V1_BLOCKS: tuple[tuple[int, int], ...] = (
    (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
    (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1),
)  # fmt: skip


def build_keras_mobilenet_v1(channels_last: bool = True, alpha: float = 0.25, resolution: int = 96,
                             classes: int = 2, seed: int = 20) -> onnx.ModelProto:
    """keras.applications.MobileNet(alpha, include_top): the visual-wake-words model at 0.25 @96.
    Stride-2 depthwise convs are ZeroPadding2D(((0, 1), (0, 1))) + 'valid'; the head is
    GlobalAveragePooling2D(keepdims=True) -> 1x1 Conv2D -> Reshape((classes,)) -> softmax."""
    k = KerasGraph("keras_mobilenet_v1", seed, channels_last)
    x = k.input("input_1", resolution, resolution, 3)
    x = k.relu6(k.bn(k.conv(x, int(32 * alpha), (3, 3), stride=2, bias=False)))
    for filters, stride in MOBILENET_V1_BLOCKS:
        if stride == 2:
            x = k.zero_padding(x, (0, 1), (0, 1))
        x = k.relu6(k.bn(k.depthwise_conv(x, stride, "same" if stride == 1 else "valid", bias=False)))
        x = k.relu6(k.bn(k.conv(x, int(filters * alpha), (1, 1), bias=False)))
    x = k.conv(k.global_average_pooling(x, keepdims=True), classes, (1, 1))
    return k.build(k.softmax(k.flatten(x)), doc=f"Keras MobileNetV1-{alpha} @{resolution}, {classes} classes")


def build_keras_mobilenet_v2(channels_last: bool = True, alpha: float = 0.35, resolution: int = 96,
                             classes: int = 2, seed: int = 21) -> onnx.ModelProto:
    """keras.applications.MobileNetV2(alpha, include_top) at 0.35 @96: inverted residual blocks
    (mobilenet_v2.BLOCKS), stride-2 depthwise convs after ZeroPadding2D(correct_pad), a 1280
    channel last conv, GlobalAveragePooling2D -> Dense -> softmax."""
    k = KerasGraph("keras_mobilenet_v2", seed, channels_last)
    x = k.input("input_1", resolution, resolution, 3)
    x = k.relu6(k.bn(k.conv(x, make_divisible(32 * alpha), (3, 3), stride=2, bias=False)))
    block = 0
    for expansion, channels, repeats, first_stride in BLOCKS:
        for i in range(repeats):
            x = _inverted_res_block(k, x, make_divisible(int(channels * alpha)), first_stride if i == 0 else 1,
                                    expansion, block)
            block += 1
    x = k.relu6(k.bn(k.conv(x, 1280, (1, 1), bias=False)))
    x = k.dense(k.global_average_pooling(x, keepdims=False), classes)
    return k.build(k.softmax(x), doc=f"Keras MobileNetV2-{alpha} @{resolution}, {classes} classes")


def _inverted_res_block(k: KerasGraph, inputs: str, filters: int, stride: int, expansion: int, block: int) -> str:
    cin = k.shape(inputs)[1]
    x = k.relu6(k.bn(k.conv(inputs, expansion * cin, (1, 1), bias=False))) if block else inputs
    if stride == 2:
        pads = correct_pad(k.shape(x)[2], 3), correct_pad(k.shape(x)[3], 3)
        x = k.zero_padding(x, *pads)
    x = k.relu6(k.bn(k.depthwise_conv(x, stride, "same" if stride == 1 else "valid", bias=False)))
    x = k.bn(k.conv(x, filters, (1, 1), bias=False))
    return k.add(inputs, x) if cin == filters and stride == 1 else x


def build_ds_cnn(channels_last: bool = True, seed: int = 22) -> onnx.ModelProto:
    """MLPerf Tiny keyword spotting (DS-CNN): 49x10x1 MFCCs, Conv2D(64, (10, 4), strides 2,
    'same'), four depthwise-separable blocks of 64, AveragePooling2D((25, 5)), Flatten,
    Dense(12), softmax."""
    k = KerasGraph("ds_cnn", seed, channels_last)
    x = k.input("input_1", 49, 10, 1)
    x = k.relu(k.bn(k.conv(x, 64, (10, 4), stride=2)))
    for _ in range(4):
        x = k.relu(k.bn(k.depthwise_conv(x)))
        x = k.relu(k.bn(k.conv(x, 64, (1, 1))))
    x = k.flatten(k.average_pooling(x, (25, 5)))
    return k.build(k.softmax(k.dense(x, 12)), doc="MLPerf Tiny DS-CNN keyword spotter")


def build_resnet8(channels_last: bool = True, seed: int = 23) -> onnx.ModelProto:
    """MLPerf Tiny image classification (ResNet-8): 32x32x3, a 16-channel stem, three residual
    stacks of 16, 32 (stride 2, 1x1 projection) and 64 (likewise) channels,
    AveragePooling2D(8), Flatten, Dense(10), softmax."""
    k = KerasGraph("resnet8", seed, channels_last)
    x = k.input("input_1", 32, 32, 3)
    x = k.relu(k.bn(k.conv(x, 16, (3, 3))))
    for filters, stride in ((16, 1), (32, 2), (64, 2)):
        y = k.relu(k.bn(k.conv(x, filters, (3, 3), stride)))
        y = k.bn(k.conv(y, filters, (3, 3)))
        if stride != 1:
            x = k.conv(x, filters, (1, 1), stride)
        x = k.relu(k.add(x, y))
    x = k.flatten(k.average_pooling(x, (8, 8)))
    return k.build(k.softmax(k.dense(x, 10)), doc="MLPerf Tiny ResNet-8")


def float_nodes(model: onnx.ModelProto) -> list[str]:
    """The nodes the int8 version keeps in float: the layout Transpose of the float input
    (tf2onnx's graph quantized by onnxruntime: its QuantizeLinear comes after it)."""
    inputs = {i.name for i in model.graph.input}
    return [n.name for n in model.graph.node if n.op_type == "Transpose" and n.input[0] in inputs]
