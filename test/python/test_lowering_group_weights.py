"""group-weights on planned zoo models: LZ4 blocks hold only weights of one stage, laid out as the
file lays them out, smaller than raw, and within the reserve every stage leaves; the band peaks the
reserve is measured against are the planner's; and `tigris compile -c lz4` (the reserve search of
lz4_budget included) never gives a plan where fast_reserved and a stage overflow the budget."""

from __future__ import annotations

from pathlib import Path

import lz4.block
import numpy as np
import pytest
from plan_checks import check_reserve  # test/support
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp

from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.plan_attrs import stored_plan
from tigris.dialects.tgr.weight import WeightOp, weight_array
from tigris.emit.tgrs import write_plan
from tigris.emit.tgrs.from_ir import plan_file_from_module
from tigris.transforms import get_all_passes
from tigris.transforms.lower.lz4_budget import choose_plan_budget
from tigris.transforms.pipelines import NORMALIZE, TigrisCompilePass, run_passes
from tigris.transforms.plan.graph import build_plan_graph
from tigris.transforms.plan.memory import align_up
from tigris.transforms.plan.passes import written_plan
from tigris.transforms.plan.planner import plan_memory

ALIGN = 32
BUDGETS = (16384, 65536, 262144, 524288)
"""From budgets where most zoo models overflow (reserving nothing) to ones where they run in one stage."""


PRUNED = ("mobilenet_v2", "resnet", "unet", "yolo")
"""The float zoo models the tests prune (bench/e2e_sweep.py runs a pruned MobileNetV2, float and
int8, at many budgets with -c lz4, checking the reserve on every plan)."""

RESERVE_MODELS = ("efficientnet", "mobilenet_v2_int8", "conv1d", *(f"{name}_pruned" for name in PRUNED))
"""test_lz4_reserve_fits_beside_every_stage's models: dense float and int8 weights (no reserve is
worth it), a 1-D model, every pruned one (blocks and a reserve), and efficientnet, whose 16K
plan overflows (then nothing is reserved)."""


