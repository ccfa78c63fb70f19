"""The ONNX importer on the model zoo: every model imports, weights are exact, text round-trips."""

from __future__ import annotations

import io
import random
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from tigris.dialects import make_context
from tigris.dialects.onnx.errors import OnnxImportError
from tigris.dialects.onnx.graph_order import CycleError, dfs_order
from tigris.dialects.onnx.importer import import_model, import_model_file
from tigris.dialects.tgr.weight import WeightOp
from zoo import FLOAT_MODELS  # test/models, on sys.path via conftest

ZOO_KEYS = list(FLOAT_MODELS)




def print_module(module: ModuleOp, ctx: Context) -> str:
    out = io.StringIO()
    printer = Printer(stream=out)
    printer.print_op(module)
    printer.print_metadata(ctx.loaded_dialects)
    return out.getvalue()


def body_ops(module: ModuleOp) -> list:
    func = next(iter(module.ops))
    return list(func.body.block.ops)


@pytest.mark.parametrize("key", [k for name in ZOO_KEYS for k in (name, f"{name}_int8")])
def test_zoo_model_imports_node_for_node(key: str, model_zoo: dict[str, Path]) -> None:
    model = onnx.load(str(model_zoo[key]))
    module = import_model_file(model_zoo[key])
    module.verify()
    ops = body_ops(module)
    compute = [op for op in ops if not isinstance(op, WeightOp) and op.name != "func.return"]
    assert len(compute) == len(model.graph.node)
    assert not [op for op in compute if op.name == "onnx.generic"], "every zoo op type has a typed op"
    assert sorted(op.attributes["tgr.name"].data for op in compute) == sorted(n.name for n in model.graph.node)
    used = {name for node in model.graph.node for name in node.input}
    weights = [op for op in ops if isinstance(op, WeightOp)]
    assert len(weights) == len([t for t in model.graph.initializer if t.name in used])


def test_weights_are_bit_exact(model_zoo: dict[str, Path]) -> None:
    model = onnx.load(str(model_zoo["mobilenet_v2_int8"]))
    initializers = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    weights = [op for op in body_ops(import_model_file(model_zoo["mobilenet_v2_int8"])) if isinstance(op, WeightOp)]
    assert {w.array().dtype for w in weights} >= {np.dtype(np.int8), np.dtype(np.float32), np.dtype(np.int32)}
    for weight in weights:
        expected = initializers[weight.attributes["tgr.name"].data]
        assert weight.array().dtype == expected.dtype
        np.testing.assert_array_equal(weight.array(), expected)


def test_text_round_trip_keeps_weights(model_zoo: dict[str, Path]) -> None:
    ctx = make_context()
    module = import_model_file(model_zoo["resnet"])
    text = print_module(module, ctx)
    assert "dialect_resources" in text
    reparsed = Parser(ctx, text).parse_module()
    reparsed.verify()
    again = print_module(reparsed, ctx)
    # Re-parsing in the same process renames filled keys (`k` -> `k_1`); strip that before comparing.
    original = [w.array() for w in body_ops(module) if isinstance(w, WeightOp)]
    parsed = [w.array() for w in body_ops(reparsed) if isinstance(w, WeightOp)]
    assert len(original) == len(parsed) > 10
    for a, b in zip(original, parsed):
        np.testing.assert_array_equal(a, b)
    assert len(again.splitlines()) == len(text.splitlines())


def test_cli_round_trip_is_identical(model_zoo: dict[str, Path], tmp_path: Path) -> None:
    """print -> parse -> print gives the same bytes, weights included (fresh processes, as users run it)."""
    first, second = tmp_path / "a.mlir", tmp_path / "b.mlir"
    subprocess.run(["tigris-opt", str(model_zoo["unet_int8"]), "-o", str(first)], check=True)
    subprocess.run(["tigris-opt", str(first), "-o", str(second)], check=True)
    assert "dialect_resources" in first.read_text()
    assert first.read_bytes() == second.read_bytes()


def test_external_data_is_loaded_from_beside_the_file(tmp_path: Path) -> None:
    weight = np.arange(4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])],
        "ext",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "ext.onnx"
    onnx.save(model, str(path), save_as_external_data=True, location="ext.bin", size_threshold=0)
    assert (tmp_path / "ext.bin").stat().st_size == weight.nbytes
    weights = [op for op in body_ops(import_model_file(path)) if isinstance(op, WeightOp)]
    np.testing.assert_array_equal(weights[0].array(), weight)


def test_initializer_graph_inputs_are_not_model_inputs() -> None:
    w = numpy_helper.from_array(np.ones((2,), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [w],
    )
    module = import_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    func = next(iter(module.ops))
    assert len(func.body.block.args) == 1


def test_unsupported_element_type_is_a_clear_error() -> None:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"], name="id")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [2])],
        [helper.make_tensor_value_info("y", TensorProto.STRING, [2])],
    )
    with pytest.raises(OnnxImportError, match="tensor 'x' holds string elements, which TiGrIS does not support"):
        import_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


# -- scheduling order (spec/pipeline.md: DFS post-order, reversed child order) ------------


def test_dfs_order_runs_a_whole_branch_before_its_sibling() -> None:
    # 0 -> {1, 2}; 1 -> 3; 2 -> 4; {3, 4} -> 5, listed breadth-first.
    # DFS from 0 visits children last-first: 2, 4, 5 finish, then 1, 3; reversed: 0 1 3 2 4 5.
    assert dfs_order([[1, 2], [3], [4], [5], [5], []]) == [0, 1, 3, 2, 4, 5]


def test_dfs_order_on_a_diamond() -> None:
    # 0 -> {1, 2} -> 3: finishing order 3, 2, 1, 0 reversed.
    assert dfs_order([[1, 2], [3], [3], []]) == [0, 1, 2, 3]


def test_dfs_order_starts_from_the_first_source() -> None:
    # Two sources: 0 -> 2 and 1 -> 2 (or 1 -> 3): 0's subgraph is scheduled first.
    # Roots are visited last-first: 1 finishes (with 2) before 0, so 0 comes first.
    assert dfs_order([[2], [2], []]) == [0, 1, 2]
    assert dfs_order([[2], [3], [], []]) == [0, 2, 1, 3]


def test_dfs_order_detects_cycles() -> None:
    with pytest.raises(CycleError):
        dfs_order([[1], [2], [1]])
    with pytest.raises(CycleError):
        dfs_order([[1], [0]])  # no source at all


def test_dfs_order_is_topological_on_random_dags() -> None:
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 40)
        consumers = [sorted(rng.sample(range(i + 1, n), min(n - i - 1, rng.randint(0, 3)))) for i in range(n)]
        order = dfs_order(consumers)
        assert sorted(order) == list(range(n))
        position = {node: i for i, node in enumerate(order)}
        assert all(position[a] < position[b] for a in range(n) for b in consumers[a])


def test_zoo_import_order_is_topological(model_zoo: dict[str, Path]) -> None:
    for key in ZOO_KEYS:
        module = import_model_file(model_zoo[key])
        seen: set = set(next(iter(module.ops)).body.block.args)
        for op in body_ops(module):
            assert all(operand in seen for operand in op.operands), f"{key}: {op.name} before its operands"
            seen.update(op.results)
