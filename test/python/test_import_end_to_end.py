"""Import rules end to end: `tigris compile` + `tigris run` (in-process, as a user runs them)
against onnxruntime on models built with onnx.helper.

- degenerate models (no compute op: a transpose, a reshape, an identity, an output that is an
  input, a constant output, an output returned twice, a Dropout mask) compile to a plan that
  runs (materialize-outputs gives each output its own op);
- shapes computed from constants by ops ONNX's data propagation does not follow;
- a float64 or float16 model runs in float32 with one warning line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import ort_helpers
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx_conformance import run_cli

RNG = np.random.default_rng(13)


def model(nodes: list[onnx.NodeProto], inputs: dict[str, tuple[int, list[int]]], outputs: list[str],
          initializers: dict[str, np.ndarray] | None = None, opset: int = 13) -> onnx.ModelProto:  # fmt: skip
    """A model whose outputs are left untyped: the importer infers them."""
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(name, elem, shape) for name, (elem, shape) in inputs.items()],
        [helper.make_value_info(name, onnx.TypeProto()) for name in outputs],
        [numpy_helper.from_array(v, n) for n, v in (initializers or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def compile_and_run(m: onnx.ModelProto, feeds: dict[str, np.ndarray], folder: Path) -> tuple[list[np.ndarray], str]:
    """The outputs of `tigris compile m.onnx` + `tigris run`, and compile's stderr."""
    path, plan = folder / "m.onnx", folder / "m.tgrs"
    onnx.save(m, str(path))
    status, stderr, trace = run_cli(["compile", str(path), "-m", "1M", "-o", str(plan)])
    assert status == 0 and not trace, stderr + trace
    argv = ["run", str(plan)]
    for i, x in enumerate(feeds.values()):
        np.save(folder / f"x{i}.npy", x)
        argv += ["--input", str(folder / f"x{i}.npy")]
    outputs = [o.name for o in m.graph.output]
    for i in range(len(outputs)):
        argv += ["--output", str(folder / f"y{i}.npy")]
    status, run_err, trace = run_cli(argv)
    assert status == 0 and not trace, run_err + trace
    return [np.load(folder / f"y{i}.npy") for i in range(len(outputs))], stderr


def assert_same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for y, w in zip(got, want):
        assert y.shape == w.shape
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(y, w)
        else:
            np.testing.assert_allclose(y, w, rtol=1e-5, atol=1e-6)


X = (TensorProto.FLOAT, [1, 2, 3, 4])
DEGENERATE = {
    "transpose": model([helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])], {"x": X}, ["y"]),
    "reshape": model([helper.make_node("Reshape", ["x", "s"], ["y"])], {"x": X}, ["y"],
                     {"s": np.asarray([2, -1], np.int64)}),
    "identity": model([helper.make_node("Identity", ["x"], ["y"])], {"x": X}, ["y"]),
    "input_is_output": model([], {"x": X}, ["x"]),
    "shape_output": model([helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Relu", ["x"], ["y"])],
                          {"x": X}, ["s", "y"]),
    "output_twice": model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Identity", ["y"], ["z"])],
                          {"x": X}, ["y", "z"]),
    "dropout_mask": model([helper.make_node("Dropout", ["x"], ["y", "mask"])], {"x": X}, ["y", "mask"]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_model_without_compute_ops_runs(name: str, tmp_path: Path) -> None:
    m = DEGENERATE[name]
    feeds = {"x": RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)}
    got, _ = compile_and_run(m, feeds, tmp_path)
    assert_same(got, ort_helpers.run_onnxruntime(m, feeds))


