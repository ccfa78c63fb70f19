"""tigris-compile + plan_file_from_module + `tigris compile` / `tigris inspect`."""

from __future__ import annotations

import json
import subprocess
import sys

import lz4.block
import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.dialects.tgr.weight import WeightOp, weight_array
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.enums import SectionKind
from tigris.emit.tgrs.from_ir import FromIrError, plan_file_from_module
from tigris.emit.tgrs.reader import read_header, read_sections
from tigris.emit.tgrs.records import WEIGHT_BLOCK
from tigris.tools.cli import main
from tigris.transforms import get_all_passes
from tigris.transforms.pipelines import TigrisCompilePass
from tigris.transforms.plan.graph import build_plan_graph, main_func

BUDGETS = (1 << 22, 8192)  # roomy; small enough that every conv model tiles


def _compile(path, budget, compress):
    module = import_model_file(path, None)
    TigrisCompilePass(budget=budget, compress=compress).apply(Context(), module)
    return module, plan_file_from_module(module, budget)


def stored_blocks(data: bytes) -> list[tuple[bytes, int]]:
    """Each weight block's stored bytes, cut from the file as its record says, and its raw_size."""
    sections = read_sections(data, read_header(data))
    if SectionKind.WEIGHT_BLOCKS not in sections:
        return []
    store = sections[SectionKind.WEIGHT_BLOCK_DATA][0]
    records = WEIGHT_BLOCK.unpack_all(sections[SectionKind.WEIGHT_BLOCKS][0])
    return [(store[r["offset"] : r["offset"] + r["size"]], r["raw_size"]) for r in records]


def check_lz4_blocks(module: ModuleOp, data: bytes) -> int:
    """Every LZ4 block of the file decompresses to the weights its entries claim, as the lowering
    produced them (16-aligned, zero padding between), and those are the weights the lowering put
    in that block. Returns the number of blocks."""
    weights = [op for op in main_func(module).body.block.ops if isinstance(op, WeightOp)]  # the file's order
    entries = read_plan(data).weights
    lowered = [w.attributes.get("tgr.block") for w in weights]
    blocks_lowered = [b.value.data if isinstance(b, IntegerAttr) else None for b in lowered]
    assert [e.block for e in entries] == blocks_lowered
    blocks = stored_blocks(data)
    for b, (stored, raw_size) in enumerate(blocks):
        raw = b""
        for weight, entry in zip(weights, entries, strict=True):
            if entry.block == b:
                raw += bytes(-len(raw) % 16) + np.ascontiguousarray(weight_array(weight.value)).tobytes()
        assert lz4.block.decompress(stored, uncompressed_size=raw_size) == raw, f"block {b}"
        assert len(stored) < raw_size, f"block {b} is not smaller than its weights"
    return len(blocks)


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
            check_lz4_blocks(module, data)
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


@pytest.fixture(scope="module")
def mobilenets(tmp_path_factory):
    """The zoo's float MobileNetV2-like model, dense and with half of each layer's weights pruned."""
    import zoo

    out = tmp_path_factory.mktemp("mobilenets")
    return {prune: zoo.save(zoo.default_mobilenet(prune=prune), out / f"mobilenet_v2_{prune}.onnx")
            for prune in (0.0, 0.5)}


@pytest.mark.parametrize("budget", [65536, 262144])
def test_lz4_plans_of_mobilenet_v2_dense_and_pruned(mobilenets, budget):
    """Dense float weights do not compress: their blocks are dropped, the weights stay in the blob
    and the LZ4 plan is no larger than the uncompressed one beyond a few record bytes. Pruned
    weights do: the LZ4 plan is smaller, and its blocks, cut from the file, hold their weights."""
    sizes = {}
    for prune, path in mobilenets.items():
        plain = _compile(path, budget, "none")[1]
        module, plan = _compile(path, budget, "lz4")
        packed = write_plan(plan, "lz4")
        sizes[prune] = (len(write_plan(plain, "none")), len(packed), check_lz4_blocks(module, packed))
        if prune == 0.0:
            assert len(plan.stages) == len(plain.stages), "no reserve is worth re-planning dense weights for"
    (dense_none, dense_lz4, dense_blocks), (pruned_none, pruned_lz4, pruned_blocks) = sizes[0.0], sizes[0.5]
    assert dense_blocks == 0 and dense_lz4 <= dense_none + 64
    assert pruned_blocks > 0 and pruned_lz4 < pruned_none
    print(f"\nmobilenet_v2 float at {budget // 1024}K: LZ4/none = {dense_lz4 / dense_none:.4f} dense, "
          f"{pruned_lz4 / pruned_none:.4f} pruned 50% ({pruned_blocks} blocks)")


