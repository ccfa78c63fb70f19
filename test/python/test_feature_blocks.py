"""Tiled dense layers: a fully_connected op in blocks of its output features (issue G2, item 4).

A multi-layer perceptron 256 -> 192 (ReLU) -> 10, float and int8 (onnxruntime's QDQ quantizer),
is compiled at budgets from untiled down to the smallest the planner reports, and run in the C
runtime in an arena of exactly that budget. Each block of output features reads the whole input,
either at once (output-feature blocks) or in blocks of its K input features summed into partial
sums kept in the arena (reduction blocks). Checked on every run: the outputs are byte-identical to
the untiled run's and agree with onnxruntime (1e-5 of the largest output for float, 1 output step
for int8), and the runtime's statistics equal the plan's predictions (loads, spills, tiles, fast
peak: `end_to_end.stat_mismatches`). The smallest budget, the plans and the traffic are hand
calculations (a tensor and the partial sums each take a multiple of the plan's 32-byte alignment).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from end_to_end import normalized, ort_distance, run_once, stat_mismatches  # test/support
from graph_builder import GraphBuilder  # test/models
from quantize import quantize_int8  # test/models
from tigris.tools.report import analyze_module

IN, HIDDEN, OUT = 256, 192, 10
ALIGN = 32  # the plan's alignment (TIGRIS_TENSOR_ALIGN)
ELEM = {"mlp": 4, "mlp_int8": 1}


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


SMALLEST = 3 * ALIGN
"""Reduction blocks of one input feature and one output feature: the input value, the output value
and its 4-byte partial sum, one alignment unit each (float and int8)."""
UNBLOCKED = {key: _align(IN * e) + _align(HIDDEN * e) for key, e in ELEM.items()}
"""What the first layer needs without blocks: its input and its whole output (1792 / 448)."""


@pytest.fixture(scope="module")
def mlp(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("mlp")
    g = GraphBuilder("mlp", 11)
    x = g.add_input("input", (1, IN))
    model = g.build({"logits": g.gemm(g.relu(g.gemm(x, HIDDEN)), OUT, gain=1.0)}, doc="MLP for dense blocks")
    paths = {"mlp": out / "mlp.onnx", "mlp_int8": out / "mlp_int8.onnx"}
    onnx.save(model, str(paths["mlp"]))
    onnx.save(quantize_int8(model), str(paths["mlp_int8"]))
    return paths


@pytest.mark.parametrize("key, between", [("mlp", 512), ("mlp_int8", 384)])
def test_dense_layers_in_blocks_match_untiled(key: str, between: int, mlp: dict[str, Path]) -> None:
    int8 = key.endswith("int8")
    module = normalized(mlp[key])
    assert analyze_module(module, key, 64 << 10).min_budget == SMALLEST
    untiled = run_once(key, mlp[key], module, 64 << 10)
    assert not untiled.c.plan.tile_plans and untiled.stats["fast_peak"] == UNBLOCKED[key]
    for budget in (SMALLEST, between):
        run = run_once(key, mlp[key], module, budget)
        assert stat_mismatches(run) == [], run.label
        assert run.output_bytes == untiled.output_bytes, run.label
        assert run.stats["slow_overflow_count"] == 0 and run.stats["total_tiles"] > 1, run.label
        distance = ort_distance(run, int8)
        assert distance <= (1 if int8 else 1e-5), f"{run.label}: {distance}"


def test_reduction_blocks_at_96_bytes_by_hand(mlp: dict[str, Path]) -> None:
    """Float at 96 bytes. Layer 1 (K 256, M 192): c output features and their c sums beside one input
    feature, 32 + 2 x align(4c) <= 96 -> c = 8, then k input features at c = 8: align(4k) <= 32 ->
    k = 8: 24 feature blocks x 32 input blocks = 768 tiles, the 1024-byte input read once per
    feature block. Layer 2 (K 192, M 10): c = 8, 2 feature blocks (8 + 2) x 24 input blocks = 48
    tiles, its 768-byte input read twice. Each layer's output is written once (768 + 40)."""
    run = run_once("mlp", mlp["mlp"], normalized(mlp["mlp"]), SMALLEST)
    tiles = [(t.tile_h, t.num_tiles, t.out_h, t.tile_c, t.num_tiles_c, t.acc_bytes) for t in run.c.plan.tile_plans]
    assert tiles == [(8, 32, IN, 8, 24, 32), (8, 24, HIDDEN, 8, 2, 32)]
    assert run.stats["total_tiles"] == 768 + 48
    assert run.stats["loads_bytes"] == 24 * IN * 4 + 2 * HIDDEN * 4
    assert run.stats["spills_bytes"] == HIDDEN * 4 + OUT * 4


def test_output_feature_blocks_at_384_bytes_by_hand(mlp: dict[str, Path]) -> None:
    """int8 at 384 bytes. Layer 1: output-feature blocks keep the 256-byte input whole beside c
    outputs, 256 + align(c) <= 384 -> c = 128, 2 blocks; reduction blocks would take
    32 + align(c) + align(4c) <= 384 -> c = 64, 3 blocks, so more reads: the output-feature blocks
    win (no partial sums). Layer 2 (192 + 10 -> 224) runs whole. Loads: the input twice and the
    hidden vector once; spills: the hidden vector and the logits."""
    run = run_once("mlp_int8", mlp["mlp_int8"], normalized(mlp["mlp_int8"]), 384)
    tiles = [(t.reduce_op, t.acc_bytes, t.tile_c, t.num_tiles_c) for t in run.c.plan.tile_plans]
    assert tiles == [(None, 0, 128, 2)]
    assert (run.stats["stages_tiled"], run.stats["stages_normal"], run.stats["total_tiles"]) == (1, 1, 2)
    assert run.stats["loads_bytes"] == 2 * IN + HIDDEN
    assert run.stats["spills_bytes"] == HIDDEN + OUT
