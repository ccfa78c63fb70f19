"""group-weights on planned zoo models: blocks hold exactly the weights of the stage that first uses
them, the LZ4 blocks decompress to those bytes, fast_reserved is the largest raw block; and how well
LZ4 does on MobileNetV2's float weights."""

from __future__ import annotations

from pathlib import Path

import lz4.block
import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp

from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.weight import WeightOp, weight_array
from tigris.transforms import get_all_passes
from tigris.transforms.lower.group_weights import block_payloads, compress_block
from tigris.transforms.pipelines import NORMALIZE, run_passes

BUDGET = 65536
"""Small enough to cut the zoo models into many stages."""


def compiled(path: Path, compress: str, budget: int = BUDGET) -> tuple[ModuleOp, FuncOp]:
    module = import_model_file(path)
    ctx = Context()
    run_passes(NORMALIZE, ctx, module)
    passes = get_all_passes()
    for pass_ in (
        passes["tigris-plan"]()(budget),
        passes["layout-nhwc"]()(),
        passes["group-weights"]()(compress),
    ):
        pass_.apply(ctx, module)  # type: ignore[call-arg]
        module.verify()
    return module, next(op for op in module.ops if isinstance(op, FuncOp))


def blocks(func: FuncOp) -> list[dict[str, int]]:
    attr = func.attributes["tgr.weight_blocks"]
    assert isinstance(attr, ArrayAttr)
    out = []
    for entry in attr.data:
        assert isinstance(entry, DictionaryAttr)
        out.append({k: v.value.data for k, v in entry.data.items() if isinstance(v, IntegerAttr)})
    return out


def int_attr(op: object, name: str) -> int:
    attr = op.attributes[name]  # type: ignore[attr-defined]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


@pytest.mark.parametrize(
    ("name", "budget"),
    [("mobilenet_v2", BUDGET), ("mobilenet_v2_int8", BUDGET), ("unet_int8", BUDGET), ("conv1d", 4096)],
)
def test_lz4_blocks_hold_exactly_each_stages_weights(
    name: str, budget: int, model_zoo: dict[str, Path]
) -> None:
    _, func = compiled(model_zoo[name], "lz4", budget)
    weights = [op for op in func.walk() if isinstance(op, WeightOp)]
    table = blocks(func)
    stages = [entry["stage"] for entry in table]
    assert stages == sorted(set(stages)) and len(table) > 1
    expected: dict[int, list[bytes]] = {}
    for weight in weights:
        first = min(int_attr(use.operation, "tgr.stage") for use in weight.output.uses)
        block = int_attr(weight, "tgr.block")
        assert table[block]["stage"] == first, "a weight belongs to the first stage using it"
        expected.setdefault(block, []).append(np.ascontiguousarray(weight_array(weight.value)).tobytes())
    payloads = block_payloads(func)
    assert len(payloads) == len(table) == len(expected)
    for index, (entry, payload) in enumerate(zip(table, payloads, strict=True)):
        layout = b""
        for part in expected[index]:  # each weight 16-aligned, no padding after the last
            layout += bytes(-len(layout) % 16) + part
        assert payload == layout
        assert entry["raw_bytes"] == len(payload)
        packed = compress_block(payload)
        assert entry["compressed_bytes"] == len(packed)
        assert lz4.block.decompress(packed, uncompressed_size=len(payload)) == payload
    assert int_attr(func, "tgr.fast_reserved") == max(entry["raw_bytes"] for entry in table)
    assert sum(entry["raw_bytes"] for entry in table) <= sum(-(-weight_array(w.value).nbytes // 16) * 16 for w in weights)


def test_without_compression_blocks_are_raw_and_nothing_is_reserved(model_zoo: dict[str, Path]) -> None:
    _, func = compiled(model_zoo["resnet"], "none")
    table = blocks(func)
    assert all(entry["compressed_bytes"] == entry["raw_bytes"] for entry in table)
    assert int_attr(func, "tgr.fast_reserved") == 0


def ratio(func: FuncOp) -> float:
    table = blocks(func)
    return sum(e["compressed_bytes"] for e in table) / sum(e["raw_bytes"] for e in table)


def test_mobilenet_v2_float_weights_under_lz4(model_zoo: dict[str, Path]) -> None:
    """The zoo's weights are seeded He-normal noise: every float32 mantissa bit is random, and LZ4
    (byte matches of 4 or more, no entropy coding) finds almost nothing to match. The blocks grow
    by LZ4's literal-run overhead only: at most 1 + 1/255 of the raw size plus a few bytes each."""
    _, func = compiled(model_zoo["mobilenet_v2"], "lz4")
    table = blocks(func)
    for entry in table:
        assert entry["compressed_bytes"] <= entry["raw_bytes"] * (1 + 1 / 255) + 16
    print(f"\nmobilenet_v2 float, zoo weights: LZ4/raw = {ratio(func):.4f} over {len(table)} blocks")


def test_pruned_mobilenet_v2_float_compresses_below_raw(model_zoo: dict[str, Path], tmp_path: Path) -> None:
    """The same model with its conv/dense weights magnitude-pruned to 50% zeros (the kind of model
    LZ4 weight compression is for) stores in fewer bytes than raw."""
    model = onnx.load(str(model_zoo["mobilenet_v2"]))
    for index, init in enumerate(model.graph.initializer):
        w = numpy_helper.to_array(init)
        if w.ndim >= 2:
            pruned = np.where(np.abs(w) < np.median(np.abs(w)), np.float32(0), w).astype(np.float32)
            model.graph.initializer[index].CopyFrom(numpy_helper.from_array(pruned, init.name))
    path = tmp_path / "mobilenet_v2_pruned.onnx"
    onnx.save(model, str(path))
    _, func = compiled(path, "lz4")
    assert ratio(func) < 1
    print(f"\nmobilenet_v2 float, 50% magnitude-pruned: LZ4/raw = {ratio(func):.4f}")
