"""onnxruntime helpers shared by the quantizer, the tests and the CLI.

Why: calibration and test inputs must come from the same deterministic
generator, derived only from the model's declared input names and shapes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort


def input_specs(model: onnx.ModelProto | str | Path) -> dict[str, tuple[int, ...]]:
    """Graph input name -> static shape (initializers are not inputs)."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(str(model), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    return {
        vi.name: tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)
        for vi in model.graph.input
        if vi.name not in inits
    }


def random_inputs(model: onnx.ModelProto | str | Path, seed: int) -> dict[str, np.ndarray]:
    """Fixed-seed float32 N(0, 1) inputs (QDQ models take float inputs too)."""
    rng = np.random.default_rng(seed)
    return {
        name: rng.standard_normal(shape).astype(np.float32)
        for name, shape in input_specs(model).items()
    }


def run_onnxruntime(model: onnx.ModelProto | str | Path,
                    inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Run on the CPU provider with graph optimizations off (test what we built)."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    session = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    return [np.asarray(r) for r in session.run(None, inputs)]


def output_dequantize_scales(model: onnx.ModelProto | str | Path) -> list[float]:
    """For each graph output of a QDQ model, the scale of the DequantizeLinear producing it
    (through data-movement ops such as Transpose): one output LSB, in float units."""
    from onnx import numpy_helper

    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(str(model))
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    producer = {out: node for node in model.graph.node for out in node.output}
    scales = []
    for output in model.graph.output:
        node = producer[output.name]
        while node.op_type != "DequantizeLinear":
            node = producer[node.input[0]]
        scales.append(float(inits[node.input[1]]))
    return scales
