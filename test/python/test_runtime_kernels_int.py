"""The C runtime's element-wise arithmetic on int32 and int64 tensors, against onnxruntime.

Exporters leave integer arithmetic in graphs (PyTorch's `non_float_params` case: an int64
input plus an int64 parameter, times the input). The runtime computes it exactly with the
machine's two's-complement wrap-around, truncating division, and broadcasting, as
onnxruntime does; the values here are picked to hit every edge: sums and products that
overflow, negative dividends and divisors, the extremes of each type. A zero divisor stops
the run with a kernel error instead of trapping.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from runtime_ops import RunOpsError, run_plan_ops
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import OpType
from tigris.tools.cli import compile_bytes

ELEM = {np.int32: TensorProto.INT32, np.int64: TensorProto.INT64}
OPS = ("Add", "Sub", "Mul", "Div", "Max", "Min")


def _edge_values(dtype: type, n: int, seed: int, nonzero: bool = False) -> np.ndarray:
    """n values of `dtype`: the type's extremes, small signed numbers and random ones."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    pool = np.array([info.min, info.min + 1, info.max, info.max - 1, -7, -3, -1, 0, 1, 2, 3, 7], dtype)
    values = np.concatenate([pool, rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])
    values = rng.permutation(values)[:n]
    if nonzero:
        values[values == 0] = 5
    return values.astype(dtype)


def _model(op: str, dtype: type, a_shape: tuple[int, ...], b: np.ndarray | tuple[int, ...]) -> onnx.ModelProto:
    """y = op(a, b) over an input a and either an input b (a shape) or a constant b."""
    elem = ELEM[dtype]
    inputs = [helper.make_tensor_value_info("a", elem, list(a_shape))]
    inits = []
    if isinstance(b, tuple):
        inputs.append(helper.make_tensor_value_info("b", elem, list(b)))
    else:
        inits.append(numpy_helper.from_array(b, "b"))
    graph = helper.make_graph([helper.make_node(op, ["a", "b"], ["y"])], "g", inputs,
                              [helper.make_tensor_value_info("y", elem, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model)


def _compile(model: onnx.ModelProto, tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "int_op.onnx"
    path.write_bytes(model.SerializeToString())
    return path, compile_bytes(str(path), 64 * 1024)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("op", OPS)
def test_integer_binary_matches_onnxruntime(op: str, dtype: type, tmp_path: Path,
                                            run_onnxruntime: Callable) -> None:
    a = _edge_values(dtype, 2 * 3 * 4 * 5, seed=1).reshape(2, 3, 4, 5)
    b = _edge_values(dtype, 2 * 3 * 4 * 5, seed=2, nonzero=op == "Div").reshape(2, 3, 4, 5)
    if op == "Div":  # INT_MIN / -1 overflows in onnxruntime too (a C++ trap): keep it out
        b[(a == np.iinfo(dtype).min) & (b == -1)] = 3
    path, data = _compile(_model(op, dtype, a.shape, b.shape), tmp_path)
    assert OpType[op.upper()] in {OpType(o.op_type) for o in read_plan(data).ops}
    (want,) = run_onnxruntime(path, {"a": a, "b": b})
    for sanitize in (False, True):  # UBSan: no signed overflow on the way
        (got,) = run_plan_ops(data, [a, b], sanitize=sanitize)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_integer_broadcast_against_a_constant(dtype: type, tmp_path: Path, run_onnxruntime: Callable) -> None:
    """The non_float_params shape: an activation and a per-channel / per-row constant."""
    a = _edge_values(dtype, 1 * 4 * 3 * 5, seed=3).reshape(1, 4, 3, 5)
    for b in (np.array([[[2]], [[-3]], [[7]], [[-1]]], dtype), np.arange(-2, 3, dtype=dtype)):
        path, data = _compile(_model("Mul", dtype, a.shape, b), tmp_path)
        (want,) = run_onnxruntime(path, {"a": a})
        (got,) = run_plan_ops(data, [a], sanitize=True)
        np.testing.assert_array_equal(got, want)


def test_integer_division_by_zero_is_a_kernel_error(tmp_path: Path) -> None:
    a = np.array([[5, -4, 3]], np.int64)
    _, data = _compile(_model("Div", np.int64, a.shape, np.array([1, 0, 2], np.int64)), tmp_path)
    with pytest.raises(RunOpsError, match="beyond the kernel's integer range"):
        run_plan_ops(data, [a], sanitize=True)
