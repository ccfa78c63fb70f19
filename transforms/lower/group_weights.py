"""group-weights{compress=none|lz4 budget=N}: weights grouped into per-stage blocks (spec/pipeline.md 7.3).

The runtime reads a stage's weights from its block. compress=none: blocks are stored raw and read
in place like the blob, so every weight simply joins the block of the first stage that uses it
(the smallest `tgr.stage` among its users, as written by `tigris-plan`).

compress=lz4: the runtime decompresses the stage's block into `fast_reserved`, a prefix of the
SRAM arena of `budget` bytes that every stage gives up, and only that one block is there while the
stage runs. So a block costs arena, and a weight the blob holds is read in place from flash at no
cost. The rule (`pack_lz4`): a weight joins the block of stage s only if every op reading it is in
s; stage s's block takes such weights in IR order while its raw size stays within the reserve
(`weight_reserve.reserve_capacity`: budget minus the largest scheduled peak, aligned down; 0 if a
stage overflows), skipping any that do not fit; a block LZ4 does not make smaller is dropped. Every
other weight stays in the blob. Hence `fast_reserved` (aligned up) + every stage's peak, or band
peak for a tiled or chained stage, <= budget. The pass takes the plan it is given; a plan made at the
full budget leaves little, so tigris-compile first picks a smaller planning budget that leaves a
reserve worth having (`lz4_budget.choose_plan_budget`, which explains the policy).

Blocks are numbered in stage order. The pass writes:

    tgr.block = i : i64                  on each tgr.weight in block i (none: the weight is in the blob)
    tgr.weight_blocks = [#tgr.weight_block<stage = s, raw_bytes = r, compressed_bytes = c>, ...]
                                         on @main: entry i = block i
    tgr.fast_reserved = n : i64          on @main: the largest raw_bytes with compress=lz4, else 0
    tgr.compress = "none" | "lz4"        on @main: how the emitter stores the blocks

A block's bytes are the raw bytes of its weights (`weight_bytes`: C order, little-endian, a
quantized weight's storage integers) in IR order, each starting at a multiple of WEIGHT_ALIGN (zero
padding between weights, none after the last), as the .tgrs writer lays them out. With lz4,
compressed_bytes is the length of `compress_block(bytes)` = lz4.block.compress(bytes,
store_size=False), what the writer stores; with none it equals raw_bytes. Run it after
layout-nhwc, which changes the weight bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import lz4.block
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects.tgr.attributes import WeightBlockAttr
from tigris.dialects.tgr.plan_attrs import BLOCK, COMPRESS, FAST_RESERVED, STAGES, WEIGHT_BLOCKS, op_stage, stored_plan
from tigris.dialects.tgr.weight import WeightOp
from tigris.transforms.lower.weight_reserve import reserve_capacity
from tigris.transforms.plan.graph import main_func
from tigris.transforms.plan.memory import align_up
from tigris.transforms.plan.passes import plan_align
from tigris.transforms.rewriting import fail

WEIGHT_ALIGN = 16
"""Each weight starts 16-byte aligned inside its block, as the .tgrs format lays blocks out
(docs/tgrs-format.md: an int32 bias after an odd-sized int8 weight must stay aligned)."""

BLOCK_RECORD = 12
"""Bytes of a tigris_weight_block_t: what a block costs in the file besides its data."""


def weight_bytes(weight: WeightOp) -> bytes:
    """The bytes the runtime reads for a weight: its array, C order, little-endian."""
    return weight.array().tobytes(order="C")


def compress_block(payload: bytes) -> bytes:
    """One LZ4 block, without a size header (the runtime knows raw_bytes)."""
    return lz4.block.compress(payload, store_size=False)


def _aligned_concat(parts: Sequence[bytes]) -> bytes:
    out = bytearray()
    for part in parts:
        out += bytes(-len(out) % WEIGHT_ALIGN) + part
    return bytes(out)


def _aligned_size(sizes: Sequence[int]) -> int:
    end = 0
    for size in sizes:
        end += -end % WEIGHT_ALIGN + size
    return end


@dataclass(frozen=True)
class Block:
    """One weight block: `weights` are indices into the pass's weights, in IR order."""

    stage: int
    weights: tuple[int, ...]
    raw_bytes: int
    compressed_bytes: int


