"""int8 outputs of every int8 zoo model against three references, in output steps (LSB).

Usage: python bench/int8_oracles.py [--models KEY ...] [--seeds N]

For each int8 model of test/models and seeds 0..N-1 (N(0, 1) inputs), the largest distance of
our outputs (the interpreter on the compiled IR, bit-exact with the C runtime) to:
onnxruntime's float path (graph optimizations off: the QDQ graph as written, what the tests
compare with), onnxruntime's integer path (all optimizations: its QLinear kernels, what a user
running onnxruntime gets by default), and the exact evaluation of the QDQ graph by the ONNX
package's reference evaluator (test/support/exact_qdq.py); and the exact evaluation's own
distance to onnxruntime's float path, the part of our distance that is onnxruntime's rounding.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT / "test" / "support", ROOT / "test" / "models"):
    sys.path.insert(0, str(folder))

import ort_helpers  # noqa: E402
from compiled_models import compile_model, interpret, lsb_distance, plan_inputs, stored_outputs  # noqa: E402
from exact_qdq import ExactQdq  # noqa: E402
from zoo_models import build_models, model_keys  # noqa: E402

from tigris.tools.report.text import table  # noqa: E402


def _ort_integer_path(model: onnx.ModelProto) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def measure(model: onnx.ModelProto, seeds: int) -> tuple[int, int, int, int]:
    """Max over seeds: (ours-ort float, ours-ort integer, ours-exact, exact-ort float)."""
    with tempfile.TemporaryDirectory() as tmp:
        c = compile_model(model, Path(tmp))
    exact, integer = ExactQdq(model), _ort_integer_path(model)
    worst = [0, 0, 0, 0]
    for seed in range(seeds):
        floats, inputs = plan_inputs(c, seed)
        ours = interpret(c, inputs)
        ort_float = ort_helpers.run_onnxruntime(model, floats)
        reference = exact.run(floats)
        row = (
            lsb_distance(c, ort_float, ours),
            lsb_distance(c, integer.run(None, floats), ours),
            lsb_distance(c, reference, ours),
            lsb_distance(c, ort_float, stored_outputs(c, reference)),
        )
        worst = [max(w, r) for w, r in zip(worst, row)]
    return tuple(worst)  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", help="int8 zoo keys (default: every one)")
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    keys = args.models or [k for k in model_keys() if k.endswith("_int8")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = build_models(keys, Path(tmp))
        for key in keys:
            got = measure(onnx.load(str(paths[key])), args.seeds)
            rows.append([key, *map(str, got)])
            print(f"{key}: {got}", file=sys.stderr, flush=True)
    print("\n".join(table(["model", "ours-ort(float)", "ours-ort(int)", "ours-exact", "exact-ort(float)"], rows)))


if __name__ == "__main__":
    main()
