"""Corrupted `.tgrs` files shared by the reader's tests and the C loader's tests.

`CASES` lists byte-level corruptions of the plans of test_tgrs_roundtrip.py, each with the
`TgrsFormatError` code the Python reader raises and its message; the C loader must return
the same code (test_runtime_loader.py). `mutate` makes one random corruption (used by the
reader's random test and the C loader's differential test). Corruptions recompute the
CRC, so the check under test is the one that fires.

The reader and the C loader differ on one kind of file only: an LZ4 weight block with a
match at offset 0, which python-lz4 (LZ4 1.9) decodes by copying whatever its output
buffer held and the C decoder rejects (`lz4_zero_offset`).
"""

from __future__ import annotations

import importlib.util
import random
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from tigris.emit.tgrs import write_plan
from tigris.emit.tgrs.enums import VERSION_MAJOR, VERSION_MINOR, VERSION_MINOR_OLDEST, OpType
from tigris.emit.tgrs.enums import SectionKind as K
from tigris.emit.tgrs.layout import Record
from tigris.emit.tgrs.records import (
    HEADER,
    OP,
    QUANT_PARAM,
    RECORDS,
    STAGE,
    TENSOR,
    TILE_PLAN,
    WEIGHT_BLOCK,
    WEIGHT_ENTRY,
)