def pack_lz4(payloads: Sequence[bytes], stages: Sequence[set[int]], capacity: int) -> list[Block]:
    """The LZ4 rule of the module docstring, in stage order. `payloads[i]` are weight i's bytes,
    `stages[i]` the stages whose ops read it."""
    chosen: dict[int, list[int]] = {}
    ends: dict[int, int] = {}  # a block's raw size so far
    for i, (payload, users) in enumerate(zip(payloads, stages, strict=True)):
        if len(users) != 1:
            continue
        stage = next(iter(users))
        end = ends.get(stage, 0)
        end += -end % WEIGHT_ALIGN + len(payload)
        if end <= capacity:
            chosen.setdefault(stage, []).append(i)
            ends[stage] = end
    blocks = []
    for stage in sorted(chosen):
        packed = len(compress_block(_aligned_concat([payloads[i] for i in chosen[stage]])))
        if packed < ends[stage]:
            blocks.append(Block(stage, tuple(chosen[stage]), ends[stage], packed))
    return blocks


def stored_bytes(payloads: Sequence[bytes], blocks: Sequence[Block]) -> int:
    """What the weights of an LZ4 plan take in the file: the blob, the block streams (each
    16-aligned) and the block records."""
    blocked = {i for block in blocks for i in block.weights}
    blob = _aligned_size([len(p) for i, p in enumerate(payloads) if i not in blocked])
    streams = sum(align_up(b.compressed_bytes, WEIGHT_ALIGN) for b in blocks)
    return blob + streams + BLOCK_RECORD * len(blocks)


def weight_stages(weight: WeightOp) -> set[int]:
    """The stages whose ops read `weight` (its users' `tgr.stage`)."""
    return {stage for use in weight.output.uses if (stage := op_stage(use.operation)) is not None}


@dataclass(frozen=True)
class GroupWeightsPass(ModulePass):
    name = "group-weights"
    compress: Literal["none", "lz4"] = "none"
    budget: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        func = main_func(op)
        if STAGES not in func.attributes:
            raise PassFailedException(
                "group-weights needs a plan: run tigris-plan first (@main has no tgr.stages)"
            )
        if self.compress == "lz4" and self.budget < 1:
            raise PassFailedException(
                "group-weights{compress=lz4} needs budget=<bytes>: fast_reserved comes out of that arena"
            )
        weights = [w for w in func.walk() if isinstance(w, WeightOp)]
        stages = [weight_stages(w) for w in weights]
        for weight, users in zip(weights, stages):
            if not users:
                raise fail(weight, "no op with a tgr.stage uses this weight")
        if self.compress == "lz4":
            capacity = reserve_capacity(self.budget, stored_plan(func).scheduled_peaks, plan_align(func))
            blocks = pack_lz4([weight_bytes(w) for w in weights], stages, capacity)
        else:
            firsts: dict[int, list[int]] = {}
            for i, users in enumerate(stages):
                firsts.setdefault(min(users), []).append(i)
            blocks = []
            for stage in sorted(firsts):
                raw = _aligned_size([weights[i].array().nbytes for i in firsts[stage]])
                blocks.append(Block(stage, tuple(firsts[stage]), raw, raw))
        block_of = {i: b for b, block in enumerate(blocks) for i in block.weights}
        for i, weight in enumerate(weights):
            if i in block_of:
                weight.attributes[BLOCK] = IntegerAttr(block_of[i], i64)
            else:
                weight.attributes.pop(BLOCK, None)
        entries = [
            WeightBlockAttr(IntAttr(b.stage), IntAttr(b.raw_bytes), IntAttr(b.compressed_bytes)) for b in blocks
        ]
        largest = max((b.raw_bytes for b in blocks), default=0) if self.compress == "lz4" else 0
        func.attributes[WEIGHT_BLOCKS] = ArrayAttr(entries)
        func.attributes[FAST_RESERVED] = IntegerAttr(largest, i64)
        func.attributes[COMPRESS] = StringAttr(self.compress)  # how the emitter stores the blocks