def test_shapes_computed_from_constants(tmp_path: Path) -> None:
    """Reshape targets and Resize sizes from chains data propagation does not follow: Range/Size,
    Equal/Where on Shape, Cast/Mul/Floor (torch's interpolate), Expand/Tile of a constant."""
    n = helper.make_node
    nodes = [
        n("Range", ["zero", "two", "one"], ["r"]), n("Size", ["r"], ["size"]), n("Unsqueeze", ["size", "ax0"], ["u"]),
        n("Concat", ["u", "minus1"], ["s"], axis=0), n("Reshape", ["x", "s"], ["flat"]),
        n("Shape", ["x"], ["sh"]), n("Equal", ["sh", "zeros"], ["isz"]), n("Where", ["isz", "ones", "sh"], ["w"]),
        n("Slice", ["w", "one1", "three1"], ["tail"]), n("Concat", ["minus1", "tail"], ["s2"], axis=0),
        n("Reshape", ["x", "s2"], ["kept"]),
        n("Shape", ["img"], ["ish"]), n("Slice", ["ish", "two1", "four1"], ["hw"]), n("Cast", ["hw"], ["hwf"], to=1),
        n("Mul", ["hwf", "scale"], ["hw2"]), n("Floor", ["hw2"], ["hw3"]), n("Cast", ["hw3"], ["hw4"], to=7),
        n("Concat", ["nc", "hw4"], ["sizes"], axis=0), n("Resize", ["img", "", "", "sizes"], ["up"], mode="nearest"),
        n("Expand", ["row", "sh"], ["rows"]), n("Tile", ["rows", "reps"], ["tiled"]), n("Add", ["x", "tiled"], ["shifted"]),
    ]  # fmt: skip
    i64 = lambda *v: np.asarray(v, np.int64)  # noqa: E731
    constants = {
        "zero": np.int64(0), "two": np.int64(2), "one": np.int64(1), "ax0": i64(0), "minus1": i64(-1),
        "zeros": i64(0, 0, 0), "ones": i64(1, 1, 1), "one1": i64(1), "three1": i64(3), "two1": i64(2),
        "four1": i64(4), "scale": np.asarray([2.0], np.float32), "nc": i64(1, 2),
        "row": np.asarray([[1.0, 2.0, 3.0, 4.0]], np.float32), "reps": i64(1, 1, 1),
    }  # fmt: skip
    m = model(nodes, {"x": (TensorProto.FLOAT, [2, 3, 4]), "img": X}, ["flat", "kept", "up", "shifted"], constants)
    feeds = {"x": RNG.standard_normal((2, 3, 4)).astype(np.float32), "img": RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)}
    got, _ = compile_and_run(m, feeds, tmp_path)
    want = ort_helpers.run_onnxruntime(m, feeds)
    assert [w.shape for w in want] == [(2, 12), (2, 3, 4), (1, 2, 6, 8), (2, 3, 4)]
    assert_same(got, want)


@pytest.mark.parametrize(("elem", "dtype", "kind", "rtol"), [
    (TensorProto.DOUBLE, np.float64, "float64", 1e-6),
    (TensorProto.FLOAT16, np.float16, "float16", 2e-3),  # onnxruntime rounds each op's result to float16
])  # fmt: skip
def test_wide_or_half_floats_run_in_float32_said_once(elem: int, dtype: type, kind: str, rtol: float, tmp_path: Path) -> None:
    n = helper.make_node
    nodes = [n("Mul", ["x", "c"], ["m"]), n("Add", ["m", "b"], ["y"])]
    constants = {"c": np.asarray(2.0, dtype), "b": np.asarray([0.5, 1.5, -2.0, 0.25], dtype)}
    m = model(nodes, {"x": (elem, [3, 4])}, ["y"], constants)
    feeds = {"x": RNG.standard_normal((3, 4)).astype(dtype)}
    got, stderr = compile_and_run(m, feeds, tmp_path)
    assert stderr.count("warning:") == 1 and f"{kind} tensors; TiGrIS computes them in float32" in stderr
    (want,) = ort_helpers.run_onnxruntime(m, feeds)
    assert got[0].dtype == np.float32 and want.dtype == dtype
    np.testing.assert_allclose(got[0], want.astype(np.float32), rtol=rtol, atol=1e-6)