def _load_plans() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "python" / "test_tgrs_roundtrip.py"
    spec = importlib.util.spec_from_file_location("tgrs_plans", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLANS = _load_plans()
FILES = {
    "int8": write_plan(PLANS.int8_chain()),
    "float": write_plan(PLANS.float_cnn()),
    "blocked": write_plan(PLANS.blocked(), "lz4"),
    "shapes": write_plan(PLANS.shape_ops()),
    "minimal": write_plan(PLANS.minimal()),
    "reduced": write_plan(PLANS.reduction_tiles()),
    "tiles2d": write_plan(PLANS.tiles_2d()),
    "dense": write_plan(PLANS.dense_blocks()),
    "rowcache": write_plan(PLANS.row_caches()),
}
FMT = {
    "uint8_t": "<B",
    "int8_t": "<b",
    "uint16_t": "<H",
    "int16_t": "<h",
    "uint32_t": "<I",
    "int32_t": "<i",
    "float": "<f",
}


def with_crc(d: bytes) -> bytes:
    return d[:16] + struct.pack("<I", zlib.crc32(d[64:])) + d[20:]


def sections(d: bytes) -> dict[K, tuple[int, int, int]]:
    n = struct.unpack_from("<H", d, HEADER.offsets["num_sections"])[0]
    return {
        K(struct.unpack_from("<H", d, 64 + 16 * i)[0]): struct.unpack_from("<III", d, 68 + 16 * i)
        for i in range(n)
    }


def put(d: bytes, offset: int, fmt: str, value: object) -> bytes:
    return with_crc(d[:offset] + struct.pack(fmt, value) + d[offset + struct.calcsize(fmt) :])


def field_at(d: bytes, kind: K, rec: Record, index: int, name: str) -> int:
    return sections(d)[kind][0] + index * rec.size + rec.offsets[name]


def set_field(d: bytes, kind: K, rec: Record, index: int, name: str, value: object) -> bytes:
    f = next(f for f in rec.fields if f.name == name)
    return put(d, field_at(d, kind, rec, index, name), FMT[f.ctype], value)


def _set_fields(d: bytes, index: int, **fields: int) -> bytes:
    """Several fields of tile plan `index` at once (a plan consistent but for the one rule)."""
    for name, value in fields.items():
        d = set_field(d, K.TILE_PLANS, TILE_PLAN, index, name, value)
    return d


def get_field(d: bytes, kind: K, rec: Record, index: int, name: str) -> int:
    f = next(f for f in rec.fields if f.name == name)
    return struct.unpack_from(FMT[f.ctype], d, field_at(d, kind, rec, index, name))[0]


def set_header(d: bytes, name: str, value: int) -> bytes:
    fmt = FMT[next(f for f in HEADER.fields if f.name == name).ctype]
    return put(d, HEADER.offsets[name], fmt, value)


def set_section(d: bytes, kind: K, name: str, value: int) -> bytes:
    i = list(sections(d)).index(kind)
    return put(
        d,
        64 + 16 * i + {"kind": 0, "offset": 4, "size": 8, "count": 12}[name],
        "<H" if name == "kind" else "<I",
        value,
    )


def set_pool(d: bytes, kind: K, elem: int, value: int) -> bytes:
    fmt = {K.INDEX_POOL: "<H", K.SHAPE_POOL: "<i", K.QUANT_DATA: "<i"}[kind]
    return put(d, sections(d)[kind][0] + elem * struct.calcsize(fmt), fmt, value)


def f32_bits(x: float) -> int:
    """The int32 quant data word holding binary32 x."""
    return struct.unpack("<i", struct.pack("<f", x))[0]


def op_input_slot(d: bytes, op: int, k: int) -> int:
    return get_field(d, K.OPS, OP, op, "inputs") + k


Case = tuple[str, Callable[[bytes], bytes], str, str]
CASES: list[Case] = [
    ("int8", lambda d: d[:40], "TOO_SMALL", "file is 40 bytes, smaller than the 64-byte header"),
    ("int8", lambda d: d[:-7], "BAD_SIZE", r"file_size: header says (\d+) bytes, the file has \d+"),
    ("int8", lambda d: put(d, 0, "4s", b"TGRZ"), "BAD_MAGIC", r"magic: b'TGRZ', expected b'TGRS'"),
    ("int8", lambda d: put(d, 4, "<H", VERSION_MAJOR + 1), "BAD_VERSION", rf"version: {VERSION_MAJOR + 1}\.{VERSION_MINOR} is not supported"),
    ("int8", lambda d: put(d, 4, "<H", VERSION_MAJOR - 1), "BAD_VERSION", rf"version: {VERSION_MAJOR - 1}\.{VERSION_MINOR} is not supported"),
    ("int8", lambda d: put(d, 6, "<H", VERSION_MINOR + 1), "BAD_VERSION", rf"version: {VERSION_MAJOR}\.{VERSION_MINOR + 1} is not supported"),
    # a 2.3 file: its op records' reserved zeros are no band geometry (docs/tgrs-format.md, Versioning)
    ("int8", lambda d: put(d, 6, "<H", VERSION_MINOR_OLDEST - 1), "BAD_VERSION", rf"version: {VERSION_MAJOR}\.{VERSION_MINOR_OLDEST - 1} is not supported"),
    ("int8", lambda d: set_header(d, "header_size", 80), "BAD_VERSION", f"header_size: 80, version {VERSION_MAJOR}.x has 64"),
    ("int8", lambda d: set_header(d, "file_size", len(d) + 4), "BAD_SIZE", "file_size: header says"),
    ("int8", lambda d: d[:-1] + bytes([d[-1] ^ 1]), "BAD_CRC", "crc32: header says 0x[0-9a-f]{8}, the data gives"),
    ("int8", lambda d: set_header(d, "flags", 0x84), "BAD_RECORD", "header flags: unknown bits 0x80"),
    ("int8", lambda d: set_header(d, "reserved", 5), "BAD_RECORD", "header reserved: reserved field is 5"),
    ("int8", lambda d: set_header(d, "num_sections", 400), "BAD_SECTION", "num_sections: 400 entries run past"),
    ("int8", lambda d: set_section(d, K.OPS, "offset", len(d) + 16), "BAD_SECTION", r"section 1 \(OPS\) offset: bytes \[\d+, \d+\) are outside"),
    ("int8", lambda d: set_section(d, K.OPS, "offset", 32), "BAD_SECTION", r"section 1 \(OPS\) offset: bytes \[32, \d+\) are outside"),
    ("int8", lambda d: set_section(d, K.OPS, "offset", sections(d)[K.OPS][0] + 4), "BAD_SECTION", "is not a multiple of 16"),
    ("int8", lambda d: set_section(d, K.STAGES, "offset", sections(d)[K.OPS][0]), "BAD_SECTION", r"section \d \((OPS|STAGES)\) offset: overlaps section \d \((STAGES|OPS)\)"),
    ("int8", lambda d: set_section(d, K.OPS, "size", 100), "BAD_SECTION", r"\(OPS\) size: 100 bytes != count 8 x 108 bytes"),
    ("int8", lambda d: set_section(d, K.OPS, "kind", 99), "BAD_SECTION", "section 1 kind: unknown value 99"),
    ("int8", lambda d: set_section(d, K.OPS, "kind", 1), "BAD_SECTION", r"section 1 \(TENSORS\) kind: a second TENSORS section"),
    ("minimal", lambda d: set_header(d, "num_sections", 5), "MISSING_SEC", "section STRINGS is required but missing"),
    ("int8", lambda d: set_header(d, "num_ops", 9), "BAD_SECTION", "num_ops: header says 9, section OPS holds 8"),
    ("float", lambda d: set_header(d, "num_tables", 1), "MISSING_SEC", "num_tables: header says 1, section TABLES holds 0"),
    ("int8", lambda d: set_pool(d, K.INDEX_POOL, op_input_slot(d, 1, 0), 999), "BAD_RECORD", r"op 1 \(conv\) inputs\[0\]: index 999 >= num_tensors 13"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 1, "inputs", 60000), "BAD_RECORD", r"op 1 \(conv\) inputs: index pool range \[60000, 60003\) is outside the pool"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 2, "name", 99999), "BAD_RECORD", "tensor 2 name: string offset 99999 has no NUL-terminated string"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 0, "shape", 1 << 20), "BAD_RECORD", "tensor 0 shape: shape pool range"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 1, "quant", 77), "BAD_RECORD", "tensor 1 quant: index 77 >= num_quant_params 7"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 0, "quant", 0), "BAD_RECORD", "tensor 0 quant: a F32 tensor cannot be quantized"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 1, "quant", 1), "BAD_RECORD", "tensor 1 quant: quant param 1 has 8 channels on axis 0"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 2, "weight", 50), "BAD_RECORD", "tensor 2 weight: index 50 >= num_weights 4"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 3, "size", 33), "BAD_RECORD", r"tensor 3 size: 33 != 32 bytes of shape \(8,\) I32"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 0, "dtype", 99), "BAD_RECORD", "tensor 0 dtype: unknown value 99"),
    ("int8", lambda d: set_field(d, K.TENSORS, TENSOR, 0, "flags", 0), "BAD_RECORD", "tensor 0 flags: .* but the model I/O lists"),
    ("float", lambda d: set_pool(d, K.SHAPE_POOL, get_field(d, K.TENSORS, TENSOR, 10, "perm") + 1, 0), "BAD_RECORD", r"tensor 10 perm: \(0, 0, 3, 1\) is not a permutation"),
    ("float", lambda d: set_field(d, K.TENSORS, TENSOR, 3, "perm", get_field(d, K.TENSORS, TENSOR, 0, "perm")), "BAD_RECORD", "tensor 3 perm: only a model input or output has a layout permutation"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 0, "op_type", 100), "BAD_RECORD", "op 0 op_type: unknown value 100"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 0, "op_type", 255), "BAD_RECORD", r"op 0 \(quant\) op_type: UNKNOWN \(255\) is not a runtime op"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 4, "table", 9), "BAD_RECORD", r"op 4 \(hswish\) table: index 9 >= num_tables 2"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 1, "weight", 4), "BAD_RECORD", r"op 1 \(conv\) weight: tensor 4 is not a constant"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 1, "stride_h", 0), "BAD_RECORD", r"op 1 \(conv\) stride_h: must be >= 1"),
    ("int8", lambda d: set_pool(d, K.QUANT_DATA, get_field(d, K.OPS, OP, 1, "scales") + 2, f32_bits(float("nan"))), "BAD_RECORD", r"op 1 \(conv\) scales: entry 2: nan is not a positive finite float32"),
    ("int8", lambda d: set_pool(d, K.QUANT_DATA, get_field(d, K.OPS, OP, 2, "scales"), f32_bits(-0.5)), "BAD_RECORD", r"op 2 \(dw\) scales: entry 0: -0.5 is not a positive finite float32"),
    ("int8", lambda d: set_pool(d, K.QUANT_DATA, get_field(d, K.OPS, OP, 2, "scales") + 7, 0), "BAD_RECORD", r"op 2 \(dw\) scales: entry 7: 0.0 is not a positive finite float32"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 1, "num_scales", 60000), "BAD_RECORD", r"op 1 \(conv\) scales: quant data range"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 0, "mode", 3), "BAD_RECORD", r"op 0 \(quant\) mode: 3 is not valid for QUANTIZE"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 1, "geometry_h", 6), "BAD_RECORD", "op 1 geometry_h: unknown value 6"),
    ("int8", lambda d: set_field(d, K.OPS, OP, 2, "geometry_w", 255), "BAD_RECORD", "op 2 geometry_w: unknown value 255"),
    ("int8", lambda d: set_field(d, K.STAGES, STAGE, 2, "num_ops", 2), "BAD_RECORD", r"op 6 \(dequant\): runs in no stage"),
    ("int8", lambda d: set_field(d, K.STAGES, STAGE, 1, "num_inputs", 60), "BAD_RECORD", r"stage 1 inputs: index pool range"),
    ("int8", lambda d: set_field(d, K.STAGES, STAGE, 0, "tile_plan", 3), "BAD_RECORD", "stage 0 tile_plan: index 3 >= num_tile_plans 1"),
    ("int8", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_h", 100), "BAD_RECORD", "tile plan 0 out_h: 4 tiles of 5 rows do not cover exactly 100 rows"),
    ("int8", lambda d: set_field(d, K.QUANT_PARAMS, QUANT_PARAM, 0, "scale", -1.0), "BAD_RECORD", "quant param 0 scale: -1.0 is not a positive finite"),
    ("int8", lambda d: set_pool(d, K.QUANT_DATA, get_field(d, K.QUANT_PARAMS, QUANT_PARAM, 1, "data"), -1), "BAD_RECORD", "quant param 1 data: scale of channel 0"),
    ("int8", lambda d: set_field(d, K.WEIGHT_ENTRIES, WEIGHT_ENTRY, 1, "offset", 4), "BAD_RECORD", "weight 1 offset: 4 is not a multiple of 16"),
    ("int8", lambda d: set_field(d, K.WEIGHT_ENTRIES, WEIGHT_ENTRY, 1, "offset", 1 << 20), "BAD_RECORD", r"weight 1 offset: bytes \[1048576, \d+\) outside the weight blob"),
    ("blocked", lambda d: set_header(d, "fast_reserved", 123), "BAD_RECORD", r"header fast_reserved: 123, must be \d+ \(the largest LZ4 block's raw_size\)"),
    ("blocked", lambda d: set_header(d, "flags", 3), "BAD_RECORD", "header flags: XIP weights are read in place: they cannot be LZ4 blocks"),
    ("blocked", lambda d: set_field(d, K.WEIGHT_BLOCKS, WEIGHT_BLOCK, 1, "offset", get_field(d, K.WEIGHT_BLOCKS, WEIGHT_BLOCK, 1, "offset") + 1), "BAD_RECORD", r"weight block 1 offset: \d+ is not a multiple of 16"),
    ("shapes", lambda d: set_field(d, K.WEIGHT_ENTRIES, WEIGHT_ENTRY, 4, "layout", 5), "BAD_RECORD", r"tensor 15 ndim: 3, but weight 4 is stored NK_HWC \(rank 2\)"),
    ("blocked", lambda d: set_field(d, K.WEIGHT_BLOCKS, WEIGHT_BLOCK, 0, "raw_size", 0xFFFFFFFF), "BAD_RECORD", "weight block 0 raw_size: 4294967295 bytes cannot come from"),
    ("blocked", lambda d: set_field(d, K.WEIGHT_BLOCKS, WEIGHT_BLOCK, 0, "raw_size", 600), "BAD_RECORD", "weight block 0 raw_size: 600, but the LZ4 stream decompresses to 576 bytes"),
    ("blocked", lambda d: put(d, sections(d)[K.WEIGHT_BLOCK_DATA][0], "<I", 0xFFFFFFFF), "BAD_RECORD", "weight block 0 size: the LZ4 block stream is corrupt"),
    ("blocked", lambda d: set_field(d, K.STAGES, STAGE, 1, "weight_block", 0), "BAD_RECORD", r"stage 1 weight_block: op 1 reads tensor 4 from LZ4 weight block 1, the stage stages 0"),
    ("blocked", lambda d: set_field(d, K.WEIGHT_ENTRIES, WEIGHT_ENTRY, 0, "block", 9), "BAD_RECORD", "weight 0 block: index 9 >= num_weight_blocks 3"),
    # reduction tiles: tile plan 0 accumulates with op 1 (global_avg), the last op of stage 0 (relu, global_avg)
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "reduce_op", 9), "BAD_RECORD", "tile plan 0 reduce_op: index 9 >= num_ops 4"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "reduce_op", 0), "BAD_RECORD", "tile plan 0 reduce_op: op 0 is RELU, which cannot accumulate over tiles"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "reduce_op", 3), "BAD_RECORD", "stage 0 tile_plan: tile plan 0 accumulates with op 3, not the stage's last op"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "chain", 1), "BAD_RECORD", "tile plan 0 chain: 1: reduction tiles run a lone stage, chain must be -1"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_h", 8), "BAD_RECORD", r"tile plan 0 out_h: 8 != the 7 rows of input 0 of op 1 \(stage 0\)"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 1, "acc_bytes", 0), "BAD_RECORD", r"tile plan 1 acc_bytes: 0: reduction tiles keep 1..peak \(128\) accumulator bytes"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 1, "acc_bytes", 129), "BAD_RECORD", r"tile plan 1 acc_bytes: 129: reduction tiles keep 1..peak \(128\) accumulator bytes"),
    ("float", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "acc_bytes", 64), "BAD_RECORD", "tile plan 0 acc_bytes: 64 without reduce_op: only reduction tiles and row caches keep one"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "flags", 2), "BAD_RECORD", "tile plan 0 flags: unknown bits 0x2"),
    ("reduced", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "flags", 1), "BAD_RECORD", r"tile plan 0 flags: row caches run full-width output-row tiles only \(no reduce_op, tile_w or tile_c\)"),
    ("reduced", lambda d: set_pool(d, K.INDEX_POOL, get_field(d, K.STAGES, STAGE, 0, "outputs"), 1), "BAD_RECORD", r"stage 0 outputs\[0\]: tensor 1 is not written by op 1, the reducing op"),
    # row caches: tile plan 0 runs the chain of two convs in 3 tiles of 2 rows, 256 bytes of slots
    ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "flags", 5), "BAD_RECORD", "tile plan 0 flags: unknown bits 0x4"),
    ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "acc_bytes", 0), "BAD_RECORD", r"tile plan 0 acc_bytes: 0: row caches keep 1..peak \(320\) bytes of slots"),
    ("rowcache", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "acc_bytes", 321), "BAD_RECORD", r"tile plan 0 acc_bytes: 321: row caches keep 1..peak \(320\) bytes of slots"),
    # 2-D tiles: tile plan 0 cuts the 6 x 10 output of stage 0 (conv, relu, mul) in 3 x 3 tiles of 2 x 4
    ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "tile_w", 0), "BAD_RECORD", "tile plan 0 num_tiles_w: 3 without tile_w: full-width plans have 1"),
    ("float", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "halo_w", 2), "BAD_RECORD", "tile plan 0 halo_w: 2 without tile_w: full-width plans have 0"),
    ("float", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_w", 16), "BAD_RECORD", "tile plan 0 out_w: 16 without tile_w: full-width plans have 0"),
    ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "chain", 0), "BAD_RECORD", "tile plan 0 chain: 0: 2-D tiles run a lone stage, chain must be -1"),
    ("reduced", lambda d: set_field(set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "tile_w", 1), K.TILE_PLANS, TILE_PLAN, 0, "out_w", 1), "BAD_RECORD", r"tile plan 0 tile_h: 3 \(halo_w 0\): reduction tiles cut along W are one row tall"),
    ("reduced", lambda d: _set_fields(d, 0, tile_h=1, num_tiles=7, tile_w=1, out_w=1), "BAD_RECORD", r"tile plan 0 out_w: 1: input 0 of op 1 has shape \[1, 5, 7, 6\] \(stage 0\)"),
    ("reduced", lambda d: _set_fields(d, 0, tile_c=2, num_tiles_c=2), "BAD_RECORD", r"tile plan 0 num_tiles_c: 2 blocks of 2 channels do not cover the channels of input 0 of op 1, shape \[1, 5, 7, 6\] \(stage 0\)"),
    ("reduced", lambda d: _set_fields(d, 0, num_tiles_c=2), "BAD_RECORD", "tile plan 0 num_tiles_c: 2 without tile_c: a plan without channel blocks has 1"),
    ("float", lambda d: _set_fields(d, 0, tile_c=1), "BAD_RECORD", r"tile plan 0 tile_c: 1 without reduce_op is output-feature blocks: one row, no halo, chain or column tiles"),
    ("dense", lambda d: _set_fields(d, 0, out_h=11), "BAD_RECORD", r"tile plan 0 out_h: 11 \(tile_w 0\): the blocks cut the K features of input 0 of op 0, shape \[1, 12\], without columns \(stage 0\)"),
    ("dense", lambda d: _set_fields(d, 0, tile_c=0, num_tiles_c=1), "BAD_RECORD", r"tile plan 0 tile_c: 0: a dense op in reduction blocks runs blocks of output features \(stage 0\)"),
    ("dense", lambda d: _set_fields(d, 1, num_tiles_c=4), "BAD_RECORD", r"tile plan 1 num_tiles_c: 4 blocks of 2 features do not cover the output of op 1, shape \[1, 3\] \(stage 1\)"),
    ("dense", lambda d: _set_fields(d, 1, tile_h=2, out_h=2), "BAD_RECORD", r"tile plan 1 tile_c: 2 without reduce_op is output-feature blocks"),
    ("float", lambda d: _set_fields(d, 0, tile_h=1, num_tiles=1, out_h=1, halo=0, tile_c=1, num_tiles_c=4), "BAD_RECORD", r"stage 0 ops: output-feature blocks \(tile plan 0\) run one fully_connected op, not ops \[0, 1\]"),
    ("reduced", lambda d: _set_fields(d, 0, tile_h=1, num_tiles=7, tile_w=2, num_tiles_w=3, halo_w=1, out_w=6), "BAD_RECORD", r"tile plan 0 tile_h: 1 \(halo_w 1\): reduction tiles cut along W are one row tall"),
    ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "num_tiles_w", 2), "BAD_RECORD", "tile plan 0 out_w: 2 tiles of 4 columns do not cover exactly 10 columns"),
    ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "num_tiles_w", 4), "BAD_RECORD", "tile plan 0 out_w: 4 tiles of 4 columns do not cover exactly 10 columns"),
    ("tiles2d", lambda d: set_field(d, K.OPS, OP, 1, "op_type", int(OpType.SOFTMAX)), "BAD_RECORD", r"stage 0 ops: op 1 is SOFTMAX, which does not run on 2-D tiles \(tile plan 0\)"),
    ("tiles2d", lambda d: set_field(d, K.OPS, OP, 2, "geometry_w", 0), "BAD_RECORD", r"stage 0 ops: op 2 has geometry_w NONE: it is not cut along W \(tile plan 0\)"),
    ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_w", 9), "BAD_RECORD", r"stage 0 outputs\[0\]: tensor 5 has shape \[1, 4, 6, 10\], not \[N, C, 6, 9\] \(out_h, out_w of tile plan 0\)"),
    ("tiles2d", lambda d: set_field(d, K.TILE_PLANS, TILE_PLAN, 0, "out_h", 5), "BAD_RECORD", r"stage 0 outputs\[0\]: tensor 5 has shape \[1, 4, 6, 10\], not \[N, C, 5, 10\] \(out_h, out_w of tile plan 0\)"),
]  # fmt: skip


