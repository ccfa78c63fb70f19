"""An exact evaluation of a QDQ model: the oracle that onnxruntime's float path approximates.

A QDQ int8 model means: dequantize each int8 tensor to float32, run each float op, quantize
the result. ONNX fixes what each op computes but not in which order a convolution or a matrix
product sums its terms, and onnxruntime's float32 sums (blocked, vectorized) round along the
way. Where a value lands within a rounding of a quantization tie, the order decides the int8
result, and a deep network amplifies one such flip into several output steps. So "within 1
LSB of onnxruntime" on a deep model measures onnxruntime's summation order as much as the
compiler under test.

This module evaluates the same graph with the ONNX package's reference evaluator (numpy, an
oracle independent of onnxruntime and of TiGrIS) in float64: every DequantizeLinear output is
the float32 value the standard defines, widened exactly; every arithmetic op computes in float64
(a product of two float32 values is exact in float64, and sums of them lose ~2^-53 relative)
and its output is rounded once to float32, as an op with an exact float32 result would give;
every QuantizeLinear takes that float32 value. The result is the QDQ model's meaning with each
op correctly rounded, a reference no summation order can beat.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ARITHMETIC = frozenset({
    "Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Sigmoid", "Tanh", "Resize",
    "AveragePool", "GlobalAveragePool", "Softmax", "LogSoftmax", "HardSwish", "HardSigmoid", "ReduceMean",
    "ReduceSum", "Exp", "Log", "Pow", "Sqrt", "Erf", "Gelu", "Elu", "Selu", "LeakyRelu", "PRelu", "Softplus",
    "Mean", "Sum", "BatchNormalization", "InstanceNormalization", "LayerNormalization", "Swish", "Silu",
})  # fmt: skip
"""Op types whose float output is rounded to float32 after the float64 computation. Moves,
max/min and comparisons are exact in any precision."""

REFERENCE_OPSET = 21
"""The reference evaluator implements DequantizeLinear from opset 19 on; QDQ models exported at
an older opset use no op whose meaning changed since (checked: the zoo's ops)."""


def exact_qdq_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """The QDQ model rewritten to compute between its Q/DQ pairs in float64 (see the module
    docstring): casts after each DequantizeLinear and before each QuantizeLinear, float
    initializers in float64 (but scales and Resize's scales), arithmetic outputs rounded to
    float32 once, float graph outputs returned as float32."""
    m = onnx.ModelProto.FromString(model.SerializeToString())
    g = m.graph
    keep_f32: set[str] = set()
    for n in g.node:
        if n.op_type in ("DequantizeLinear", "QuantizeLinear", "Resize"):
            keep_f32.update(n.input[1:])
    for i, t in enumerate(g.initializer):
        if t.data_type == TensorProto.FLOAT and t.name not in keep_f32:
            g.initializer[i].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name))
    nodes: list[onnx.NodeProto] = []
    for n in g.node:
        if n.op_type == "QuantizeLinear":
            narrow = n.input[0] + "__f32"
            nodes.append(helper.make_node("Cast", [n.input[0]], [narrow], to=TensorProto.FLOAT))
            n.input[0] = narrow
            nodes.append(n)
        elif n.op_type == "DequantizeLinear" or n.op_type in ARITHMETIC:
            out = n.output[0]
            n.output[0] = out + "__raw"
            nodes.append(n)
            source = out + "__raw"
            if n.op_type != "DequantizeLinear":
                nodes.append(helper.make_node("Cast", [source], [out + "__f32"], to=TensorProto.FLOAT))
                source = out + "__f32"
            nodes.append(helper.make_node("Cast", [source], [out], to=TensorProto.DOUBLE))
        elif n.op_type == "Cast" and any(a.name == "to" and a.i == TensorProto.FLOAT for a in n.attribute):
            for a in n.attribute:
                if a.name == "to":
                    a.i = TensorProto.DOUBLE
            nodes.append(n)
        else:
            nodes.append(n)
    for output in g.output:
        narrow = output.name + "__out"
        nodes.append(helper.make_node("Cast", [output.name], [narrow], to=TensorProto.FLOAT))
        output.name = narrow
    del g.node[:]
    g.node.extend(nodes)
    del g.value_info[:]
    for opset in m.opset_import:
        if opset.domain in ("", "ai.onnx") and opset.version < REFERENCE_OPSET:
            opset.version = REFERENCE_OPSET
    return m


class ExactQdq:
    """`run(feeds)` -> the float32 outputs of the exact evaluation of a QDQ model."""

    def __init__(self, model: onnx.ModelProto) -> None:
        from onnx.reference import ReferenceEvaluator

        self._evaluator = ReferenceEvaluator(exact_qdq_model(model))

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(y, np.float32) for y in self._evaluator.run(None, feeds)]
