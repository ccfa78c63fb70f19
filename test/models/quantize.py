"""Static int8 QDQ quantization of the float test models.

Why: the compiler's int8 path consumes QDQ graphs as produced by the usual
tool (onnxruntime.quantization). Calibration uses fixed-seed inputs and
MinMax, so the result is byte-identical across rebuilds on the same machine.
BatchNorm is folded into the preceding Conv first (as any deployment flow
does), but by hand: ``quant_pre_process``'s onnxruntime optimizer would also
decompose HardSwish/Swish and constant-fold the Shape chains we want to keep.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process

from ort_helpers import random_inputs

CALIBRATION_SEED = 1234
CALIBRATION_SAMPLES = 8


class RandomDataReader(CalibrationDataReader):
    """Yields ``samples`` fixed-seed random input dicts, then None."""

    def __init__(self, model: onnx.ModelProto, samples: int, seed: int) -> None:
        self._batches: Iterator[dict[str, np.ndarray]] = iter(
            [random_inputs(model, seed + i) for i in range(samples)]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._batches, None)


def fold_batchnorm(model: onnx.ModelProto) -> onnx.ModelProto:
    """Fold every BatchNormalization whose input is a single-use Conv output."""
    folded = onnx.ModelProto()
    folded.CopyFrom(model)
    graph = folded.graph
    inits = {i.name: i for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    uses: dict[str, int] = {}
    for n in graph.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
    graph_outputs = {o.name for o in graph.output}
    dead: list[onnx.NodeProto] = []
    for bn in [n for n in graph.node if n.op_type == "BatchNormalization"]:
        conv = producer.get(bn.input[0])
        if (conv is None or conv.op_type != "Conv" or uses[bn.input[0]] != 1
                or bn.input[0] in graph_outputs):
            continue
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        gamma, beta, mean, var = (numpy_helper.to_array(inits[i]) for i in bn.input[1:5])
        scale = gamma / np.sqrt(var + eps)
        w = numpy_helper.to_array(inits[conv.input[1]])
        b = numpy_helper.to_array(inits[conv.input[2]]) if len(conv.input) > 2 else 0.0
        inits[conv.input[1]].CopyFrom(numpy_helper.from_array(
            (w * scale.reshape((-1,) + (1,) * (w.ndim - 1))).astype(np.float32), conv.input[1]))
        bias_name = f"{conv.input[1].removesuffix('.weight')}.bias"
        bias = numpy_helper.from_array(((b - mean) * scale + beta).astype(np.float32), bias_name)
        if len(conv.input) > 2:
            inits[conv.input[2]].CopyFrom(bias)
        else:
            graph.initializer.append(bias)
            conv.input.append(bias_name)
        conv.output[0] = bn.output[0]
        dead.append(bn)
    for bn in dead:
        graph.node.remove(bn)
    used = {i for n in graph.node for i in n.input}
    for init in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(init)
    return folded


def prune_dead_nodes(model: onnx.ModelProto) -> None:
    """Drop nodes whose outputs are unused (e.g. Clip bounds of removed Clips)."""
    graph = model.graph
    while True:
        live = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
        dead = [n for n in graph.node if not any(o in live for o in n.output)]
        if not dead:
            return
        for node in dead:
            graph.node.remove(node)


def quantize_int8(model: onnx.ModelProto, per_channel: bool = True,
                  samples: int = CALIBRATION_SAMPLES,
                  seed: int = CALIBRATION_SEED,
                  exclude: Sequence[str] = ()) -> onnx.ModelProto:
    """Return the QDQ int8 version (int8 activations, symmetric int8 weights); the nodes
    named in ``exclude`` stay in float."""
    with tempfile.TemporaryDirectory(prefix="tigris_quant_") as tmp:
        src, pre, dst = (Path(tmp) / n for n in ("float.onnx", "pre.onnx", "int8.onnx"))
        onnx.save(fold_batchnorm(model), str(src))
        # The quantizer warns about its own defaults/deprecations; keep those
        # local so the test suite can run with -W error.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quant_pre_process(str(src), str(pre), skip_optimization=True, skip_symbolic_shape=True)
            quantize_static(
                str(pre), str(dst), RandomDataReader(model, samples, seed),
                quant_format=QuantFormat.QDQ,
                per_channel=per_channel,
                nodes_to_exclude=list(exclude),
                activation_type=QuantType.QInt8,
                weight_type=QuantType.QInt8,
                extra_options={"WeightSymmetric": True, "ActivationSymmetric": False},
            )
        quantized = onnx.load(str(dst))
    prune_dead_nodes(quantized)
    quantized.graph.name = f"{model.graph.name}_int8"
    return quantized