INTERESTING = (0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0xFFFE, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF)


def mutate(rng: random.Random, data: bytes) -> bytes:
    """One random corruption; most keep size and CRC right so the deeper checks run."""
    d = bytearray(data)
    how = rng.randrange(6)
    if how == 0:
        for _ in range(rng.randint(1, 8)):
            pos = rng.randrange(len(d))
            d[pos] ^= 1 << rng.randrange(8)
    elif how == 1:
        rec, kind = rng.choice(
            [
                (r, k)
                for r, k in zip(
                    RECORDS[2:],
                    (
                        K.TENSORS,
                        K.OPS,
                        K.STAGES,
                        K.TILE_PLANS,
                        K.WEIGHT_ENTRIES,
                        K.WEIGHT_BLOCKS,
                        K.QUANT_PARAMS,
                    ),
                )
                if k in sections(data)
            ]
        )
        offset, size, _ = sections(data)[kind]
        f = rng.choice(rec.fields)
        if size and f.ctype != "char":
            value = rng.choice(INTERESTING + (rng.getrandbits(32),)) & ((1 << (8 * f.size)) - 1)
            pos = offset + rng.randrange(size // rec.size) * rec.size + rec.offsets[f.name]
            d[pos : pos + f.size] = value.to_bytes(f.size, "little")
    elif how == 2:
        pos = rng.randrange(len(d) - 4)
        d[pos : pos + 4] = rng.choice(INTERESTING + (len(d),)).to_bytes(4, "little")
    elif how == 3:
        del d[rng.randrange(len(d)) :]
    elif how == 4:
        pos = rng.randrange(len(d))
        d[pos:pos] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 32)))
    else:
        a, b, n = rng.randrange(len(d)), rng.randrange(len(d)), rng.randint(1, 64)
        d[b : b + n] = d[a : a + n]
    if rng.random() < 0.85 and len(d) >= 64:
        d[12:16] = struct.pack("<I", len(d))
        d[16:20] = struct.pack("<I", zlib.crc32(bytes(d[64:])))
    return bytes(d)


