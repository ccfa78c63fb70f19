"""Records to model objects, checking every field: quant params, weights, tensors.

Called by `reader.read_plan` once the container is sound. Records are decoded in
dependency order (quant params and weights before the tensors that refer to them, see
`decode`), so each cross-reference is checked when it is first met.
"""

from __future__ import annotations

import math

import lz4.block

from tigris.emit.tgrs.decode_ops import decode_ops, decode_stages, decode_tile_plans
from tigris.emit.tgrs.enums import (
    MAX_RANK,
    NONE32,
    QUANTIZABLE,
    TABLE_SIZE,
    WEIGHT_ALIGN,
    DType,
    FileFlag,
    SectionKind,
    TensorFlag,
)
from tigris.emit.tgrs.layout import Value
from tigris.emit.tgrs.model import PlanFile, QuantParam, Tensor, Weight, WeightBlock
from tigris.emit.tgrs.pools import Pools, bad, float32s, positive_scale
from tigris.emit.tgrs.records import QUANT_PARAM, TENSOR, WEIGHT_BLOCK, WEIGHT_ENTRY

Sections = dict[SectionKind, tuple[bytes, int]]
LZ4_MAX_RATIO = 255
"""An LZ4 block expands at most ~255x: a raw_size beyond that is a lie, not an allocation."""


def _raw(sections: Sections, kind: SectionKind) -> bytes:
    return sections[kind][0] if kind in sections else b""




def decode_quant_params(sections: Sections, pools: Pools) -> list[QuantParam]:
    out: list[QuantParam] = []
    for i, rec in enumerate(QUANT_PARAM.unpack_all(_raw(sections, SectionKind.QUANT_PARAMS))):
        what = f"quant param {i}"
        QUANT_PARAM.check(rec, what)
        axis, n, data = int(rec["axis"]), int(rec["num_channels"]), int(rec["data"])
        if axis == -1:
            if n != 1 or data != NONE32:
                raise bad(
                    f"{what} num_channels", f"per-tensor needs num_channels 1 and no data, got {n}, {data}"
                )
            if not positive_scale(float(rec["scale"])):
                raise bad(f"{what} scale", f"{rec['scale']} is not a positive finite number")
            out.append(QuantParam((float(rec["scale"]),), (int(rec["zero_point"]),)))
            continue
        if not 0 <= axis < MAX_RANK or n < 1 or data == NONE32:
            raise bad(
                f"{what} axis", f"per-axis needs 0 <= axis < {MAX_RANK}, channels and data; got {axis}, {n}"
            )
        if rec["scale"] != 0 or rec["zero_point"] != 0:
            raise bad(f"{what} scale", "per-axis parameters keep scale and zero_point 0 (they are in data)")
        words = pools.quants(data, 2 * n, f"{what} data")
        scales = float32s(words[:n])
        for c, s in enumerate(scales):
            if not positive_scale(s):
                raise bad(f"{what} data", f"scale of channel {c} ({s}) is not a positive finite number")
        out.append(QuantParam(scales, words[n:], axis))
    return out


