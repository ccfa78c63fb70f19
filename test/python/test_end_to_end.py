"""End to end: every model, every budget, the same answer (issue F6).

Every model of test/models (float and int8 QDQ), a magnitude-pruned MobileNetV2 (float and
int8: weights LZ4 can shrink) and the shipped example are compiled at the budgets of MATRIX
and each plan is run by the C runtime in a fast arena of exactly the budget it was compiled
for. For every model:

- the outputs are byte-identical across all its budgets and modes (one stage, normal stages,
  tiled, chained, overflowing, LZ4, XIP), on two inputs: the invariant that catches most
  planner bugs;
- they are bit-exact (int8) or within 1e-5 of the largest output (float) with the reference
  interpreter on the compiled IR, and within 1e-4 relative (float) or `ORT_INT8_STEPS` output steps
  (int8, see compiled_models.ORT_INT8_STEPS for why not 1) of onnxruntime;
- every run's statistics are the compiler's prediction for the plan it wrote (stages by
  strategy, tiles, bytes loaded and spilled, the slow-memory peak; see `stat_mismatches` for
  the one bounded exception, an overflowing arena), and without LZ4 `tigris analyze` at the
  budget predicts the very plan `tigris compile` wrote;
- each compile exercises exactly the features MATRIX lists for it (read from the plan file
  and the run's statistics), and MATRIX covers every feature of end_to_end.FEATURES, so a
  planner change cannot silently stop covering a case.

Plans are compiled once per session (the normalized module once per model). `pytest -s`
prints the matrix. The longer sweep (more budgets, seeds and modes) is bench/e2e_sweep.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from compiled_models import ORT_INT8_STEPS, interpret  # test/support
from end_to_end import (  # test/support
    ADD_IN_TILE, CHAIN_2, CHAIN_3, CONCAT_IN_TILE, DENSE_BLOCKS, FEATURES, FUSED, LZ4, NORMAL_SPILLS, ONE_STAGE, ROW_CACHES,
    OVERFLOW, REDUCE, RESIZE_IN_TILE, TILED_2D, TILED_HALO, TILED_STRIDE2, XIP, Run, compile_at, features,
    normalized,
    ort_distance, predicted_stats, relative_error, rerun, run_once, stat_mismatches,
)  # fmt: skip
from tigris.tools.report import analyze_module
from tigris.tools.report.analysis import PlanCache, planned, sram_only_arena, sram_only_search
from tigris.transforms.plan.planner import smallest_fitting_budget
from tigris.tools.budgets import parse_size
from tigris.tools.cli import compile_bytes
from tigris.tools.runtime_binding import RunError, run_plan
from xdsl.dialects.builtin import ModuleOp

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mobilenet_v2_96.onnx"

# Short names for the feature sets below.
N, O, H, S2, C2, C3 = NORMAL_SPILLS, OVERFLOW, TILED_HALO, TILED_STRIDE2, CHAIN_2, CHAIN_3
CAT, ADD, RSZ, RED, T2, DENSE, FU, RC = (CONCAT_IN_TILE, ADD_IN_TILE, RESIZE_IN_TILE, REDUCE, TILED_2D, DENSE_BLOCKS, FUSED,
                                         ROW_CACHES)

MATRIX: dict[str, tuple[tuple[str, str, frozenset[str]], ...]] = {
    # model: (budget, mode, exactly the features the compile exercises), smallest budget first.
    # Budgets below a model's minimum (tigris analyze's "cannot run") overflow to slow memory.
    "mobilenet_v2": (
        ("16K", "none", frozenset({N, H, S2, C2, C3, FU, RC, ADD, RED, T2})),
        ("64K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("1M", "none", frozenset({ONE_STAGE})),
    ),
    "mobilenet_v2_int8": (
        ("16K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("48K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "mobilenet_v2_pruned": (
        ("64K", "xip", frozenset({H, S2, FU, RC, ADD, XIP})),
        ("128K", "lz4", frozenset({H, S2, FU, RC, ADD, LZ4})),
        ("256K", "lz4", frozenset({H, S2, FU, RC, ADD, LZ4})),
    ),
    "mobilenet_v2_pruned_int8": (
        ("32K", "lz4", frozenset({H, S2, FU, RC, ADD, LZ4})),
        ("64K", "lz4", frozenset({H, S2, FU, RC, ADD, LZ4})),
        ("256K", "xip", frozenset({ONE_STAGE, XIP})),
    ),
    "resnet": (
        ("8K", "none", frozenset({H, S2, ADD, RED, T2})),
        ("64K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("512K", "none", frozenset({ONE_STAGE})),
    ),
    "resnet_int8": (
        ("16K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("64K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("128K", "none", frozenset({ONE_STAGE})),
    ),
    "unet": (
        ("16K", "none", frozenset({H, S2, FU, RC, CAT, RSZ, T2})),
        ("32K", "none", frozenset({H, S2, FU, RC, CAT, RSZ, T2})),
        ("128K", "none", frozenset({H, S2, FU, RC, CAT, RSZ})),
        ("1M", "none", frozenset({ONE_STAGE})),
    ),
    "unet_int8": (
        ("4K", "none", frozenset({H, S2, FU, RC, CAT, RSZ, T2})),
        ("8K", "none", frozenset({H, S2, FU, RC, CAT, RSZ, T2})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "yolo": (
        ("8K", "none", frozenset({H, S2, FU, RC, CAT, RSZ, T2})),
        ("32K", "none", frozenset({N, H, S2, FU, RC})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "yolo_int8": (
        ("4K", "none", frozenset({H, S2, FU, RC, CAT, T2})),
        ("32K", "none", frozenset({H, S2, FU, RC})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    "conv1d": (
        ("4K", "none", frozenset({H, S2, FU, RC, RED})),
        ("16K", "none", frozenset({ONE_STAGE})),
    ),
    "conv1d_int8": (
        ("1K", "none", frozenset({H, S2, FU, RC, RED})),
        ("4K", "none", frozenset({ONE_STAGE})),
    ),
    "dense_autoencoder": (
        ("128", "none", frozenset({N, O, DENSE})),
        ("512", "none", frozenset({ONE_STAGE})),
    ),
    "dense_autoencoder_int8": (
        ("32", "none", frozenset({N, O})),
        ("128", "none", frozenset({ONE_STAGE})),
    ),
    "pytorch_idioms": (
        ("8K", "none", frozenset({H, S2, FU, RC, RED, T2})),
        ("16K", "none", frozenset({H, S2, FU, RC, RED})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    "pytorch_idioms_int8": (
        ("8K", "none", frozenset({H, S2, FU, RC, RED})),
        ("16K", "none", frozenset({H, S2, FU, RC, RED})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    # measured again once SiLU became one tgr.silu (it was a sigmoid and a mul)
    "silu_ops": (
        ("16K", "none", frozenset({H, S2, FU, RC, RED})),
        ("48K", "none", frozenset({H, S2, FU, RC})),
        ("128K", "none", frozenset({ONE_STAGE})),
    ),
    "silu_ops_int8": (
        ("4K", "none", frozenset({H, S2, FU, RC, RED})),
        ("12K", "none", frozenset({H, S2, FU, RC})),
        ("32K", "none", frozenset({ONE_STAGE})),
    ),
    # Keras models as tf2onnx writes them (channels-last input, layout transposes): the plans
    # hold no transpose (test_keras_models.py), so the first stage tiles like any other
    "keras_mobilenet_v1": (
        ("8K", "none", frozenset({N, O, H, S2, FU, RED, T2})),
        ("16K", "none", frozenset({H, S2, FU, RC, T2})),
        ("512K", "none", frozenset({ONE_STAGE})),
    ),
    "keras_mobilenet_v1_int8": (
        ("2K", "none", frozenset({N, O, H, S2, FU, RED, T2})),
        ("4K", "none", frozenset({H, S2, FU, RC, T2})),
        ("128K", "none", frozenset({ONE_STAGE})),
    ),
    "keras_mobilenet_v2": (
        ("32K", "none", frozenset({N, H, S2, FU, RC, ADD, RED, T2})),
        ("64K", "none", frozenset({H, S2, C2, FU, RC, ADD})),
        ("1M", "none", frozenset({ONE_STAGE})),
    ),
    "keras_mobilenet_v2_int8": (
        ("8K", "none", frozenset({N, H, S2, FU, RC, ADD, RED, T2})),
        ("16K", "none", frozenset({H, S2, C2, FU, RC, ADD})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "ds_cnn": (
        ("16K", "none", frozenset({H, S2, FU, RC, RED})),
        ("32K", "none", frozenset({H, S2, FU, RC})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    "ds_cnn_int8": (
        ("4K", "none", frozenset({H, S2, FU, RC, RED})),
        ("8K", "none", frozenset({H, S2, FU, RC})),
        ("16K", "none", frozenset({ONE_STAGE})),
    ),
    "resnet8": (
        ("8K", "none", frozenset({H, S2, ADD, RED, T2})),
        ("64K", "none", frozenset({C2, ADD})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "resnet8_int8": (
        ("4K", "none", frozenset({H, S2, FU, RC, ADD, RED})),
        ("16K", "none", frozenset({C2, ADD})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    # the classifier families of issue G1 as PyTorch exports them (test/models/architectures.py)
    "mobilenet_v3": (
        ("8K", "none", frozenset({N, H, S2, C2, FU, RC, ADD, RED, T2})),
        ("64K", "none", frozenset({H, S2, FU, RC})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "mobilenet_v3_int8": (
        ("2K", "none", frozenset({N, H, S2, C2, FU, RC, ADD, RED, T2})),
        ("16K", "none", frozenset({H, S2, FU, RC})),
        ("32K", "none", frozenset({ONE_STAGE})),
    ),
    "shufflenet_v2": (
        ("8K", "none", frozenset({H, S2, FU, RC, CAT, RED})),
        ("64K", "none", frozenset({H, S2, FU, RC})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "shufflenet_v2_int8": (
        ("2K", "none", frozenset({H, S2, FU, RC, CAT, RED})),
        ("16K", "none", frozenset({H, S2, FU, RC})),
        ("32K", "none", frozenset({ONE_STAGE})),
    ),
    "efficientnet": (  # its SE blocks (GAP, then a Mul by the whole input) do not tile yet (G2)
        ("256K", "none", frozenset({N, H, S2, FU, RC, ADD})),
        ("1M", "none", frozenset({H, S2, FU, RC, ADD})),
    ),
    "efficientnet_int8": (
        ("32K", "none", frozenset({N, H, S2, FU, RC, ADD, RED})),
        ("64K", "none", frozenset({N, H, S2, FU, RC, ADD})),
        ("1M", "none", frozenset({ONE_STAGE})),
    ),
    "squeezenet": (
        ("16K", "none", frozenset({H, S2, FU, RC, CAT})),
        ("32K", "none", frozenset({H, S2, FU, RC, CAT})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "squeezenet_int8": (
        ("4K", "none", frozenset({H, S2, FU, RC, CAT})),
        ("8K", "none", frozenset({H, S2, FU, RC, CAT})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    "mnasnet": (
        ("32K", "none", frozenset({H, S2, FU, RC, ADD, RED})),
        ("256K", "none", frozenset({ONE_STAGE})),
    ),
    "mnasnet_int8": (
        ("8K", "none", frozenset({H, S2, FU, RC, ADD, RED})),
        ("32K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("64K", "none", frozenset({ONE_STAGE})),
    ),
    "example": (  # the README's first command: tigris compile examples/mobilenet_v2_96.onnx -m 64K
        ("64K", "none", frozenset({H, S2, FU, RC, ADD})),
        ("1M", "none", frozenset({ONE_STAGE})),
    ),
}

ENTRIES = [(key, budget, mode) for key, entries in MATRIX.items() for budget, mode, _ in entries]


class Matrix:
    """Model paths, normalized modules and runs, each made once per session."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths
        self._modules: dict[str, ModuleOp] = {}
        self._runs: dict[tuple[str, str, str], Run] = {}

    def module(self, key: str) -> ModuleOp:
        """The model after tigris-normalize (every compile clones it)."""
        if key not in self._modules:
            self._modules[key] = normalized(self.paths[key])
        return self._modules[key]

    def run(self, key: str, budget: str, mode: str) -> Run:
        if (key, budget, mode) not in self._runs:
            run = run_once(key, self.paths[key], self.module(key), parse_size(budget, "-m"), mode)
            self._runs[key, budget, mode] = run
        return self._runs[key, budget, mode]


