"""Compile a model once for both the runtime and the interpreter, and compare outputs.

A `Compiled` holds the plan bytes and the compiled IR of the same compilation, so the C runtime
(through run_ops or `tigris run`) and the reference interpreter run the very same program.
"""

from __future__ import annotations

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
from tigris.transforms.pipelines import TigrisCompilePass
from xdsl.context import Context

BUDGET = 64 << 20
"""Large enough for one untiled stage for every model here."""

ORT_INT8_STEPS = {"mobilenet_v2": 16, "unet": 6, "yolo": 6, "dense_autoencoder": 3, "silu_ops": 3}
"""int8 output distance to onnxruntime allowed (in output steps) where not 1, per zoo model (a
pruned variant has its base model's bound). onnxruntime runs the QDQ graph in float and rounds
once per op; the integer pipeline (TFLite's, the interpreter's, the runtime's) rounds each
requantization twice and computes averages, tables and Add in integers, so each op may land 1 LSB
away (test_interpreter_int8_zoo: every op within 1 LSB on onnxruntime's own inputs) and deep models
compound it. Measured over seeds 0-9 with the interpreter on the compiled IR (the runtime is
bit-exact with it): mobilenet_v2 <= 13, unet 5, yolo 4, dense_autoencoder and silu_ops 2, the
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
    in_perms = [c.plan.tensors[index].perm for index in c.plan.inputs]
    inputs = [x if perm is None else np.transpose(x, np.argsort(perm)) for x, perm in zip(inputs, in_perms, strict=True)]
    outputs = run_module(c.module, inputs)  # type: ignore[arg-type]
    for i, index in enumerate(c.plan.outputs):
        perm = c.plan.tensors[index].perm
        if perm is not None:
            outputs[i] = np.ascontiguousarray(outputs[i].transpose(perm))
    return outputs


def ort_lsb(c: Compiled, floats: dict[str, np.ndarray], got: list[np.ndarray]) -> int:
    """Largest |ours - onnxruntime| over the int8 outputs, in output steps: onnxruntime's float
    output (a DequantizeLinear of its int8 value) quantized back at the output's parameters."""
    import ort_helpers

    worst = 0
    for index, ours, theirs in zip(
        c.plan.outputs, got, ort_helpers.run_onnxruntime(c.qdq, floats), strict=True
    ):
        q = c.plan.quant_params[c.plan.tensors[index].quant]
        info = np.iinfo(ours.dtype)
        stored = np.clip(
            np.rint(theirs.astype(np.float64) / q.scales[0]) + q.zero_points[0], info.min, info.max
        )
        worst = max(worst, int(np.abs(stored - ours.astype(np.int64)).max(initial=0)))
    return worst
