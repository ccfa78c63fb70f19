"""int8 outputs against an exact evaluation of the QDQ graph, and onnxruntime against both.

Issue 13 asks int8 outputs within 1 LSB of onnxruntime. On the deep zoo models ours are up to
4 steps from onnxruntime's float path (compiled_models.ORT_INT8_STEPS). These tests pin why,
with the ONNX package's reference evaluator as a third, independent oracle that computes the
same QDQ graph with each op correctly rounded (test/support/exact_qdq.py):

- ours are within EXACT_INT8_STEPS of the exact evaluation (0 for most models: bit-exact);
- onnxruntime's float path is itself that far from the exact evaluation: on every seed, our
  distance to onnxruntime is at most one step more than the exact evaluation's distance to it.

So the steps between us and onnxruntime are onnxruntime's float32 summation order at a
rounding tie, amplified by the layers after it, not an error of ours. The interpreter on the
compiled IR stands for the runtime (bit-exact with it: test_runtime_kernels_i8's zoo test).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

import ort_helpers
from compiled_models import compile_model, interpret, lsb_distance, plan_inputs, stored_outputs  # test/support
from exact_qdq import ExactQdq  # test/support

EXACT_INT8_STEPS = {"unet": 2}
"""Distance to the exact evaluation where not 0, measured over seeds 0-9: UNet's convolutions
requantize an int32 sum with one float32 factor (accumulator_scales), where the exact
evaluation rounds each dequantized operand; the two differ at a near-tie, and the layers after
amplify it. MobileNetV2 is bit-exact with the exact evaluation on every seed (so are the other
15 int8 zoo models: bench/int8_oracles.py)."""

MODELS = ["mobilenet_v2", "unet"]
"""The int8 zoo models more than 1 step from onnxruntime (ORT_INT8_STEPS); every model is in
bench/int8_oracles.py's table."""
SEEDS = (0, 3, 4, 7)
"""The seeds (of 0-9, all in bench/int8_oracles.py) where onnxruntime's float path is more than 1 step
from the exact evaluation or from us on these two models: the cases the claim is about."""


@pytest.mark.parametrize("name", MODELS)
def test_int8_matches_the_exact_qdq_evaluation(name: str, model_zoo: dict[str, Path], tmp_path: Path) -> None:
    qdq = onnx.load(str(model_zoo[f"{name}_int8"]))
    c = compile_model(qdq, tmp_path)
    exact = ExactQdq(qdq)
    rows = []
    for seed in SEEDS:
        floats, inputs = plan_inputs(c, seed)
        ours = interpret(c, inputs)
        reference = exact.run(floats)
        ort = ort_helpers.run_onnxruntime(qdq, floats)
        exact_ints = stored_outputs(c, reference)
        rows.append((seed, lsb_distance(c, reference, ours), lsb_distance(c, ort, ours), lsb_distance(c, ort, exact_ints)))
    print(f"\n{name}_int8 (seed, ours-exact, ours-onnxruntime, exact-onnxruntime): {rows}")
    assert max(r[1] for r in rows) <= EXACT_INT8_STEPS.get(name, 0), rows
    for seed, _, ours_ort, exact_ort in rows:
        assert ours_ort <= exact_ort + 1, f"seed {seed}: {ours_ort} steps from onnxruntime, exact {exact_ort}"