SHARED = """
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w1 = tgr.weight {tgr.name = "w1"} dense<1.0> : tensor<2x2x3x3xf32>
  %b = tgr.weight {tgr.name = "b"} dense<0.0> : tensor<2xf32>
  %w2 = tgr.weight {tgr.name = "w2"} dense<0.5> : tensor<2x2x1x1xf32>
  %c1 = tgr.conv %x, %w1, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w2, %b : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  func.return %c2 : tensor<1x2x8x8xf32>
}
"""
"""b is read by both convs; at 1000 bytes (align 16) each conv is a stage of its own."""


def test_weight_shared_by_two_stages_stays_in_the_blob():
    """With LZ4 only the block a stage names is decompressed: a weight two stages read must stay
    in the blob, or the loader rejects the plan (the writer checks it as the loader would)."""
    module = Parser(make_context(), SHARED).parse_module()
    TigrisCompilePass(budget=1000, align=16, compress="lz4").apply(Context(), module)
    plan = read_plan(data := write_plan(plan_file_from_module(module), "lz4"))
    names = [t.name for t in plan.tensors]
    b = plan.tensors[names.index("b")].weight
    readers = {i for i, s in enumerate(plan.stages) for o in s.ops if names.index("b") in plan.ops[o].inputs}
    assert len(readers) == 2 and plan.weights[b].block is None
    assert check_lz4_blocks(module, data) >= 1, "w1 and w2 (one stage each) still compress"


def test_emitter_refuses_a_reserve_beside_which_a_stage_does_not_fit():
    """Grouped for a 1200-byte arena, the 144-byte block fits beside the 960-byte band peaks; the
    same module emitted for 1000 bytes would overflow, and the emitter says so."""
    module = Parser(make_context(), SHARED).parse_module()
    passes = get_all_passes()
    for pass_ in (passes["tigris-plan"]()(1000, 16), passes["group-weights"]()("lz4", 1200)):
        pass_.apply(Context(), module)  # type: ignore[call-arg]
    assert plan_file_from_module(module, 1200).weight_blocks
    message = r"stage 0: fast_reserved 144 \(aligned to 16\) \+ its peak 960 exceed the budget 1000"
    with pytest.raises(FromIrError, match=message):
        plan_file_from_module(module, 1000)


def test_float_compile_does_not_import_the_interpreter(model_zoo):
    """compute-quant-scales has nothing to do on a float model and must not pay for importing the
    interpreter (xdsl.interpreters: about a fifth of `tigris compile`'s time)."""
    code = ("import sys; from tigris.tools.cli import compile_bytes; compile_bytes(sys.argv[1], 65536); "
            "assert 'xdsl.interpreters' not in sys.modules, 'the interpreter was imported'")
    subprocess.run([sys.executable, "-c", code, str(model_zoo["resnet"])], check=True)


@pytest.mark.parametrize("model", ["unet", "unet_int8", "mobilenet_v2_int8"])
def test_compile_imports_only_what_it_needs(model_zoo, model: str) -> None:
    """`tigris compile` loads xDSL's builtin and func dialects and ours, not the interpreter (the
    resize check of extract-resize-scales borrows one kernel's arithmetic, not the package), not
    xDSL's other dialects (RISC-V, arith, ...): their imports were most of a compile's time."""
    code = (
        "import sys; from tigris.tools.cli import compile_bytes; compile_bytes(sys.argv[1], 65536); "
        "extra = sorted(m for m in sys.modules if m.startswith(('xdsl.interpreter', 'xdsl.dialects.')) "
        "and m.split('.')[2] not in ('builtin', 'func', 'utils')); "
        "assert not extra, extra"
    )
    subprocess.run([sys.executable, "-c", code, str(model_zoo[model])], check=True)


def test_plan_reader_and_host_runtime_import_no_xdsl() -> None:
    """`tigris run` and `tigris inspect` read a `.tgrs` file and call the C runtime: no IR, so
    no xDSL at all (its IR core alone is a large part of the start-up)."""
    code = (
        "import sys; import tigris.tools.cli, tigris.tools.cli_run, tigris.tools.runtime_binding, tigris.emit.tgrs; "
        "loaded = sorted(m for m in sys.modules if m.startswith('xdsl') and m not in ('xdsl', 'xdsl.utils', "
        "'xdsl.utils.exceptions')); assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
