"""Tiny deterministic ONNX graph builder shared by all test-model modules.

Why: every test model needs the same Conv/BN/activation plumbing, unique node
names, static shape bookkeeping and seeded, well-scaled initializers. Keeping
that here keeps each model file short and every build byte-for-byte
reproducible (one ``numpy.random.Generator`` consumed in a fixed order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

Shape = tuple[int, ...]


def conv_out(size: int, kernel: int, stride: int, pad_total: int, dilation: int = 1) -> int:
    """Output length of a conv/pool window along one axis (floor mode)."""
    return (size + pad_total - dilation * (kernel - 1) - 1) // stride + 1


def count_params(model: onnx.ModelProto) -> int:
    """Elements in all non-int64 initializers (int64 ones are shape constants).

    For QDQ models this also counts scales and zero points.
    """
    return sum(
        int(np.prod(init.dims, dtype=np.int64))
        for init in model.graph.initializer
        if init.data_type != TensorProto.INT64
    )


class GraphBuilder:
    """Accumulates nodes/initializers and tracks every tensor's static shape."""

    def __init__(self, name: str, seed: int, opset: int = 17) -> None:
        self.name = name
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self.shapes: dict[str, Shape] = {}
        self._counts: dict[str, int] = {}
        self._shared: dict[tuple[str, bytes], str] = {}

    # ---------------------------------------------------------------- basics
    def unique(self, prefix: str) -> str:
        n = self._counts.get(prefix, 0)
        self._counts[prefix] = n + 1
        return f"{prefix}_{n}"

    def add_input(self, name: str, shape: Shape) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        self.shapes[name] = tuple(shape)
        return name

    def add_output(self, name: str) -> None:
        """Declare ``name`` as a graph output with its tracked static shape."""
        self.outputs.append(
            helper.make_tensor_value_info(name, TensorProto.FLOAT, list(self.shapes[name]))
        )

    def init(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(array, name))
        self.shapes[name] = tuple(array.shape)
        return name

    def shared_init(self, prefix: str, array: np.ndarray) -> str:
        """One initializer per distinct constant value (e.g. Clip bounds)."""
        key = (str(array.dtype) + str(array.shape), array.tobytes())
        if key not in self._shared:
            self._shared[key] = self.init(self.unique(prefix), array)
        return self._shared[key]

    def constant(self, array: np.ndarray) -> str:
        """A ``Constant`` node (how the PyTorch exporter writes small values)."""
        name = self.unique("Constant")
        out = f"{name}_out"
        self.nodes.append(
            helper.make_node("Constant", [], [out], name=name,
                             value=numpy_helper.from_array(array))
        )
        self.shapes[out] = tuple(array.shape)
        return out

    def op(self, op_type: str, inputs: Sequence[str], shape: Shape,
           domain: str = "", **attrs: Any) -> str:
        """Append a single-output node; the caller states the output shape."""
        name = self.unique(op_type)
        out = f"{name}_out"
        self.nodes.append(
            helper.make_node(op_type, list(inputs), [out], name=name, domain=domain, **attrs)
        )
        self.shapes[out] = tuple(shape)
        return out

    # --------------------------------------------------------- layer helpers
    def conv(self, x: str, cout: int, k: int, stride: int = 1, groups: int = 1,
             bias: bool = True, gain: float = 2.0) -> str:
        """Conv1D/2D with 'same'-style padding k//2 and He-normal weights."""
        nd = len(self.shapes[x]) - 2
        p = k // 2
        return self.conv_window(x, cout, (k,) * nd, (stride,) * nd, [p] * (2 * nd), groups, bias, gain)

    def conv_window(self, x: str, cout: int, kernel: Sequence[int], strides: Sequence[int],
                    pads: Sequence[int], groups: int = 1, bias: bool = True, gain: float = 2.0) -> str:
        """Conv with any kernel, strides and explicit pads ([begins..., ends...]); He-normal weights."""
        n, cin, *spatial = self.shapes[x]
        nd = len(spatial)
        fan_in = cin // groups * int(np.prod(kernel))
        w = self.rng.normal(0.0, np.sqrt(gain / fan_in), (cout, cin // groups, *kernel))
        prefix = f"conv{self._counts.get('Conv', 0)}"
        ins = [x, self.init(f"{prefix}.weight", w.astype(np.float32))]
        if bias:
            b = self.rng.normal(0.0, 0.02, cout).astype(np.float32)
            ins.append(self.init(f"{prefix}.bias", b))
        out_sp = tuple(conv_out(s, k, st, pads[i] + pads[nd + i])
                       for i, (s, k, st) in enumerate(zip(spatial, kernel, strides)))
        return self.op("Conv", ins, (n, cout) + out_sp, dilations=[1] * nd, group=groups,
                       kernel_shape=list(kernel), pads=list(pads), strides=list(strides))

    def bn(self, x: str) -> str:
        """BatchNorm with plausible trained-looking statistics (var > 0)."""
        c = self.shapes[x][1]
        prefix = f"bn{self._counts.get('BatchNormalization', 0)}"
        params = {
            "weight": self.rng.uniform(0.7, 1.3, c),
            "bias": self.rng.normal(0.0, 0.1, c),
            "running_mean": self.rng.normal(0.0, 0.1, c),
            "running_var": self.rng.uniform(0.6, 1.6, c),
        }
        ins = [x] + [self.init(f"{prefix}.{k}", v.astype(np.float32)) for k, v in params.items()]
        return self.op("BatchNormalization", ins, self.shapes[x], epsilon=1e-5, momentum=0.9)

    def unary(self, op_type: str, x: str, **attrs: Any) -> str:
        return self.op(op_type, [x], self.shapes[x], **attrs)

    def relu(self, x: str) -> str:
        return self.unary("Relu", x)

    def clip(self, x: str, lo: float = 0.0, hi: float = 6.0, constant_nodes: bool = False) -> str:
        """Opset-11+ Clip: bounds are inputs (initializers or Constant nodes)."""
        bounds = [np.array(v, dtype=np.float32) for v in (lo, hi)]
        if constant_nodes:
            names = [self.constant(b) for b in bounds]
        else:
            names = [self.shared_init("clip_bound", b) for b in bounds]
        return self.op("Clip", [x, *names], self.shapes[x])

    def silu(self, x: str) -> str:
        """SiLU as PyTorch exports it below opset 24: x * Sigmoid(x)."""
        return self.op("Mul", [x, self.unary("Sigmoid", x)], self.shapes[x])

    def binary(self, op_type: str, a: str, b: str) -> str:
        shape = tuple(np.broadcast_shapes(self.shapes[a], self.shapes[b]))
        return self.op(op_type, [a, b], shape)

    def add(self, a: str, b: str) -> str:
        return self.binary("Add", a, b)

    def pool(self, op_type: str, x: str, k: int, stride: int, pad: int = 0) -> str:
        n, c, *spatial = self.shapes[x]
        nd = len(spatial)
        out_sp = tuple(conv_out(s, k, stride, 2 * pad) for s in spatial)
        return self.op(op_type, [x], (n, c) + out_sp, kernel_shape=[k] * nd,
                       pads=[pad] * (2 * nd), strides=[stride] * nd)

    def global_avg_pool(self, x: str) -> str:
        n, c, *spatial = self.shapes[x]
        return self.op("GlobalAveragePool", [x], (n, c) + (1,) * len(spatial))

    def flatten(self, x: str) -> str:
        n, *rest = self.shapes[x]
        return self.op("Flatten", [x], (n, int(np.prod(rest))), axis=1)

    def _dense_weights(self, fin: int, fout: int, gain: float) -> tuple[np.ndarray, np.ndarray]:
        w = self.rng.normal(0.0, np.sqrt(gain / fin), (fout, fin)).astype(np.float32)
        b = self.rng.normal(0.0, 0.02, fout).astype(np.float32)
        return w, b

    def gemm(self, x: str, fout: int, gain: float = 2.0) -> str:
        """Linear layer as PyTorch exports it: Gemm(x, W[out,in], b), transB=1."""
        n, fin = self.shapes[x]
        w, b = self._dense_weights(fin, fout, gain)
        prefix = f"fc{self._counts.get('Gemm', 0)}"
        ins = [x, self.init(f"{prefix}.weight", w), self.init(f"{prefix}.bias", b)]
        return self.op("Gemm", ins, (n, fout), alpha=1.0, beta=1.0, transB=1)

    def matmul_add(self, x: str, fout: int, gain: float = 2.0) -> str:
        """Linear layer in the MatMul(x, W[in,out]) + Add(b) form."""
        n, fin = self.shapes[x]
        w, b = self._dense_weights(fin, fout, gain)
        prefix = f"linear{self._counts.get('MatMul', 0)}"
        wt = self.init(f"{prefix}.weight", np.ascontiguousarray(w.T))
        y = self.op("MatMul", [x, wt], (n, fout))
        return self.op("Add", [y, self.init(f"{prefix}.bias", b)], (n, fout))

    def upsample2x(self, x: str) -> str:
        """Opset-13 Resize, nearest x2, as PyTorch exports nn.Upsample."""
        n, c, h, w = self.shapes[x]
        scales = self.shared_init("resize_scales", np.array([1, 1, 2, 2], dtype=np.float32))
        return self.op("Resize", [x, "", scales], (n, c, 2 * h, 2 * w),
                       coordinate_transformation_mode="asymmetric", cubic_coeff_a=-0.75,
                       mode="nearest", nearest_mode="floor")

    def concat(self, xs: Sequence[str], axis: int = 1) -> str:
        shape = list(self.shapes[xs[0]])
        shape[axis] = sum(self.shapes[x][axis] for x in xs)
        return self.op("Concat", xs, tuple(shape), axis=axis)

    def transpose(self, x: str, perm: Sequence[int]) -> str:
        shape = tuple(self.shapes[x][p] for p in perm)
        return self.op("Transpose", [x], shape, perm=list(perm))

    # ----------------------------------------------------------------- build
    def rename(self, old: str, new: str) -> str:
        """Give a produced tensor a readable name (used for graph outputs)."""
        for node in self.nodes:
            node.input[:] = [new if i == old else i for i in node.input]
            node.output[:] = [new if o == old else o for o in node.output]
        self.shapes[new] = self.shapes.pop(old)
        return new

    def build(self, outputs: dict[str, str], doc: str = "") -> onnx.ModelProto:
        """Finish the model; ``outputs`` maps graph-output name -> tensor."""
        for name, tensor in outputs.items():
            self.add_output(self.rename(tensor, name))
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
                                  initializer=self.initializers, doc_string=doc)
        opsets = [helper.make_opsetid("", self.opset)]
        model = helper.make_model(
            graph, opset_imports=opsets, producer_name="tigris-test-models",
            producer_version="1", ir_version=helper.find_min_ir_version_for(opsets),
        )
        onnx.checker.check_model(model, full_check=True)
        return model