def decode_blocks(h: dict[str, Value], sections: Sections) -> tuple[list[WeightBlock], list[bytes]]:
    """Block records and their raw (decompressed) bytes."""
    data = _raw(sections, SectionKind.WEIGHT_BLOCK_DATA)
    flags = FileFlag(int(h["flags"]))
    blocks: list[WeightBlock] = []
    raws: list[bytes] = []
    for i, rec in enumerate(WEIGHT_BLOCK.unpack_all(_raw(sections, SectionKind.WEIGHT_BLOCKS))):
        what = f"weight block {i}"
        offset, size, raw_size = int(rec["offset"]), int(rec["size"]), int(rec["raw_size"])
        if offset % WEIGHT_ALIGN:
            raise bad(f"{what} offset", f"{offset} is not a multiple of {WEIGHT_ALIGN}")
        if offset + size > len(data):
            raise bad(
                f"{what} offset",
                f"bytes [{offset}, {offset + size}) outside the block data ({len(data)} bytes)",
            )
        if raw_size < 1:
            raise bad(f"{what} raw_size", "a block holds at least one weight")
        stored = data[offset : offset + size]
        if FileFlag.LZ4 not in flags:
            if size != raw_size:
                raise bad(f"{what} size", f"uncompressed blocks store raw_size {raw_size} bytes, not {size}")
            raw = stored
        else:
            if raw_size > LZ4_MAX_RATIO * (size + 1):
                raise bad(f"{what} raw_size", f"{raw_size} bytes cannot come from {size} LZ4 bytes")
            try:
                raw = lz4.block.decompress(stored, uncompressed_size=raw_size)
            except lz4.block.LZ4BlockError:
                raise bad(f"{what} size", "the LZ4 block stream is corrupt") from None
            if len(raw) != raw_size:
                raise bad(
                    f"{what} raw_size", f"{raw_size}, but the LZ4 stream decompresses to {len(raw)} bytes"
                )
        blocks.append(WeightBlock(raw_size, size))
        raws.append(raw)
    if FileFlag.XIP in flags and FileFlag.LZ4 in flags:
        raise bad("header flags", "XIP weights are read in place: they cannot be LZ4 blocks")
    biggest = max((b.raw_size for b in blocks), default=0) if FileFlag.LZ4 in flags else 0
    if h["fast_reserved"] != biggest:
        raise bad(
            "header fast_reserved",
            f"{h['fast_reserved']}, must be {biggest} (the largest LZ4 block's raw_size)",
        )
    return blocks, raws


def decode_weights(sections: Sections, raws: list[bytes]) -> list[Weight]:
    blob = _raw(sections, SectionKind.WEIGHT_BLOB)
    out: list[Weight] = []
    for i, rec in enumerate(WEIGHT_ENTRY.unpack_all(_raw(sections, SectionKind.WEIGHT_ENTRIES))):
        what = f"weight {i}"
        WEIGHT_ENTRY.check(rec, what)
        kw = WEIGHT_ENTRY.model_kwargs(rec, Weight)
        block = kw["block"]
        if block is not None and not (isinstance(block, int) and block < len(raws)):
            raise bad(f"{what} block", f"index {block} >= num_weight_blocks {len(raws)}")
        src, src_name = (blob, "the weight blob") if block is None else (raws[block], f"weight block {block}")
        offset, size = int(rec["offset"]), int(rec["size"])
        if offset % WEIGHT_ALIGN:
            raise bad(f"{what} offset", f"{offset} is not a multiple of {WEIGHT_ALIGN}")
        if size < 1 or offset + size > len(src):
            raise bad(
                f"{what} offset", f"bytes [{offset}, {offset + size}) outside {src_name} ({len(src)} bytes)"
            )
        out.append(Weight(src[offset : offset + size], **kw))  # type: ignore[arg-type]
    for b in range(len(raws)):
        if all(w.block != b for w in out):
            raise bad(f"weight block {b}", "holds no weights")
    return out


