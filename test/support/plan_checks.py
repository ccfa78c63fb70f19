"""Checks of one compiled `.tgrs` plan against the module it was written from, shared by the CI
tests (test_compile.py, test_lowering_group_weights.py, on representative models) and the full
sweep over the zoo (bench/e2e_sweep.py)."""

from __future__ import annotations

import struct

import lz4.block
import numpy as np
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.dialects.tgr.weight import WeightOp, weight_array
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.enums import SectionKind
from tigris.emit.tgrs.model import PlanFile
from tigris.emit.tgrs.reader import read_header, read_sections
from tigris.emit.tgrs.records import HEADER, WEIGHT_BLOCK
from tigris.transforms.plan.graph import build_plan_graph, main_func
from tigris.transforms.plan.memory import align_up
from xdsl.dialects.builtin import IntegerAttr, ModuleOp


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


def check_round_trip(module: ModuleOp, plan: PlanFile, data: bytes, compress: str) -> None:
    """The file reads back as the plan it was written from, and its ops are the IR's runtime ops."""
    back = read_plan(data)
    assert back.tensors == plan.tensors and back.ops == plan.ops and back.stages == plan.stages
    assert back.tile_plans == plan.tile_plans and back.weights == plan.weights
    assert back.quant_params == plan.quant_params and back.tables == plan.tables
    assert write_plan(back, compress) == data
    ir_types = [s.op.get_trait(RuntimeOp).op_type for s in build_plan_graph(module).steps]
    assert [int(op.op_type) for op in plan.ops] == ir_types


def check_reserve(data: bytes, budget: int, align: int) -> int:
    """The invariant the runtime needs of an LZ4 plan: fast_reserved is the largest block, and
    (aligned up) beside every stage's peak (its tile plan's band peak if tiled or chained) it fits
    the budget; a plan whose stages overflow the budget reserves nothing. Returns fast_reserved."""
    plan = read_plan(data)
    reserved = struct.unpack_from("<I", data, HEADER.offsets["fast_reserved"])[0]
    assert reserved == max((b.raw_size for b in plan.weight_blocks), default=0)
    tiles = plan.tile_plans
    peaks = [s.peak if s.tile_plan is None else tiles[s.tile_plan].peak for s in plan.stages]
    if max(peaks) > budget:
        assert reserved == 0, "an overflowing plan reserves nothing"
    for index, peak in enumerate(peaks):
        assert reserved == 0 or align_up(reserved, align) + peak <= budget, f"stage {index}"
    return reserved
