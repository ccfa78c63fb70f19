"""Writes the first half of a valid ONNX model: a truncated protobuf for the error tests."""

import sys

import onnx
from onnx import TensorProto, helper

node = helper.make_node("Relu", ["x"], ["y"], name="relu")
graph = helper.make_graph(
    [node],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
    [helper.make_tensor("unused", TensorProto.FLOAT, [256], [0.5] * 256)],
)
data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
assert onnx.load_model_from_string(data).graph.node  # the full model is valid
with open(sys.argv[1], "wb") as f:
    f.write(data[: len(data) // 2])