def decode_tensors(
    sections: Sections, pools: Pools, io: tuple[tuple[int, ...], tuple[int, ...]],
    quants: list[QuantParam], weights: list[Weight],
) -> list[Tensor]:  # fmt: skip
    out: list[Tensor] = []
    for i, rec in enumerate(TENSOR.unpack_all(_raw(sections, SectionKind.TENSORS))):
        what = f"tensor {i}"
        TENSOR.check(rec, what)
        kw = TENSOR.model_kwargs(rec, Tensor, frozenset({"name", "shape", "perm", "dtype"}))
        name = pools.string(int(rec["name"]), f"{what} name")
        ndim, dtype = int(rec["ndim"]), DType(int(rec["dtype"]))
        if ndim > MAX_RANK:
            raise bad(f"{what} ndim", f"{ndim} > TIGRIS_MAX_RANK {MAX_RANK}")
        shape = pools.shapes(int(rec["shape"]), ndim, f"{what} shape")
        for d, dim in enumerate(shape):
            if dim < 1:
                raise bad(f"{what} shape[{d}]", f"dimension {dim} must be >= 1")
        nbytes = math.prod(shape) * dtype.size
        if rec["size"] != nbytes:
            raise bad(f"{what} size", f"{rec['size']} != {nbytes} bytes of shape {shape} {dtype.name}")
        quant, weight = kw["quant"], kw["weight"]
        if isinstance(quant, int):
            if quant >= len(quants):
                raise bad(f"{what} quant", f"index {quant} >= num_quant_params {len(quants)}")
            q = quants[quant]
            if dtype not in QUANTIZABLE:
                raise bad(f"{what} quant", f"a {dtype.name} tensor cannot be quantized")
            if q.axis >= 0 and (q.axis >= ndim or shape[q.axis] != len(q.scales)):
                raise bad(
                    f"{what} quant", f"quant param {quant} has {len(q.scales)} channels on axis {q.axis}"
                )
        if isinstance(weight, int):
            if weight >= len(weights):
                raise bad(f"{what} weight", f"index {weight} >= num_weights {len(weights)}")
            if len(weights[weight].data) != nbytes:
                raise bad(
                    f"{what} weight", f"weight {weight} holds {len(weights[weight].data)} bytes, not {nbytes}"
                )
            layout = weights[weight].layout
            if layout.rank not in (None, ndim):
                raise bad(
                    f"{what} ndim",
                    f"{ndim}, but weight {weight} is stored {layout.name} (rank {layout.rank})",
                )
        flags = TensorFlag(int(rec["flags"]))
        expected = (
            (TensorFlag.MODEL_INPUT if i in io[0] else TensorFlag(0))
            | (TensorFlag.MODEL_OUTPUT if i in io[1] else TensorFlag(0))
            | (TensorFlag.CONSTANT if weight is not None else TensorFlag(0))
        )
        if flags != expected:
            raise bad(f"{what} flags", f"{flags!r} but the model I/O lists and weight say {expected!r}")
        if TensorFlag.CONSTANT in flags and TensorFlag.MODEL_INPUT in flags:
            raise bad(f"{what} flags", "a constant cannot be a model input")
        perm = None
        if rec["perm"] != NONE32:
            if not flags & (TensorFlag.MODEL_INPUT | TensorFlag.MODEL_OUTPUT):
                raise bad(f"{what} perm", "only a model input or output has a layout permutation")
            perm = pools.shapes(int(rec["perm"]), ndim, f"{what} perm")
            if sorted(perm) != list(range(ndim)):
                raise bad(f"{what} perm", f"{perm} is not a permutation of {ndim} axes")
        out.append(Tensor(name, dtype, shape, perm=perm, **kw))  # type: ignore[arg-type]
    return out


def decode(h: dict[str, Value], sections: Sections) -> PlanFile:
    """The whole plan from a checked header and section table."""
    pools = Pools(sections)
    name = pools.string(int(h["name"]), "header name")
    n_tensors = int(h["num_tensors"])
    inputs = pools.indices(
        int(h["model_inputs"]), int(h["num_model_inputs"]), "header model_inputs", n_tensors, "num_tensors"
    )
    outputs = pools.indices(
        int(h["model_outputs"]), int(h["num_model_outputs"]), "header model_outputs", n_tensors, "num_tensors"
    )
    for key, io in (("model_inputs", inputs), ("model_outputs", outputs)):
        if len(set(io)) != len(io):
            raise bad(f"header {key}", f"{io} lists a tensor twice")
    quants = decode_quant_params(sections, pools)
    blocks, raws = decode_blocks(h, sections)
    weights = decode_weights(sections, raws)
    table_data = _raw(sections, SectionKind.TABLES)
    tables = [table_data[i : i + TABLE_SIZE] for i in range(0, len(table_data), TABLE_SIZE)]
    tensors = decode_tensors(sections, pools, (inputs, outputs), quants, weights)
    ops = decode_ops(_raw(sections, SectionKind.OPS), pools, tensors, len(tables))
    tile_plans = decode_tile_plans(_raw(sections, SectionKind.TILE_PLANS), ops)
    flags = FileFlag(int(h["flags"]))
    stages = decode_stages(
        _raw(sections, SectionKind.STAGES),
        pools,
        ops,
        tensors,
        weights,
        tile_plans,
        len(blocks),
        FileFlag.LZ4 in flags,
    )
    return PlanFile(
        name, tensors, ops, stages, inputs, outputs, tile_plans, weights, blocks, quants, tables, flags
    )