@pytest.fixture(scope="session")
def matrix(model_zoo: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Matrix:
    import zoo  # test/models
    from quantize import quantize_int8

    out = tmp_path_factory.mktemp("e2e_models")
    pruned = zoo.default_mobilenet(prune=0.5)
    paths = {
        **model_zoo,
        "mobilenet_v2_pruned": zoo.save(pruned, out / "mobilenet_v2_pruned.onnx"),
        "mobilenet_v2_pruned_int8": zoo.save(quantize_int8(pruned), out / "mobilenet_v2_pruned_int8.onnx"),
        "example": EXAMPLE,
    }
    return Matrix(paths)


def test_matrix_covers_every_model_and_feature(model_zoo: dict[str, Path]) -> None:
    assert set(model_zoo) <= set(MATRIX)
    covered = {f for entries in MATRIX.values() for _, _, expected in entries for f in expected}
    assert covered == set(FEATURES), set(FEATURES) - covered
    assert all(len(entries) >= 2 for entries in MATRIX.values()), "same answer across budgets needs two"


@pytest.mark.parametrize(("key", "budget", "mode"), ENTRIES, ids=[f"{k}-{b}-{m}" for k, b, m in ENTRIES])
def test_run_is_the_plan(key: str, budget: str, mode: str, matrix: Matrix) -> None:
    """The compile exercises what MATRIX says, and the runtime ran the plan as predicted."""
    run = matrix.run(key, budget, mode)
    expected = next(f for b, m, f in MATRIX[key] if (b, m) == (budget, mode))
    assert stat_mismatches(run) == [], (run.stats, predicted_stats(run.predicted))
    assert features(run.c.plan, run.stats) == expected, sorted(features(run.c.plan, run.stats))
    if not run.stats["slow_overflow_count"]:  # the predicted slow peak is exactly the slow memory needed
        want_peak = predicted_stats(run.predicted)["slow_peak"]
        exact = run_plan(run.c.plan_bytes, run.inputs, fast=run.budget, slow=want_peak, dequantize=False)
        assert b"".join(y.tobytes() for y in exact.outputs) == run.output_bytes
        with pytest.raises(RunError, match="memory allocation failed"):
            run_plan(run.c.plan_bytes, run.inputs, fast=run.budget, slow=want_peak - 32)
    if mode != "lz4":  # tigris analyze -m budget describes the plan tigris compile -m budget writes
        report = analyze_module(matrix.module(key), key, run.budget)
        want = predicted_stats(run.predicted)
        assert (report.stage_count, report.tiled_stages, report.chained_stages) == (
            len(run.predicted.stages), want["stages_tiled"], want["stages_chain"],
        )  # fmt: skip
        assert (report.traffic_read, report.traffic_written, report.slow_peak) == (
            want["loads_bytes"], want["spills_bytes"], want["slow_peak"],
        )  # fmt: skip


@pytest.mark.parametrize("key", list(MATRIX))
def test_every_budget_gives_the_same_answer(key: str, matrix: Matrix) -> None:
    runs = [matrix.run(key, budget, mode) for budget, mode, _ in MATRIX[key]]
    reference = runs[-1]  # the largest budget: one stage for most models
    for seeded in (runs, [rerun(run, 1) for run in runs]):  # the inputs of seeds 0 and 1
        for run in seeded[:-1]:
            differ = [int(np.count_nonzero(a != b)) for a, b in zip(run.raw, seeded[-1].raw, strict=True)]
            assert run.output_bytes == seeded[-1].output_bytes, f"{run.label} vs {reference.label}: {differ} differ"
    for got, want in zip(reference.raw, interpret(reference.c, reference.inputs), strict=True):
        assert got.shape == want.shape
        if got.dtype != np.float32:
            assert got.dtype == want.dtype and np.array_equal(got, want), f"{key}: not bit-exact with the interpreter"
        else:  # a float model
            assert relative_error(got, want) <= 1e-5, key
    int8 = key.endswith("_int8")
    distance = ort_distance(reference, int8)
    bound = ORT_INT8_STEPS.get(key.removesuffix("_int8").removesuffix("_pruned"), 1) if int8 else 1e-4
    for run in runs:
        print(f"\n  {run.label:38} {', '.join(f for f in FEATURES if f in features(run.c.plan, run.stats))}"
              f" | vs onnxruntime {distance:.3g}{' LSB' if int8 else ' rel'}"
              f" | stats {'= prediction' if not run.stats['slow_overflow_count'] else 'within the overflow'}")
    assert distance <= bound, f"{key}: {distance} from onnxruntime (bound {bound})"


MINIMUM_KEYS = [k for k in MATRIX if k not in ("example", "mobilenet_v2_pruned", "mobilenet_v2_pruned_int8")]
"""The zoo models (the pruned and example variants share mobilenet_v2's minimum)."""


@pytest.mark.parametrize("key", MINIMUM_KEYS)
def test_runs_at_its_minimum_budget(key: str, matrix: Matrix) -> None:
    """An honest minimum (issue G2): at the smallest budget `tigris analyze` reports, the plan runs
    in an arena of exactly that size with nothing overflowing to slow memory, as planned, and
    gives the bytes of the largest budget's run; one byte less and analyze says it cannot run."""
    report = analyze_module(matrix.module(key), key, 64 << 10)
    low = run_once(key, matrix.paths[key], matrix.module(key), report.min_budget)
    assert low.stats["slow_overflow_count"] == 0 and low.predicted.overflow == 0, low.stats
    assert stat_mismatches(low) == [], (low.stats, predicted_stats(low.predicted))
    budget, mode, _ = MATRIX[key][-1]
    assert low.output_bytes == matrix.run(key, budget, mode).output_bytes
    below = analyze_module(matrix.module(key), key, report.min_budget - 1)
    assert below.verdict.value == "cannot run"


SRAM_ONLY_KEYS = ("mobilenet_v2_int8", "yolo")
"""An int8 and a float model whose smallest SRAM-only plans pass tensors between stages."""


@pytest.mark.parametrize("key", SRAM_ONLY_KEYS)
def test_sram_only_runs_in_its_two_buffers(key: str, matrix: Matrix) -> None:
    """SRAM only (`-m T+0`, issue G3 item 3) at the smallest T the search finds: the plan chosen
    for T runs in an arena of its peak and a slow buffer (the same SRAM) of exactly the model's
    I/O and the tensors between stages, as planned, and gives the bytes of the largest budget's
    run; either buffer one alignment unit smaller fails."""
    module = matrix.module(key)
    _, plan = planned(module, 64 << 10, 32)
    low = sram_only_search(PlanCache(plan), 64 << 10, smallest_fitting_budget(plan.graph, 32)).smallest
    assert low is not None and low.between > 0, low
    chosen = sram_only_arena(module, low.total, 32).plan
    assert chosen is not None and chosen.total <= low.total
    run = run_once(key, matrix.paths[key], module, chosen.budget)
    assert stat_mismatches(run) == [], (run.stats, predicted_stats(run.predicted))
    assert (run.stats["fast_peak"], run.stats["slow_peak"]) == (chosen.arena, chosen.slow_buffer)
    assert chosen.slow_buffer <= chosen.model_io + chosen.between
    budget, mode, _ = MATRIX[key][-1]
    exact = run_plan(run.c.plan_bytes, run.inputs, fast=chosen.arena, slow=chosen.slow_buffer, dequantize=False)
    assert b"".join(y.tobytes() for y in exact.outputs) == matrix.run(key, budget, mode).output_bytes
    for fast, slow in ((chosen.arena - 32, chosen.slow_buffer), (chosen.arena, chosen.slow_buffer - 32)):
        with pytest.raises(RunError):
            run_plan(run.c.plan_bytes, run.inputs, fast=fast, slow=slow)


def test_compile_at_is_tigris_compile(model_zoo: dict[str, Path]) -> None:
    """The matrix compiles in compile_bytes' three steps, to keep the module: the same bytes."""
    path = model_zoo["conv1d"]
    for mode in ("none", "xip"):
        _, data = compile_at(normalized(path), 4096, mode)
        assert data == compile_bytes(str(path), 4096, xip=mode == "xip")


def test_reloaded_input_that_overflows_is_read_in_place(tmp_path: Path) -> None:
    """A normal stage whose reloaded input does not fit the arena reads it in place from its
    slow copy. The runtime used to copy it into a second, overflow allocation in slow memory,
    which needed slow memory the plan never counted (`tigris run`'s default slow buffer ran
    out below the minimum budget) and which was dropped after the stage together with the
    tensor's pointer, so a later stage reading the tensor found no data."""
    import ort_helpers  # test/models
    from graph_builder import GraphBuilder

    g = GraphBuilder("reload", 0)
    a = g.relu(g.add_input("x", (1, 4, 32, 32)))  # 16 KiB, read by the Flatten and the pool stages
    model = g.build({"fc": g.gemm(g.flatten(a), 8), "pool": g.flatten(g.global_avg_pool(a))})
    path = tmp_path / "reload.onnx"
    onnx.save(model, str(path))
    whole = run_plan(compile_bytes(str(path), 1 << 20), list(ort_helpers.random_inputs(path, 0).values()))
    # every 16 KiB tensor of a normal stage overflows an 8 KiB arena: flatten's input (the reloaded relu
    # output, read in place) and output; the fc reads the flattened vector in blocks of its input features
    # (dense reduction blocks) and the global pool the relu's output in reduction tiles, a band at a time
    tight = run_once("reload", path, normalized(path), 8192)
    assert tight.stats["slow_overflow_count"] == 2 and tight.stats["slow_overflow_bytes"] == 2 * 16384
    assert tight.output_bytes == b"".join(y.tobytes() for y in whole.outputs)
    # nothing was allocated for the overflow: slow memory holds exactly what the plan predicted
    assert stat_mismatches(tight) == [] and tight.stats["slow_peak"] == predicted_stats(tight.predicted)["slow_peak"]


def test_readme_first_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's first command after the install: analyze, compile and run the example."""
    import shlex

    from tigris.tools.cli import main

    text = (ROOT / "README.md").read_text()
    line = text.split("```sh\n", 1)[1].splitlines()[0]
    install, *commands = [shlex.split(c) for c in line.split("&&")]
    assert install[:2] == ["pip", "install"] and [c[:2] for c in commands] == [
        ["tigris", "analyze"], ["tigris", "compile"], ["tigris", "run"],
    ]  # fmt: skip
    plan = str(tmp_path / "m.tgrs")
    outputs = []
    for argv in commands:
        capsys.readouterr()
        assert main([plan if a == "/tmp/m.tgrs" else a for a in argv[1:]]) == 0, argv
        outputs.append(capsys.readouterr().out)
    assert "verdict: fits tiled" in outputs[0] and outputs[1].startswith("wrote ")
    assert outputs[2].startswith("logits 1x10 float32") and " top [" in outputs[2]
    stats = dict(line.split() for line in outputs[2].splitlines()[1:])
    assert f"{int(stats['loads_bytes']):,} B) read" in outputs[0]  # the report predicted the run


def test_sweep_runs(tmp_path: Path) -> None:
    """bench/e2e_sweep.py, the opt-in long sweep, on one small model (so it cannot rot)."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "e2e_sweep.py"), "--models", "conv1d", "--steps", "3", "--seeds", "0"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row, summary = proc.stdout.splitlines()
    assert row.startswith("conv1d") and "9 runs" in row and "overflow to slow memory" in row
    assert summary.startswith("0 failures")
