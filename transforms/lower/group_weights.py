"""group-weights{compress=none|lz4}: weights grouped into one block per stage (spec/pipeline.md 7.3).

The runtime loads (and with LZ4 decompresses) a stage's weights before running it, into the
`fast_reserved` prefix of its SRAM arena. A weight belongs to the first stage that uses it (the
smallest `tgr.stage` among its users, as written by `tigris-plan`); blocks are numbered in stage
order, over the stages that first-use at least one weight. The pass writes:

    tgr.block = i : i64                  on each tgr.weight
    tgr.weight_blocks = [{stage = s : i64, raw_bytes = r : i64, compressed_bytes = c : i64}, ...]
                                         on @main: an ArrayAttr of DictionaryAttr, entry i = block
                                         i (builtin attributes; the fields always in this order)
    tgr.fast_reserved = n : i64          on @main: the largest raw_bytes with compress=lz4, else 0

A block's bytes are the raw bytes of its weights (`weight_bytes`: C order, little-endian, a
quantized weight's storage integers) concatenated in IR order (`block_payloads`). With lz4,
compressed_bytes is the length of `compress_block(payload)` = lz4.block.compress(payload,
store_size=False), every block compressed; with none it equals raw_bytes. The emitter calls
the same two functions, so the sizes here are the bytes it writes. Run it after layout-nhwc,
which changes the weight bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import lz4.block
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, i64
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects.tgr.weight import WeightOp
from tigris.transforms.plan.graph import main_func
from tigris.transforms.rewriting import fail


def weight_bytes(weight: WeightOp) -> bytes:
    """The bytes the runtime reads for a weight: its array, C order, little-endian."""
    return weight.array().tobytes(order="C")


def compress_block(payload: bytes) -> bytes:
    """One LZ4 block, without a size header (the runtime knows raw_bytes)."""
    return lz4.block.compress(payload, store_size=False)


WEIGHT_ALIGN = 16
"""Each weight starts 16-byte aligned inside its block, as the .tgrs format lays blocks out
(docs/tgrs-format.md: an int32 bias after an odd-sized int8 weight must stay aligned)."""


def block_payloads(func: FuncOp) -> list[bytes]:
    """Each block's raw bytes, laid out as in the file: its weights in IR order, each starting
    at a multiple of WEIGHT_ALIGN (zero padding between weights, none after the last)."""
    blocks: dict[int, list[bytes]] = {}
    for op in func.walk():
        if isinstance(op, WeightOp):
            block = op.attributes.get("tgr.block")
            if not isinstance(block, IntegerAttr):
                raise fail(op, "has no tgr.block: run group-weights first")
            blocks.setdefault(block.value.data, []).append(weight_bytes(op))
    return [_aligned_concat(blocks[i]) for i in sorted(blocks)]


def _aligned_concat(parts: list[bytes]) -> bytes:
    out = bytearray()
    for part in parts:
        out += bytes(-len(out) % WEIGHT_ALIGN) + part
    return bytes(out)


def _first_stage(weight: WeightOp) -> int | None:
    stages = [
        use.operation.attributes["tgr.stage"]
        for use in weight.output.uses
        if "tgr.stage" in use.operation.attributes
    ]
    return min((s.value.data for s in stages if isinstance(s, IntegerAttr)), default=None)


@dataclass(frozen=True)
class GroupWeightsPass(ModulePass):
    name = "group-weights"
    compress: Literal["none", "lz4"] = "none"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        func = main_func(op)
        if "tgr.stages" not in func.attributes:
            raise PassFailedException(
                "group-weights needs a plan: run tigris-plan first (@main has no tgr.stages)"
            )
        weights = [w for w in func.walk() if isinstance(w, WeightOp)]
        first = {}
        for weight in weights:
            stage = _first_stage(weight)
            if stage is None:
                raise fail(weight, "no op with a tgr.stage uses this weight")
            first[weight] = stage
        block_of = {stage: index for index, stage in enumerate(sorted(set(first.values())))}
        for weight in weights:
            weight.attributes["tgr.block"] = IntegerAttr(block_of[first[weight]], i64)
        entries = []
        largest = 0
        for stage, payload in zip(sorted(block_of), block_payloads(func), strict=True):
            raw = len(payload)
            packed = len(compress_block(payload)) if self.compress == "lz4" else raw
            largest = max(largest, raw)
            fields = {"stage": stage, "raw_bytes": raw, "compressed_bytes": packed}
            entries.append(DictionaryAttr({k: IntegerAttr(v, i64) for k, v in fields.items()}))
        func.attributes["tgr.weight_blocks"] = ArrayAttr(entries)
        func.attributes["tgr.fast_reserved"] = IntegerAttr(largest if self.compress == "lz4" else 0, i64)