def lz4_has_zero_offset(stream: bytes) -> bool:
    """Whether an LZ4 block stream has a match with offset 0 (parsed leniently: streams
    python-lz4 accepted are well-formed apart from that)."""
    ip = 0
    while ip < len(stream):
        token = stream[ip]
        ip += 1
        n = token >> 4
        if n == 15:
            while ip < len(stream):
                ip += 1
                n += stream[ip - 1]
                if stream[ip - 1] != 255:
                    break
        ip += n
        if ip + 1 >= len(stream):
            return False  # the last sequence: literals only
        if stream[ip] == 0 and stream[ip + 1] == 0:
            return True
        ip += 2
        if token & 15 == 15:
            while ip < len(stream) and stream[ip] == 255:
                ip += 1
            ip += 1
    return False


def lz4_zero_offset(d: bytes) -> bool:
    """Whether a file (with a sound section table) has LZ4 blocks and one of them has a
    match at offset 0."""
    flags = struct.unpack_from("<I", d, HEADER.offsets["flags"])[0]
    secs = sections(d)
    if not flags & 2 or K.WEIGHT_BLOCKS not in secs or K.WEIGHT_BLOCK_DATA not in secs:
        return False
    blocks, _, n = secs[K.WEIGHT_BLOCKS]
    data = secs[K.WEIGHT_BLOCK_DATA][0]
    for i in range(n):
        offset, size, _ = struct.unpack_from("<III", d, blocks + 12 * i)
        if lz4_has_zero_offset(d[data + offset : data + offset + size]):
            return True
    return False
