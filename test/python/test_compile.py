"""tigris-compile + plan_file_from_module + `tigris compile` / `tigris inspect`."""

from __future__ import annotations

import json

import lz4.block
import pytest
from xdsl.context import Context

from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.tools.cli import main
from tigris.transforms.pipelines import TigrisCompilePass
from tigris.transforms.plan.graph import build_plan_graph

BUDGETS = (1 << 22, 8192)  # roomy; small enough that every conv model tiles


def _compile(path, budget, compress):
    module = import_model_file(path, None)
    TigrisCompilePass(budget=budget, compress=compress).apply(Context(), module)
    return module, plan_file_from_module(module, budget)


@pytest.mark.parametrize("compress", ["none", "lz4"])
@pytest.mark.parametrize("budget", BUDGETS)
def test_zoo_compiles_and_round_trips(model_zoo, budget, compress):
    tiled = 0
    for key, path in sorted(model_zoo.items()):
        module, plan = _compile(path, budget, compress)
        data = write_plan(plan, compress)
        back = read_plan(data)
        assert back.tensors == plan.tensors and back.ops == plan.ops and back.stages == plan.stages, key
        assert back.tile_plans == plan.tile_plans and back.weights == plan.weights, key
        assert back.quant_params == plan.quant_params and back.tables == plan.tables, key
        ir_types = [s.op.get_trait(RuntimeOp).op_type for s in build_plan_graph(module).steps]
        assert [int(op.op_type) for op in plan.ops] == ir_types, key
        assert data == write_plan(_compile(path, budget, compress)[1], compress), key  # deterministic
        tiled += bool(plan.tile_plans)
        if compress == "lz4":
            for b, _ in enumerate(back.weight_blocks):
                # decompress the stored block from the file and compare with the block's weights
                raw = b""
                for w in plan.weights:
                    if w.block == b:  # the writer pads before each weight, not after the last
                        raw += bytes(-len(raw) % 16) + w.data
                stored = lz4.block.compress(raw, store_size=False)
                assert lz4.block.decompress(stored, uncompressed_size=len(raw)) == raw
                assert back.weight_blocks[b].raw_size == len(raw) and back.weight_blocks[b].stored_size == len(stored)
    if budget == 8192:
        assert tiled >= len(model_zoo) // 2


def test_cli_compile_inspect(model_zoo, tmp_path, capsys):
    model = str(model_zoo["resnet_int8"])
    out = tmp_path / "m.tgrs"
    assert main(["compile", model, "-m", "16K", "-c", "lz4", "-o", str(out)]) == 0
    first = out.read_bytes()
    assert main(["compile", model, "-m", "16K", "-c", "lz4", "-o", str(out)]) == 0
    assert out.read_bytes() == first
    capsys.readouterr()
    assert main(["inspect", str(out)]) == 0
    text = capsys.readouterr().out
    assert "stages" in text and "CONV" in text
    assert main(["inspect", str(out), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["file_bytes"] == len(first) and "LZ4" in facts["flags"]
    assert sum(facts["ops_by_type"].values()) == facts["op_count"]


def test_cli_flash_too_small(model_zoo, tmp_path, capsys):
    out = tmp_path / "m.tgrs"
    assert main(["compile", str(model_zoo["resnet"]), "-m", "64K", "-f", "1K", "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "bytes more than the flash" in err[0]
    assert not out.exists()


def test_cli_inspect_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.tgrs"
    bad.write_bytes(b"TGRS" + bytes(100))
    assert main(["inspect", str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
