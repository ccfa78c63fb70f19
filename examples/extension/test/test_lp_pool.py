"""A windowed plugin op tiled through the geometry it declares: Conv -> LpPool -> Conv.

`ext.lp_pool` declares `TileCategory(SPATIAL)` and `SpatialWindow()`; nothing in TiGrIS knows
the op. The planner sizes the halo of its bands from the window, the emitter writes the window
and the band geometry (WINDOW along H and W) into its record, and the runtime computes each
band's input rows from that record. Checked here: the plan tiles the LpPool's stage in rows;
the record holds the ONNX node's window; `tigris run` (the plugin's kernel compiled in) matches
onnxruntime within 1e-4 and gives the bytes of the untiled plan; the interpreter agrees (5e-5:
the convolutions sum in another order); and a
record whose geometry is wrong (SAME: the band holds too few input rows) makes the kernel refuse
the band (TIGRIS_KERNEL_ERR_BAND) rather than read outside it.

Needs the plugin installed (`pip install -e examples/extension`).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

LP_POOL = 131
TIGRIS = "import sys; from tigris.tools.cli import main; sys.exit(main())"


class Case(NamedTuple):
    opset: int
    attrs: dict[str, object]
    tiled: int  # a budget at which the LpPool's stage runs in row tiles (`tigris inspect`: 8K tiles
    #             it alone in one-row bands, 16K chains it with the first conv)
    whole: int  # a budget at which the model runs as one stage


CASES = {
    # 3x3, stride 2, pads 1: 32 x 32 -> 16 x 16
    "p2_stride2": Case(17, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "p": 2},
                       8192, 65536),
    # 3x2 dilated 2 along H, stride 2 along W, uneven pads (opset 18 has dilations): -> 31 x 16
    "p1_dilated": Case(18, {"kernel_shape": [3, 2], "strides": [1, 2], "pads": [2, 0, 1, 1],
                            "dilations": [2, 1], "p": 1}, 8192, 65536),
}  # fmt: skip
X_SHAPE = (1, 4, 32, 32)


def build_model(path: Path, case: Case) -> Path:
    """x [1, 4, 32, 32] -> Conv 3x3 (8, bias, pads 1) -> LpPool(case) -> Conv 3x3 (4, pads 1)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    weights = {
        "w1": (rng.standard_normal((8, 4, 3, 3)) * 0.3).astype(np.float32),
        "b1": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((4, 8, 3, 3)) * 0.3).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("LpPool", ["c"], ["h"], name="lp_pool", **case.attrs),
        helper.make_node("Conv", ["h", "w2"], ["y"], name="conv2", pads=[1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes, "ext_lp_pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(X_SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, name) for name, a in weights.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)], ir_version=8)
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("lp_pool")
    return {name: build_model(folder / f"{name}.onnx", case) for name, case in CASES.items()}


@pytest.fixture(scope="module")
def x(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lp_pool_x") / "x.npy"
    np.save(path, np.random.default_rng(7).standard_normal(X_SHAPE).astype(np.float32) * 2)
    return path


@cache
def compiled(path: str, budget: int) -> bytes:
    """The plan of MODEL at BUDGET (`tigris compile`'s bytes, compiled in this process)."""
    from tigris.tools.cli import compile_bytes

    return compile_bytes(path, budget)


def tigris_run(plan: bytes, budget: int, x: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    """`tigris run PLAN -m BUDGET --input x --output y.npy` in `folder` (the CLI, as a user runs it)."""
    (folder / "m.tgrs").write_bytes(plan)
    args = ["run", str(folder / "m.tgrs"), "-m", str(budget), "--input", str(x),
            "--output", str(folder / "y.npy")]
    return subprocess.run([sys.executable, "-c", TIGRIS, *args], capture_output=True, text=True, timeout=300,
                          check=False)  # fmt: skip


def lp_pool_stage(plan):  # type: ignore[no-untyped-def]
    """The op index of the plan's LpPool, its record and its stage's tile plan (None: untiled)."""
    (index,) = [i for i, op in enumerate(plan.ops) if op.op_type == LP_POOL]
    (stage,) = [s for s in plan.stages if index in s.ops]
    return index, plan.ops[index], plan.tile_plans[stage.tile_plan] if stage.tile_plan is not None else None


@pytest.mark.parametrize("name", list(CASES))
def test_the_record_holds_the_declared_window(models: dict[str, Path], name: str) -> None:
    """geometry WINDOW along H and W, the window fields those of the ONNX node (written by the
    emitter from SpatialWindow: the op's runtime_fields gives only p), p in params."""
    from tigris.emit.tgrs import read_plan
    from tigris.emit.tgrs.enums import BandGeometry

    case = CASES[name]
    _, op, _ = lp_pool_stage(read_plan(compiled(str(models[name]), case.tiled)))
    kh, kw = case.attrs["kernel_shape"]  # type: ignore[misc]
    sh, sw = case.attrs["strides"]  # type: ignore[misc]
    dh, dw = case.attrs.get("dilations", [1, 1])  # type: ignore[misc]
    top, left, bottom, right = case.attrs["pads"]  # type: ignore[misc]
    assert (op.geometry_h, op.geometry_w) == (BandGeometry.WINDOW, BandGeometry.WINDOW)
    assert (op.kernel_h, op.kernel_w, op.stride_h, op.stride_w) == (kh, kw, sh, sw)
    assert (op.dilation_h, op.dilation_w) == (dh, dw)
    assert (op.pad_top, op.pad_left, op.pad_bottom, op.pad_right) == (top, left, bottom, right)
    assert op.params == (case.attrs["p"],)


@pytest.mark.parametrize("name", list(CASES))
def test_tiled_run_matches_onnxruntime_and_the_untiled_bytes(
    models: dict[str, Path], x: Path, name: str, tmp_path: Path
) -> None:
    """Both plans run by the runtime with the plugin's kernel: the tiled one through `tigris run`,
    the untiled one through the same host library in process (`run_plan`)."""
    import onnxruntime as ort
    from xdsl.context import Context

    from tigris.dialects.interpreter import run_module
    from tigris.dialects.onnx.importer import import_model_file
    from tigris.emit.tgrs import read_plan
    from tigris.tools.runtime_binding import run_plan
    from tigris.transforms.pipelines import TigrisNormalizePass

    case, model = CASES[name], models[name]
    xs = np.load(x)
    (expected,) = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": xs})
    module = import_model_file(model)
    TigrisNormalizePass().apply(Context(), module)
    (interpreted,) = run_module(module, [xs])
    np.testing.assert_allclose(interpreted, expected, rtol=1e-4, atol=1e-4)
    outputs = []
    for budget, tiled in ((case.tiled, True), (case.whole, False)):
        plan = compiled(str(model), budget)
        _, _, tile = lp_pool_stage(read_plan(plan))
        if tiled:  # the LpPool's stage (alone or in a chain) is cut into bands of rows
            assert tile is not None and tile.num_tiles > 1, tile
            assert tile.tile_w == 0 and tile.reduce_op is None, tile  # row bands of its output
            proc = tigris_run(plan, budget, x, tmp_path)
            assert proc.returncode == 0, proc.stderr
            outputs.append(np.load(tmp_path / "y.npy"))
        else:
            assert tile is None
            outputs.append(run_plan(plan, [xs], fast=budget).outputs[0])
        np.testing.assert_allclose(outputs[-1], expected, rtol=1e-4, atol=1e-4)
        # the convs sum in another order than numpy's: float32 rounding of values up to ~20
        np.testing.assert_allclose(outputs[-1], interpreted, rtol=1e-5, atol=5e-5)
    assert outputs[0].tobytes() == outputs[1].tobytes()  # the budget moves the rows, never the values


def test_a_wrong_geometry_is_refused_not_misread(models: dict[str, Path], x: Path) -> None:
    """The same tiled plan with the LpPool's geometry_h SAME: each band then holds the output's
    rows of the input only, the kernel needs rows around them and says so (op N ... not
    resident) instead of reading outside the band."""
    from tigris.emit.tgrs import read_plan, write_plan
    from tigris.emit.tgrs.enums import BandGeometry
    from tigris.tools.runtime_binding import RunError, run_plan

    case = CASES["p2_stride2"]
    plan = read_plan(compiled(str(models["p2_stride2"]), case.tiled))
    index, op, _ = lp_pool_stage(plan)
    assert run_plan(write_plan(plan), [np.load(x)], fast=case.tiled).outputs  # as written: fine
    plan.ops[index] = replace(op, geometry_h=BandGeometry.SAME)
    with pytest.raises(RunError, match=f"op {index} 'lp_pool'.*not resident"):
        run_plan(write_plan(plan), [np.load(x)], fast=case.tiled)
