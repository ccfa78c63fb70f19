"""`onnx` ops with weights or windows: Conv, pools, normalizations, Gemm/MatMul."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, opt_result_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.onnx.base import MultiOptional, OnnxOp, float_attr, int_attr, array_attr, string_attr
from tigris.dialects.shapes import ints, normalize_axis, shape_of, windowed_shape


@irdl_op_definition
class ConvOp(OnnxOp):
    name = "onnx.Conv"
    X = operand_def(TensorType)
    W = operand_def(TensorType)
    B = opt_operand_def(TensorType)
    Y = result_def(TensorType)
    auto_pad = string_attr("NOTSET")
    dilations = array_attr()
    group = int_attr(1)
    kernel_shape = array_attr()
    pads = array_attr()
    strides = array_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        x, w = shape_of(self.X), shape_of(self.W)
        group = self.group.value.data
        if len(x) < 3 or len(w) != len(x):
            raise VerifyException(f"onnx.Conv: input {x} and weight {w} need the same rank >= 3")
        if group < 1 or x[1] != w[1] * group or w[0] % group:
            raise VerifyException(f"onnx.Conv: {x[1]} input channels do not match weight {w} with group {group}")
        kernel = ints(self, "kernel_shape")
        if kernel is not None and tuple(kernel) != w[2:]:
            raise VerifyException(f"onnx.Conv: kernel_shape {kernel} does not match weight {w}")


@irdl_op_definition
class ConvTransposeOp(OnnxOp):
    name = "onnx.ConvTranspose"
    X = operand_def(TensorType)
    W = operand_def(TensorType)
    B = opt_operand_def(TensorType)
    Y = result_def(TensorType)
    auto_pad = string_attr("NOTSET")
    dilations = array_attr()
    group = int_attr(1)
    kernel_shape = array_attr()
    output_padding = array_attr()
    output_shape = array_attr()
    pads = array_attr()
    strides = array_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        x, w = shape_of(self.X), shape_of(self.W)
        if len(x) < 3 or len(w) != len(x) or w[0] != x[1]:
            raise VerifyException(f"onnx.ConvTranspose: weight {w} does not match input {x}")


def _check_channel_params(op: OnnxOp, count: int) -> None:
    channels = shape_of(op.operands[0])[1]
    for param in op.operands[1 : 1 + count]:
        if shape_of(param) != (channels,):
            raise VerifyException(f"{op.name}: per-channel inputs must have shape ({channels},)")


@irdl_op_definition
class BatchNormalizationOp(OnnxOp):
    name = "onnx.BatchNormalization"
    X = operand_def(TensorType)
    scale = operand_def(TensorType)
    B = operand_def(TensorType)
    input_mean = operand_def(TensorType)
    input_var = operand_def(TensorType)
    Y = result_def(TensorType)
    epsilon = float_attr(1e-5)
    momentum = float_attr(0.9)
    training_mode = int_attr(0)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_channel_params(self, 4)


@irdl_op_definition
class InstanceNormalizationOp(OnnxOp):
    name = "onnx.InstanceNormalization"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    B = operand_def(TensorType)
    output = result_def(TensorType)
    epsilon = float_attr(1e-5)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_channel_params(self, 2)


class _Pool(OnnxOp):
    X = operand_def(TensorType)
    Y = result_def(TensorType)
    auto_pad = string_attr("NOTSET")
    ceil_mode = int_attr(0)
    dilations = array_attr()
    kernel_shape = array_attr()
    pads = array_attr()
    strides = array_attr()

    def verify_(self) -> None:
        kernel = ints(self, "kernel_shape")
        x = shape_of(self.X)
        rank = len(x) - 2
        if kernel is None or len(kernel) != rank:
            raise VerifyException(f"{self.name}: kernel_shape must have {rank} values (one per spatial axis)")
        if self.ceil_mode.value.data and self.auto_pad.data == "NOTSET":
            want = windowed_shape(self, x, kernel, x[1], ceil=True)
            if shape_of(self.Y) != want:
                raise VerifyException(
                    f"{self.name}: with ceil_mode the output is {want} (a last window starting in the padding "
                    f"is dropped, as onnxruntime does), not {shape_of(self.Y)}; reduce the end pads"
                )


@irdl_op_definition
class MaxPoolOp(_Pool):
    name = "onnx.MaxPool"
    storage_order = int_attr(0)
    traits = traits_def(Pure())


@irdl_op_definition
class AveragePoolOp(_Pool):
    name = "onnx.AveragePool"
    count_include_pad = int_attr(0)
    traits = traits_def(Pure())


@irdl_op_definition
class GlobalAveragePoolOp(OnnxOp):
    name = "onnx.GlobalAveragePool"
    X = operand_def(TensorType)
    Y = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class GlobalMaxPoolOp(OnnxOp):
    name = "onnx.GlobalMaxPool"
    X = operand_def(TensorType)
    Y = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class LRNOp(OnnxOp):
    name = "onnx.LRN"
    X = operand_def(TensorType)
    Y = result_def(TensorType)
    alpha = float_attr(1e-4)
    beta = float_attr(0.75)
    bias = float_attr(1.0)
    size = int_attr()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.size is None or self.size.value.data < 1:
            raise VerifyException("onnx.LRN: size is required and must be >= 1")


@irdl_op_definition
class GemmOp(OnnxOp):
    name = "onnx.Gemm"
    A = operand_def(TensorType)
    B = operand_def(TensorType)
    C = opt_operand_def(TensorType)
    Y = result_def(TensorType)
    alpha = float_attr(1.0)
    beta = float_attr(1.0)
    transA = int_attr(0)
    transB = int_attr(0)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        a, b = shape_of(self.A), shape_of(self.B)
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(f"onnx.Gemm: A {a} and B {b} must be 2-D")
        k_a = a[0] if self.transA.value.data else a[1]
        k_b = b[1] if self.transB.value.data else b[0]
        if k_a != k_b:
            raise VerifyException(f"onnx.Gemm: inner dimensions {k_a} and {k_b} differ")


@irdl_op_definition
class MatMulOp(OnnxOp):
    name = "onnx.MatMul"
    A = operand_def(TensorType)
    B = operand_def(TensorType)
    Y = result_def(TensorType)
    traits = traits_def(Pure())


class _NormalizeAlongAxis(OnnxOp):
    """Softmax and LogSoftmax: `axis` defaults to -1 (opset 13); the importer writes 1
    explicitly for older opsets, whose meaning it rewrites (flatten to 2-D first)."""

    input = operand_def(TensorType)
    output = result_def(TensorType)
    axis = int_attr(-1)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        normalize_axis(self.axis.value.data, len(shape_of(self.input)))


@irdl_op_definition
class SoftmaxOp(_NormalizeAlongAxis):
    name = "onnx.Softmax"


@irdl_op_definition
class LogSoftmaxOp(_NormalizeAlongAxis):
    name = "onnx.LogSoftmax"


@irdl_op_definition
class LayerNormalizationOp(OnnxOp):
    """Opset 17. Only Y is modelled: a node that also outputs Mean or InvStdDev (training
    graphs) imports as a generic op, which check-legal names."""

    name = "onnx.LayerNormalization"
    X = operand_def(TensorType)
    Scale = operand_def(TensorType)
    B = opt_operand_def(TensorType)
    Y = result_def(TensorType)
    axis = int_attr(-1)
    epsilon = float_attr(1e-5)
    stash_type = int_attr(1)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        normalize_axis(self.axis.value.data, len(shape_of(self.X)))


@irdl_op_definition
class DropoutOp(MultiOptional):
    """`ratio` is an attribute before opset 12, an input after; either way inference ignores it."""

    name = "onnx.Dropout"
    data = operand_def(TensorType)
    ratio_in = opt_operand_def(TensorType)
    training_mode = opt_operand_def(TensorType)
    output = result_def(TensorType)
    mask = opt_result_def(TensorType)
    """In inference mode all ones (true): every element is kept."""
    ratio = float_attr()
    seed = int_attr()
    traits = traits_def(Pure())