@pytest.fixture(scope="module")
def pruned_zoo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The PRUNED float zoo models with half of each conv and dense weight magnitude-pruned: weights
    LZ4 compresses, so the plans get blocks (the zoo's own weights are incompressible noise)."""
    import zoo
    from prune import magnitude_prune

    out = tmp_path_factory.mktemp("pruned_zoo")
    return {f"{name}_pruned": zoo.save(magnitude_prune(zoo.FLOAT_MODELS[name](), 0.5), out / f"{name}_pruned.onnx")
            for name in PRUNED}


def grouped(path: Path, plan_budget: int, budget: int) -> tuple[ModuleOp, FuncOp]:
    """Planned at `plan_budget`, grouped for an arena of `budget` bytes."""
    module = import_model_file(path)
    ctx = Context()
    run_passes(NORMALIZE, ctx, module)
    passes = get_all_passes()
    for pass_ in (
        passes["tigris-plan"]()(plan_budget, ALIGN),
        passes["layout-nhwc"]()(),
        passes["group-weights"]()("lz4", budget),
    ):
        pass_.apply(ctx, module)  # type: ignore[call-arg]
        module.verify()
    return module, next(op for op in module.ops if isinstance(op, FuncOp))


def blocks(func: FuncOp) -> list[dict[str, int]]:
    return [
        {"stage": b.stage.data, "raw_bytes": b.raw_bytes.data, "compressed_bytes": b.compressed_bytes.data}
        for b in stored_plan(func).weight_blocks
    ]


def int_attr(op: object, name: str) -> int:
    attr = op.attributes[name]  # type: ignore[attr-defined]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


@pytest.mark.parametrize("name", ["mobilenet_v2_pruned", "resnet_pruned", "unet_pruned", "yolo_pruned"])
@pytest.mark.parametrize("budget", [65536, 262144])
def test_lz4_blocks_hold_one_stages_weights_within_the_reserve(
    name: str, budget: int, pruned_zoo: dict[str, Path]
) -> None:
    plan_budget = budget * 3 // 4  # what a reserve of 1/4 of the arena leaves the plan
    module, func = grouped(pruned_zoo[name], plan_budget, budget)
    table = blocks(func)
    assert table, "pruned weights compress: some block is worth it"
    assert [e["stage"] for e in table] == sorted({e["stage"] for e in table})
    members: dict[int, list[bytes]] = {}
    for weight in (op for op in func.walk() if isinstance(op, WeightOp)):
        if "tgr.block" in weight.attributes:
            block = int_attr(weight, "tgr.block")
            readers = {int_attr(use.operation, "tgr.stage") for use in weight.output.uses}
            assert readers == {table[block]["stage"]}, "a block weight is read by its block's stage only"
            members.setdefault(block, []).append(np.ascontiguousarray(weight_array(weight.value)).tobytes())
    assert sorted(members) == list(range(len(table)))
    for index, entry in enumerate(table):
        raw = b""
        for part in members[index]:  # each weight 16-aligned, no padding after the last
            raw += bytes(-len(raw) % 16) + part
        packed = lz4.block.compress(raw, store_size=False)
        assert (entry["raw_bytes"], entry["compressed_bytes"]) == (len(raw), len(packed))
        assert len(packed) < len(raw), "a block LZ4 does not shrink is not kept"
    reserved = int_attr(func, "tgr.fast_reserved")
    assert reserved == max(e["raw_bytes"] for e in table)
    for stage in plan_memory(build_plan_graph(module), plan_budget, ALIGN).stages:
        assert align_up(reserved, ALIGN) + stage.scheduled_peak <= budget


@pytest.mark.parametrize("name", ["mobilenet_v2", "resnet", "unet", "yolo", "conv1d"])
@pytest.mark.parametrize("budget", [4096, 16384, 65536])
def test_scheduled_peaks_read_back_are_the_planners(
    name: str, budget: int, model_zoo: dict[str, Path]
) -> None:
    """The reserve is measured against the band peaks the plan stored in each #tgr.tile_plan."""
    module = import_model_file(model_zoo[name])
    ctx = Context()
    run_passes(NORMALIZE, ctx, module)
    get_all_passes()["tigris-plan"]()(budget, ALIGN).apply(ctx, module)  # type: ignore[call-arg]
    graph = build_plan_graph(module)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    planned = [s.scheduled_peak for s in plan_memory(graph, budget, ALIGN).stages]
    assert stored_plan(func).scheduled_peaks == planned


def test_lz4_reserve_fits_beside_every_stage(model_zoo: dict[str, Path], pruned_zoo: dict[str, Path]) -> None:
    """The invariant the runtime needs, read from the file `tigris compile -c lz4` writes
    (plan_checks.check_reserve): fast_reserved (aligned up) + every stage's peak (its tile plan's
    band peak if tiled or chained) <= the budget; a plan whose stages overflow the budget reserves
    nothing. On RESERVE_MODELS at BUDGETS; bench/e2e_sweep.py checks every -c lz4 plan it makes."""
    with_blocks = overflowing = 0
    paths = {**model_zoo, **pruned_zoo}
    for key in RESERVE_MODELS:
        normalized = import_model_file(paths[key], None)
        run_passes(NORMALIZE, Context(), normalized)
        for budget in BUDGETS:
            module = normalized.clone()
            TigrisCompilePass(budget=budget, compress="lz4").plan_and_lower(Context(), module)
            data = write_plan(plan_file_from_module(module, budget), "lz4")
            try:
                reserved = check_reserve(data, budget, ALIGN)
            except AssertionError as e:
                raise AssertionError(f"{key} at {budget}: {e}") from e
            with_blocks += reserved > 0
            overflowing += max(s.scheduled_peak for s in written_plan(module).stages) > budget
    assert with_blocks >= len(pruned_zoo), "the pruned models do get blocks"
    assert overflowing, "an overflowing plan was checked"


@pytest.mark.parametrize("budget", [65536, 262144])
def test_lz4_plans_at_a_smaller_budget_only_for_compressible_weights(
    budget: int, model_zoo: dict[str, Path], pruned_zoo: dict[str, Path]
) -> None:
    """A plan at the full budget leaves about 1 KiB (64K) or 4 KiB (256K) for blocks: pruned
    MobileNetV2 is planned at a smaller budget to reserve more; dense weights are not worth it."""
    chosen = {}
    for key, path in (("dense", model_zoo["mobilenet_v2"]), ("pruned", pruned_zoo["mobilenet_v2_pruned"])):
        module = import_model_file(path)
        ctx = Context()
        run_passes(NORMALIZE, ctx, module)
        get_all_passes()["layout-nhwc"]()().apply(ctx, module)
        chosen[key] = choose_plan_budget(module, budget, ALIGN)
    assert chosen["dense"] == budget
    assert budget // 2 <= chosen["pruned"] < budget


def test_a_weight_bigger_than_the_reserve_stays_in_the_blob(pruned_zoo: dict[str, Path]) -> None:
    """MobileNetV2's last 1x1 conv (112 -> 1280 channels, 573 KB) exceeds any reserve of a 256K
    arena: it is read in place from the blob, compressed plan or not."""
    module, func = grouped(pruned_zoo["mobilenet_v2_pruned"], 196608, 262144)
    weights = [op for op in func.walk() if isinstance(op, WeightOp)]
    biggest = max(weights, key=lambda w: weight_array(w.value).nbytes)
    assert weight_array(biggest.value).nbytes > 262144 and "tgr.block" not in biggest.attributes
    assert blocks(func)


def test_pruning_keeps_the_dense_weights_elsewhere() -> None:
    """The builder option: half of each conv/dense weight is zero, the rest is the dense model's."""
    import zoo
    from onnx import numpy_helper

    dense, pruned = zoo.default_mobilenet(), zoo.default_mobilenet(prune=0.5)
    for a, b in zip(dense.graph.initializer, pruned.graph.initializer, strict=True):
        wa, wb = numpy_helper.to_array(a), numpy_helper.to_array(b)
        kept = wb != 0
        assert np.array_equal(wa[kept], wb[kept])
        if wa.ndim >= 2:
            assert kept.sum() == wa.size - wa.size // 2
            assert np.abs(wa[~kept]).max() <= np.abs(wa[kept]).min()
        else:
            assert np.array_equal(wa, wb)
