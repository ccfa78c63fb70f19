"""`write_plan`: a `PlanFile` to `.tgrs` bytes, deterministically.

Everything derived (pool offsets, weight offsets and padding, sizes, flags,
fast_reserved, the CRC) is computed here and nowhere else. The result is read back with
`read_plan` before it is returned, so the writer never hands out a file the loader
would reject: a bad plan raises the same `TgrsFormatError` the loader would.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import lz4.block

from tigris.emit.tgrs.enums import (
    MAGIC,
    NONE32,
    REQUIRED_SECTIONS,
    SECTION_ALIGN,
    TABLE_SIZE,
    VERSION_MAJOR,
    VERSION_MINOR,
    WEIGHT_ALIGN,
    FileFlag,
    SectionKind,
    TensorFlag,
)
from tigris.emit.tgrs.model import PlanFile
from tigris.emit.tgrs.reader import read_plan
from tigris.emit.tgrs.records import (
    HEADER,
    OP,
    QUANT_PARAM,
    SECTION,
    STAGE,
    TENSOR,
    TILE_PLAN,
    WEIGHT_BLOCK,
    WEIGHT_ENTRY,
)

COMPRESSIONS = ("none", "lz4")
_U16 = (0, 0xFFFE)  # 0xFFFF is TIGRIS_NONE16, never an index
_I32 = (-(1 << 31), (1 << 31) - 1)


def _pad(buf: bytearray, align: int) -> None:
    buf.extend(bytes(-len(buf) % align))


def _ints(fmt: str, values: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(values)}{fmt}", *values)


class _Pools:
    """The index (u16), shape (i32), quant data (i32) and string pools, filled in order."""

    def __init__(self) -> None:
        self.index: list[int] = []
        self.shape: list[int] = []
        self.quant: list[int] = []
        self.strings = bytearray(b"\0")
        self._string_at: dict[str, int] = {"": 0}

    @staticmethod
    def _append(pool: list[int], values: Sequence[int], bits: tuple[int, int], what: str) -> int:
        """Offset of `values` appended to `pool` (0 for an empty list), each within `bits`.
        The range is checked on min and max (C loops) and only a failing list is walked for
        the first bad value: per-channel quant data puts tens of thousands of values here."""
        if not values:
            return 0
        if min(values) < bits[0] or max(values) > bits[1]:
            bad = next(v for v in values if not bits[0] <= v <= bits[1])
            raise ValueError(f"{what}: {bad} does not fit the pool's [{bits[0]}, {bits[1]}]")
        pool.extend(values)
        return len(pool) - len(values)

    def add_index(self, values: Sequence[int], what: str) -> int:
        return self._append(self.index, values, _U16, what)

    def add_shape(self, values: Sequence[int], what: str) -> int:
        return self._append(self.shape, values, _I32, what)

    def add_quant(self, values: Sequence[int], what: str) -> int:
        return self._append(self.quant, values, _I32, what)

    def string(self, s: str) -> int:
        """Offset of `s`, NUL-terminated; equal strings share one copy."""
        if s not in self._string_at:
            raw = s.encode("utf-8")
            if b"\0" in raw:
                raise ValueError(f"name {s!r} contains a NUL character")
            self._string_at[s] = len(self.strings)
            self.strings += raw + b"\0"
        return self._string_at[s]


def _f32_bits(xs: Sequence[float], what: str) -> list[int]:
    """The float32 bit patterns of `xs` as int32s, in one pack (a per-channel list has
    hundreds of scales); ValueError naming the first scale that does not fit a float32."""
    try:
        return list(struct.unpack(f"<{len(xs)}i", struct.pack(f"<{len(xs)}f", *xs)))
    except OverflowError:
        for x in xs:
            try:
                struct.pack("<f", x)
            except OverflowError:
                raise ValueError(f"{what}: scale {x} does not fit a float32") from None
        raise


def _weights(plan: PlanFile, compress: str) -> tuple[bytes, bytes, bytes, bytes, int]:
    """Weight entries, blob, block records, block data and fast_reserved."""
    blob = bytearray()
    raw = [bytearray() for _ in plan.weight_blocks]
    entries = bytearray()
    for i, w in enumerate(plan.weights):
        if w.block is not None and not 0 <= w.block < len(raw):
            raise ValueError(f"weight {i} block: {w.block} is not one of the {len(raw)} weight blocks")
        buf = blob if w.block is None else raw[w.block]
        _pad(buf, WEIGHT_ALIGN)
        values = WEIGHT_ENTRY.model_values(w) | {"offset": len(buf), "size": len(w.data)}
        entries += WEIGHT_ENTRY.pack(values, f"weight {i}")
        buf += w.data
    records, data = bytearray(), bytearray()
    for b, block in enumerate(raw):
        if not block:
            raise ValueError(f"weight block {b} holds no weights")
        stored = lz4.block.compress(bytes(block), store_size=False) if compress == "lz4" else bytes(block)
        _pad(data, WEIGHT_ALIGN)  # raw blocks are read in place: keep their weights aligned
        values = {"offset": len(data), "size": len(stored), "raw_size": len(block)}
        records += WEIGHT_BLOCK.pack(values, f"weight block {b}")
        data += stored
    fast_reserved = max(map(len, raw), default=0) if compress == "lz4" else 0
    return bytes(entries), bytes(blob), bytes(records), bytes(data), fast_reserved


def _records(plan: PlanFile, pools: _Pools) -> dict[SectionKind, tuple[bytes, int]]:
    """The record sections (bytes, count) other than weights; fills the pools."""
    out: dict[SectionKind, tuple[bytes, int]] = {}
    qp = bytearray()
    for i, q in enumerate(plan.quant_params):
        if len(q.scales) != len(q.zero_points) or (q.axis < 0 and len(q.scales) != 1):
            raise ValueError(f"quant param {i}: needs one zero point per scale, one of each per-tensor")
        if q.axis < 0:
            v = {"scale": q.scales[0], "zero_point": q.zero_points[0], "num_channels": 1, "data": NONE32}
        else:
            data = pools.add_quant(
                _f32_bits(q.scales, f"quant param {i}") + list(q.zero_points), f"quant param {i}"
            )
            v = {"scale": 0.0, "zero_point": 0, "num_channels": len(q.scales), "data": data}
        qp += QUANT_PARAM.pack(v | {"axis": q.axis}, f"quant param {i}")
    out[SectionKind.QUANT_PARAMS] = (bytes(qp), len(plan.quant_params))

    tensors = bytearray()
    for i, t in enumerate(plan.tensors):
        flags = TensorFlag(0)
        flags |= TensorFlag.MODEL_INPUT if i in plan.inputs else 0
        flags |= TensorFlag.MODEL_OUTPUT if i in plan.outputs else 0
        flags |= TensorFlag.CONSTANT if t.weight is not None else 0
        v = TENSOR.model_values(t, frozenset({"name", "shape", "perm"})) | {
            "name": pools.string(t.name),
            "shape": pools.add_shape(t.shape, f"tensor {i} shape"),
            "ndim": len(t.shape),
            "size": t.nbytes,
            "perm": NONE32 if t.perm is None else pools.add_shape(t.perm, f"tensor {i} perm"),
            "flags": flags,
        }
        tensors += TENSOR.pack(v, f"tensor {i}")
    out[SectionKind.TENSORS] = (bytes(tensors), len(plan.tensors))

    ops = bytearray()
    for i, op in enumerate(plan.ops):
        v = OP.model_values(op, frozenset({"name", "inputs", "outputs", "params"})) | {
            "name": pools.string(op.name),
            "inputs": pools.add_index(op.inputs, f"op {i} inputs"),
            "num_inputs": len(op.inputs),
            "outputs": pools.add_index(op.outputs, f"op {i} outputs"),
            "num_outputs": len(op.outputs),
            "params": pools.add_shape(op.params, f"op {i} params"),
            "num_params": len(op.params),
            "scales": pools.add_quant(_f32_bits(op.requant_scales, f"op {i} scales"), f"op {i}"),
            "num_scales": len(op.requant_scales),
        }
        ops += OP.pack(v, f"op {i} ({op.name})")
    out[SectionKind.OPS] = (bytes(ops), len(plan.ops))

    stages = bytearray()
    for i, s in enumerate(plan.stages):
        v = STAGE.model_values(s, frozenset({"ops", "inputs", "outputs"})) | {
            "ops": pools.add_index(s.ops, f"stage {i} ops"),
            "num_ops": len(s.ops),
            "inputs": pools.add_index(s.inputs, f"stage {i} inputs"),
            "num_inputs": len(s.inputs),
            "outputs": pools.add_index(s.outputs, f"stage {i} outputs"),
            "num_outputs": len(s.outputs),
        }
        stages += STAGE.pack(v, f"stage {i}")
    out[SectionKind.STAGES] = (bytes(stages), len(plan.stages))

    tiles = b"".join(
        TILE_PLAN.pack(TILE_PLAN.model_values(t), f"tile plan {i}") for i, t in enumerate(plan.tile_plans)
    )
    out[SectionKind.TILE_PLANS] = (tiles, len(plan.tile_plans))
    for i, table in enumerate(plan.tables):
        if len(table) != TABLE_SIZE:
            raise ValueError(f"table {i}: {len(table)} bytes, a lookup table has {TABLE_SIZE}")
    out[SectionKind.TABLES] = (b"".join(plan.tables), len(plan.tables))
    return out


def _layout(sections: dict[SectionKind, tuple[bytes, int]]) -> tuple[int, bytes]:
    """Section count, and the section table and sections that follow the header: in kind
    order, each 16-aligned; empty optional sections are left out."""
    kinds = sorted(k for k, (data, count) in sections.items() if count or data or k in REQUIRED_SECTIONS)
    start = HEADER.size + SECTION.size * len(kinds)  # file offset of body[0]
    table, body = bytearray(), bytearray()
    for kind in kinds:
        data, count = sections[kind]
        body.extend(bytes(-(start + len(body)) % SECTION_ALIGN))
        values = {"kind": kind, "offset": start + len(body), "size": len(data), "count": count}
        table += SECTION.pack(values, f"section {kind.name}")
        body += data
    return len(kinds), bytes(table + body)


def _header_and_body(plan: PlanFile, compress: str) -> tuple[dict[str, object], bytes]:
    """The header fields but `file_size` and `crc32`, and the bytes after the header (section
    table and sections): the whole layout of the file."""
    if compress not in COMPRESSIONS:
        raise ValueError(f"compress must be one of {', '.join(COMPRESSIONS)}, got {compress!r}")
    flags = FileFlag(plan.flags) & ~FileFlag.LZ4 | (FileFlag.LZ4 if compress == "lz4" else FileFlag(0))
    if FileFlag.XIP in flags and compress != "none":
        raise ValueError("an XIP plan reads weights in place: it cannot be compressed")
    pools = _Pools()
    name = pools.string(plan.name)
    model_inputs = pools.add_index(plan.inputs, "model inputs")
    model_outputs = pools.add_index(plan.outputs, "model outputs")
    sections = _records(plan, pools)
    entries, blob, blocks, block_data, fast_reserved = _weights(plan, compress)
    sections[SectionKind.WEIGHT_ENTRIES] = (entries, len(plan.weights))
    sections[SectionKind.WEIGHT_BLOB] = (blob, len(blob))
    sections[SectionKind.WEIGHT_BLOCKS] = (blocks, len(plan.weight_blocks))
    sections[SectionKind.WEIGHT_BLOCK_DATA] = (block_data, len(block_data))
    sections[SectionKind.INDEX_POOL] = (_ints("H", pools.index), len(pools.index))
    sections[SectionKind.SHAPE_POOL] = (_ints("i", pools.shape), len(pools.shape))
    sections[SectionKind.QUANT_DATA] = (_ints("i", pools.quant), len(pools.quant))
    sections[SectionKind.STRINGS] = (bytes(pools.strings), len(pools.strings))
    num_sections, body = _layout(sections)
    header: dict[str, object] = {
        "magic": MAGIC,
        "version_major": VERSION_MAJOR,
        "version_minor": VERSION_MINOR,
        "header_size": HEADER.size,
        "flags": flags,
        "fast_reserved": fast_reserved,
        "name": name,
        "model_inputs": model_inputs,
        "model_outputs": model_outputs,
        "num_sections": num_sections,
    }
    for key, items in (
        ("num_tensors", plan.tensors), ("num_ops", plan.ops), ("num_stages", plan.stages),
        ("num_tile_plans", plan.tile_plans), ("num_weights", plan.weights),
        ("num_weight_blocks", plan.weight_blocks), ("num_quant_params", plan.quant_params),
        ("num_tables", plan.tables), ("num_model_inputs", plan.inputs), ("num_model_outputs", plan.outputs),
    ):  # fmt: skip
        header[key] = len(items)
    return header, body


def file_size(plan: PlanFile, compress: str = "none") -> int:
    """The size of the file `write_plan(plan, compress)` writes, from the same layout (without
    the CRC and the read-back): `tigris analyze`'s flash figure."""
    return HEADER.size + len(_header_and_body(plan, compress)[1])


def write_plan(plan: PlanFile, compress: str = "none") -> bytes:
    """The `.tgrs` bytes of `plan`. compress="lz4" stores each weight block as one LZ4 block
    stream, which the runtime decompresses into fast_reserved; "none" stores blocks raw, read
    in place like the blob. XIP plans never copy a weight, so they cannot use LZ4."""
    header, body = _header_and_body(plan, compress)
    header |= {"file_size": HEADER.size + len(body), "crc32": zlib.crc32(body)}
    data = HEADER.pack(header, "header") + body
    read_plan(data)
    return data
