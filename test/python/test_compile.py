"""tigris-compile + plan_file_from_module + `tigris compile` / `tigris inspect`.

The zoo round trip runs on tgrs_zoo.REPRESENTATIVE in CI; bench/e2e_sweep.py runs its checks on
the whole zoo at many budgets and modes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from plan_checks import check_lz4_blocks, check_round_trip  # test/support
from tgrs_zoo import REPRESENTATIVE  # test/support
from xdsl.context import Context
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.from_ir import FromIrError, plan_file_from_module
from tigris.tools.cli import main
from tigris.transforms import get_all_passes
from tigris.transforms.pipelines import NORMALIZE, TigrisCompilePass, run_passes
from tigris.transforms.plan.graph import main_func

BUDGETS = (1 << 22, 8192)  # roomy; small enough that every conv model tiles


def _compile(path, budget, compress):
    module = import_model_file(path, None)
    TigrisCompilePass(budget=budget, compress=compress).apply(Context(), module)
    return module, plan_file_from_module(module, budget)


@pytest.mark.parametrize("compress", ["none", "lz4"])
@pytest.mark.parametrize("budget", BUDGETS)
def test_zoo_compiles_and_round_trips(model_zoo, budget, compress):
    """The representative models (tgrs_zoo.REPRESENTATIVE: every op type of the zoo, float and
    int8, and at 8 KiB every tile-plan kind, asserted below) compile, write, read back as written,
    compile again to the same bytes, and their LZ4 blocks hold their weights. The whole zoo at
    many budgets and modes: bench/e2e_sweep.py (the same checks, plan_checks.py)."""
    kinds: set[str] = set()
    for key in REPRESENTATIVE:
        path = model_zoo[key]
        module, plan = _compile(path, budget, compress)
        data = write_plan(plan, compress)
        check_round_trip(module, plan, data, compress)
        assert data == write_plan(_compile(path, budget, compress)[1], compress), key  # deterministic
        kinds |= tile_kinds(plan)
        if compress == "lz4":
            check_lz4_blocks(module, data)
    if budget == 8192:
        assert kinds == {"rows", "2-D", "reduction", "chain of 2", "chain of 3+", "int8", "tables"}, kinds


def tile_kinds(plan) -> set[str]:
    """The tile-plan kinds a plan holds (row bands, 2-D tiles, reduction tiles, chains of 2 and
    of 3+), and whether it has int8 quantization and lookup tables."""
    kinds = {"int8"} if plan.quant_params else set()
    kinds |= {"tables"} if plan.tables else set()
    chains: dict[int, int] = {}
    for stage in plan.stages:
        tile = plan.tile_plans[stage.tile_plan] if stage.tile_plan is not None else None
        if tile is not None and tile.chain >= 0:
            chains[tile.chain] = chains.get(tile.chain, 0) + 1
        elif tile is not None:
            kinds.add("reduction" if tile.reduce_op is not None else "2-D" if tile.tile_w > 0 else "rows")
    return kinds | {"chain of 2" if n == 2 else "chain of 3+" for n in chains.values()}


def test_representative_models_hold_every_op_type_of_the_zoo(model_zoo):
    """What makes REPRESENTATIVE enough for the format checks: its models' runtime ops are every
    op type any zoo model has (read from the normalized IR, no planning)."""
    def op_types(key):
        module = import_model_file(model_zoo[key], None)
        run_passes(NORMALIZE, Context(), module, verify_each=False)
        return {op.get_trait(RuntimeOp).op_type for op in main_func(module).body.block.ops
                if op.get_trait(RuntimeOp) is not None}  # fmt: skip

    every = set().union(*(op_types(k) for k in model_zoo))
    assert set().union(*(op_types(k) for k in REPRESENTATIVE)) == every


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
"""b is read by both convs; at 1000 bytes (align 16) the greedy's cuts (`cuts=greedy`) make each conv a
stage of its own (the default cuts fuse them into one stage, and then nothing is shared across stages)."""


def test_weight_shared_by_two_stages_stays_in_the_blob():
    """With LZ4 only the block a stage names is decompressed: a weight two stages read must stay
    in the blob, or the loader rejects the plan (the writer checks it as the loader would)."""
    module = Parser(make_context(), SHARED).parse_module()
    TigrisCompilePass(budget=1000, align=16, compress="lz4", cuts="greedy").apply(Context(), module)
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
    for pass_ in (passes["tigris-plan"]()(1000, 16, "greedy"), passes["group-weights"]()("lz4", 1200)):
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
