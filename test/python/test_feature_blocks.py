"""Tiled dense layers: a fully_connected op in output-feature blocks (issue G2, item 4).

A multi-layer perceptron 256 -> 192 (ReLU) -> 10, float and int8 (onnxruntime's QDQ quantizer),
is compiled at budgets from untiled down to the smallest the planner reports, and run in the C
runtime in an arena of exactly that budget. Checked on every run: the outputs are byte-identical
to the untiled run's and agree with onnxruntime (1e-5 of the largest output for float, 1 output
step for int8), and the runtime's statistics equal the plan's predictions (loads, spills, tiles,
fast peak: `end_to_end.stat_mismatches`). The smallest budget is a hand calculation: without
blocks the first layer needs its input and its whole output at once, with them its input and
one feature (a tensor takes a multiple of the plan's 32-byte alignment).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from end_to_end import normalized, ort_distance, run_once, stat_mismatches  # test/support
from graph_builder import GraphBuilder  # test/models
from quantize import quantize_int8  # test/models
from tigris.tools.report import analyze_module

IN, HIDDEN, OUT = 256, 192, 10
ALIGN = 32  # the plan's alignment (TIGRIS_TENSOR_ALIGN)


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


ELEM = {"mlp": 4, "mlp_int8": 1}
SMALLEST = {key: _align(IN * e) + _align(e) for key, e in ELEM.items()}
"""The first layer with its input whole and one output feature (the second layer needs less:
HIDDEN x elem + one feature); float 1024 + 32, int8 256 + 32."""
UNBLOCKED = {key: _align(IN * e) + _align(HIDDEN * e) for key, e in ELEM.items()}
"""What the first layer needs without blocks: its input and its whole output."""


@pytest.fixture(scope="module")
def mlp(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("mlp")
    g = GraphBuilder("mlp", 11)
    x = g.add_input("input", (1, IN))
    y = g.gemm(g.relu(g.gemm(x, HIDDEN)), OUT, gain=1.0)
    model = g.build({"logits": y}, doc="MLP for output-feature blocks")
    paths = {"mlp": out / "mlp.onnx", "mlp_int8": out / "mlp_int8.onnx"}
    import onnx

    onnx.save(model, str(paths["mlp"]))
    onnx.save(quantize_int8(model), str(paths["mlp_int8"]))
    return paths


@pytest.mark.parametrize("key", ["mlp", "mlp_int8"])
def test_dense_layers_in_feature_blocks_match_untiled(key: str, mlp: dict[str, Path]) -> None:
    module = normalized(mlp[key])
    smallest = analyze_module(module, key, 64 << 10).min_budget
    assert smallest == SMALLEST[key] < UNBLOCKED[key]
    untiled = run_once(key, mlp[key], module, 64 << 10)
    assert not untiled.c.plan.tile_plans
    budgets = [smallest, (smallest + UNBLOCKED[key]) // 2 // ALIGN * ALIGN]
    for budget in budgets:
        run = run_once(key, mlp[key], module, budget)
        assert stat_mismatches(run) == [], run.label
        assert run.output_bytes == untiled.output_bytes, run.label
        blocks = [tp for tp in run.c.plan.tile_plans if tp.feature_blocks]
        assert blocks and all(tp.num_tiles_c > 1 for tp in blocks), run.label
        assert run.stats["total_tiles"] == sum(tp.num_tiles_c for tp in run.c.plan.tile_plans)
        assert run.stats["slow_overflow_count"] == 0, run.label
        distance = ort_distance(run, key.endswith("int8"))
        assert distance <= (1 if key.endswith("int8") else 1e-5), f"{run.label}: {distance}"
    # the smallest budget: the first layer's blocks are the features one alignment unit holds
    first = run_once(key, mlp[key], module, smallest).c.plan.tile_plans[0]
    per_block = ALIGN // ELEM[key]
    assert (first.tile_c, first.num_tiles_c) == (per_block, HIDDEN // per_block)


def test_traffic_at_the_smallest_budget_by_hand(mlp: dict[str, Path]) -> None:
    """Float at 1056 bytes: stage 1 is the first layer in 24 blocks of 8 features (32 bytes, one
    alignment unit, beside the 1024-byte input), each loading the input, the 768-byte hidden vector
    spilled once; stage 2, the second layer, fits whole (768 + 40 -> 832): it loads the hidden
    vector and spills the 40-byte logits."""
    module = normalized(mlp["mlp"])
    run = run_once("mlp", mlp["mlp"], module, SMALLEST["mlp"])
    assert run.stats["loads_bytes"] == 24 * IN * 4 + HIDDEN * 4
    assert run.stats["spills_bytes"] == HIDDEN * 4 + OUT * 4
    assert (run.stats["stages_tiled"], run.stats["stages_normal"], run.stats["total_tiles"]) == (1, 1, 24)
