"""`tigris run` and its Python binding: the whole runtime (loader, executor, memory manager,
reference kernels) behind the host's layout and quantization conversions.

Every zoo model, float and int8, compiled at a budget where it is one stage: the runtime's
outputs equal the reference interpreter's on the same compiled IR (int8 bit for bit, float
within 1e-5 of the largest output) and onnxruntime's (float within 1e-4; int8 within the
per-model LSB bounds of compiled_models.ORT_INT8_STEPS, explained there).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from compiled_models import ORT_INT8_STEPS, compile_model, interpret, ort_lsb, plan_inputs  # test/support
from tigris.tools.cli import compile_bytes, main
from tigris.tools.runtime_binding import HostSession, RunError, from_runtime, input_bytes, run_plan, tile_arena
from tigris.emit.tgrs import read_plan

ZOO = ["mobilenet_v2", "resnet", "unet", "yolo", "conv1d", "dense_autoencoder", "pytorch_idioms", "silu_ops"]


def relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float64) - b).max() / max(np.abs(b).max(), 1e-30))


@pytest.mark.parametrize("name", ZOO)
def test_float_model_matches_interpreter_and_onnxruntime(name: str, model_zoo, run_onnxruntime, tmp_path) -> None:
    c = compile_model(onnx.load(str(model_zoo[name])), tmp_path)
    floats, inputs = plan_inputs(c, 0)
    result = run_plan(c.plan_bytes, inputs)
    assert result.stats["stages_normal"] == 1 and result.stats["total_tiles"] == 0
    for got, want in zip(result.outputs, interpret(c, inputs), strict=True):
        assert got.shape == want.shape and relative(got, want) <= 1e-5
    for got, want in zip(result.outputs, run_onnxruntime(model_zoo[name], floats), strict=True):
        assert relative(got, want) <= 1e-4


@pytest.mark.parametrize("name", ZOO)
def test_int8_model_is_bit_exact_with_the_interpreter(name: str, model_zoo, tmp_path) -> None:
    c = compile_model(onnx.load(str(model_zoo[f"{name}_int8"])), tmp_path)
    floats, inputs = plan_inputs(c, 0)
    raw = run_plan(c.plan_bytes, inputs, dequantize=False).outputs
    for got, want in zip(raw, interpret(c, inputs), strict=True):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert ort_lsb(c, floats, raw) <= ORT_INT8_STEPS.get(name, 1)
    # float in, float out: the binding quantizes the input as plan_inputs did
    deq = run_plan(c.plan_bytes, list(floats.values())).outputs
    assert all(d.dtype == np.float32 for d in deq)


def test_cli_run_writes_outputs_and_stats(model_zoo, run_onnxruntime, tmp_path, capsys) -> None:
    model = model_zoo["mobilenet_v2"]
    plan = tmp_path / "m.tgrs"
    assert main(["compile", str(model), "-m", "64K", "-o", str(plan)]) == 0
    x = np.random.default_rng(3).standard_normal((1, 3, 96, 96)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    capsys.readouterr()
    code = main(["run", str(plan), "--input", str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy"), "--stats"])
    out = capsys.readouterr().out
    assert code == 0, out
    stats = dict(line.split() for line in out.splitlines()[1:])
    assert int(stats["total_tiles"]) > 0 and int(stats["spills_bytes"]) > 0  # 64K tiles this model
    (want,) = run_onnxruntime(model, {"input": x})
    assert relative(np.load(tmp_path / "y.npy"), want) <= 1e-4


def test_cli_run_summarizes_without_output(model_zoo, tmp_path, capsys) -> None:
    plan = tmp_path / "m.tgrs"
    plan.write_bytes(compile_bytes(str(model_zoo["conv1d"]), 1 << 20))
    assert main(["run", str(plan)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert " min " in line and " top [" in line


@pytest.mark.parametrize(
    "args, message",
    [
        (["--input", "{tmp}/bad.npy"], "has shape (1, 3, 5, 5), the plan takes (1, 3, 96, 96)"),
        (["--input", "{tmp}/missing.npy"], "cannot read input"),
        (["--output", "a.npy", "--output", "b.npy"], "the plan has 1 outputs, --output gave 2"),
        (["-m", "4K"], "tiles need a fast arena of"),
    ],
)
def test_cli_run_user_errors_are_one_line(args, message, model_zoo, tmp_path, capsys) -> None:
    plan = tmp_path / "m.tgrs"
    plan.write_bytes(compile_bytes(str(model_zoo["mobilenet_v2"]), 32 << 10))
    np.save(tmp_path / "bad.npy", np.zeros((1, 3, 5, 5), np.float32))
    assert main(["run", str(plan), *(a.format(tmp=tmp_path) for a in args)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err


def test_runtime_refuses_an_arena_smaller_than_the_tiles(model_zoo) -> None:
    data = compile_bytes(str(model_zoo["mobilenet_v2"]), 32 << 10)
    need, stage = tile_arena(read_plan(data))
    assert stage >= 0 and need > 0
    x = np.zeros((1, 3, 96, 96), np.float32)
    run_plan(data, [x], fast=need)  # exactly enough runs
    with pytest.raises(RunError, match="tiles need"):
        run_plan(data, [x], fast=need - 1)


def test_a_session_loads_once_and_infers_like_a_one_shot_run(model_zoo) -> None:
    """HostSession (tigris_host_open / infer / close): each inference on the one loaded plan,
    tiled, gives the bytes of `run_plan` (load, run, free) for its input, also after an
    inference on another input; a wrong input size is a one-line RunError, and the session
    still runs afterwards."""
    data = compile_bytes(str(model_zoo["mobilenet_v2_int8"]), 32 << 10)
    plan = read_plan(data)
    assert any(stage.tile_plan is not None for stage in plan.stages)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((1, 3, 96, 96)).astype(np.float32) for _ in range(2)]
    want = [run_plan(data, [x], dequantize=False).outputs[0] for x in xs]
    assert want[0].tobytes() != want[1].tobytes()
    out_tensor = plan.tensors[plan.outputs[0]]
    with HostSession(data) as session:
        for x, expected in [*zip(xs, want), (xs[0], want[0])]:
            raw = session.infer(input_bytes(plan, [x])).raw
            assert np.array_equal(from_runtime(raw, out_tensor, None, False), expected)
        with pytest.raises(RunError, match="byte count"):
            session.infer(b"\0" * 5)
        raw = session.infer(input_bytes(plan, [xs[1]])).raw
        assert np.array_equal(from_runtime(raw, out_tensor, None, False), want[1])
    with pytest.raises(RunError, match="cannot load the plan"):
        HostSession(data[:-1] + bytes([data[-1] ^ 1]), plan=plan)


def test_host_runner_builds_with_cmake_and_runs_a_plan(model_zoo, tmp_path: Path) -> None:
    """The CMake build (library + tigris-run) works, and tigris-run's raw output equals the binding's."""
    from tigris.tools.runtime_binding import to_runtime
    from tigris.tools.runtime_build import RUNTIME_DIR

    local = Path(sys.executable).parent / "cmake"  # the `cmake` wheel of the test extra
    cmake = str(local) if local.exists() else "cmake"
    build = tmp_path / "build"
    subprocess.run([cmake, "-S", str(RUNTIME_DIR), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    subprocess.run([cmake, "--build", str(build)], check=True, capture_output=True)
    assert (build / "libtigris.a").exists()
    data = compile_bytes(str(model_zoo["unet"]), 32 << 10)
    plan = read_plan(data)
    (tmp_path / "m.tgrs").write_bytes(data)
    x = np.random.default_rng(5).standard_normal(plan.tensors[plan.inputs[0]].shape).astype(np.float32)
    (tmp_path / "in.bin").write_bytes(to_runtime(x, plan.tensors[plan.inputs[0]], None))
    proc = subprocess.run(
        [str(build / "tigris-run"), str(tmp_path / "m.tgrs"), str(tmp_path / "in.bin"), str(tmp_path / "out.bin"),
         "--stats"], capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "total_tiles=" in proc.stdout
    (want,) = run_plan(data, [x]).outputs
    out = plan.tensors[plan.outputs[0]]
    assert out.perm is None  # so the raw bytes are the output in the runtime layout
    assert (tmp_path / "out.bin").read_bytes() == to_runtime(want, out, None)
    bad = subprocess.run([str(build / "tigris-run"), str(tmp_path / "missing.tgrs"), "a", "b"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1
