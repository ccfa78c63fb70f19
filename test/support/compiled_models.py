"""Compile a model once for both the runtime and the interpreter, and compare outputs.

A `Compiled` holds the plan bytes and the compiled IR of the same compilation, so the C runtime
(through run_ops or `tigris run`) and the reference interpreter run the very same program.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from tigris.dialects.interpreter import run_module
from tigris.dialects.interpreter.kernels_math import quantize_linear
from tigris.dialects.onnx.importer import import_model_file
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import DType
from tigris.emit.tgrs.model import PlanFile
from tigris.tools.cli import compile_bytes
from tigris.transforms.normalize.model_layout import to_model_order, to_user_layout
from tigris.transforms.pipelines import TigrisCompilePass
from xdsl.context import Context

BUDGET = 64 << 20
"""Large enough for one untiled stage for every model here."""

ORT_INT8_STEPS = {"mobilenet_v2": 16, "unet": 6, "yolo": 6, "dense_autoencoder": 3, "silu_ops": 3,
                  "keras_mobilenet_v1": 7, "keras_mobilenet_v2": 3}
"""int8 output distance to onnxruntime allowed (in output steps) where not 1, per zoo model (a
pruned variant has its base model's bound). onnxruntime runs the QDQ graph in float and rounds
once per op; the integer pipeline (TFLite's, the interpreter's, the runtime's) rounds each
requantization twice and computes averages, tables and Add in integers, so each op may land 1 LSB
away (test_interpreter_int8_zoo: every op within 1 LSB on onnxruntime's own inputs) and deep models
compound it. Measured over seeds 0-9 with the interpreter on the compiled IR (the runtime is
bit-exact with it): mobilenet_v2 <= 13, unet 5, yolo 4, dense_autoencoder and silu_ops 2,
keras_mobilenet_v1 6 and keras_mobilenet_v2 2 (in steps of their logits, see `ort_lsb`), the
others <= 1."""


@dataclass
class Compiled:
    qdq: onnx.ModelProto
    plan_bytes: bytes
    plan: PlanFile
    module: object  # the compiled ModuleOp the interpreter runs


def compile_model(model: onnx.ModelProto, folder: Path) -> Compiled:
    """compile_bytes' plan, and the same compilation's IR for the interpreter."""
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    plan_bytes = compile_bytes(str(path), BUDGET)
    module = import_model_file(path)
    TigrisCompilePass(budget=BUDGET).apply(Context(), module)
    plan = read_plan(plan_bytes)
    assert len(plan.stages) == 1 and not plan.tile_plans
    return Compiled(model, plan_bytes, plan, module)


def plan_inputs(c: Compiled, seed: int) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    """N(0, 1) float inputs for onnxruntime and the same values as the plan takes them
    (quantized at the plan input's parameters, as the host and QuantizeLinear do)."""
    import ort_helpers

    floats = ort_helpers.random_inputs(c.qdq, seed)
    stored = []
    for name, index in zip(floats, c.plan.inputs, strict=True):
        tensor = c.plan.tensors[index]
        x = floats[name]
        if tensor.dtype in (DType.I8, DType.U8):
            q = c.plan.quant_params[tensor.quant]
            dtype = np.int8 if tensor.dtype == DType.I8 else np.uint8
            x = quantize_linear(x, np.float32(q.scales[0]), np.int64(q.zero_points[0]), np.dtype(dtype), 0)
        stored.append(x)
    return floats, stored


def interpret(c: Compiled, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The interpreter on the compiled IR, inputs (in the ONNX model's layout) and outputs
    permuted as the plan's `perm` says: the user's tensor is the IR's transposed by it."""
    inputs = [to_model_order(x, c.plan.tensors[t].perm) for x, t in zip(inputs, c.plan.inputs, strict=True)]
    outputs = run_module(c.module, inputs)  # type: ignore[arg-type]
    return [np.ascontiguousarray(to_user_layout(y, c.plan.tensors[t].perm)) for y, t in zip(outputs, c.plan.outputs)]


def ort_lsb(c: Compiled, floats: dict[str, np.ndarray], got: list[np.ndarray]) -> int:
    """Largest |ours - onnxruntime| over the int8 outputs, in output steps: onnxruntime's float
    output (a DequantizeLinear of its int8 value) quantized back at the output's parameters.

    A float output of an int8 model is a float Softmax over dequantized int8 logits (the Keras
    models keep it in float, keras_models.py); it is measured in steps of the logits' scale s:
    a row of softmax's Jacobian, diag(p) - p p^T, has L1 norm 2 p_i (1 - p_i) <= 1/2, so
    |dp|max <= |dz|max / 2 and 2 |dp|max / s is at most the logits' distance in steps (1e-3 of
    a step absorbs the two float softmax implementations' rounding)."""
    import ort_helpers

    worst = 0
    producers = {out: node.op_type for node in c.qdq.graph.node for out in node.output}
    logit_scales = ort_helpers.output_dequantize_scales(c.qdq)
    for k, (index, ours, theirs) in enumerate(zip(
        c.plan.outputs, got, ort_helpers.run_onnxruntime(c.qdq, floats), strict=True
    )):
        tensor = c.plan.tensors[index]
        if tensor.quant is None:
            assert producers[c.qdq.graph.output[k].name] == "Softmax", "a float output that is not a Softmax"
            steps = 2 * float(np.abs(ours.astype(np.float64) - theirs).max(initial=0)) / logit_scales[k]
            worst = max(worst, math.ceil(steps - 1e-3))
            continue
        q = c.plan.quant_params[tensor.quant]
        info = np.iinfo(ours.dtype)
        stored = np.clip(
            np.rint(theirs.astype(np.float64) / q.scales[0]) + q.zero_points[0], info.min, info.max
        )
        worst = max(worst, int(np.abs(stored - ours.astype(np.int64)).max(initial=0)))
    return worst
