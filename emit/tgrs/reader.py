"""`read_plan`: `.tgrs` bytes to a `PlanFile`, trusting nothing.

This module checks the container in the order the C loader does (size, magic, version,
file size, CRC, header fields, section table) and hands the sections to `decode.py`,
which checks every record, index and pool range. Every violation is one
`TgrsFormatError` naming the field; no other exception escapes.
"""

from __future__ import annotations

import zlib
from itertools import pairwise
from pathlib import Path

from tigris.emit.tgrs.decode import decode
from tigris.emit.tgrs.enums import (
    MAGIC,
    REQUIRED_SECTIONS,
    SECTION_ALIGN,
    VERSION_MAJOR,
    VERSION_MINOR,
    VERSION_MINOR_OLDEST,
    SectionKind,
)
from tigris.emit.tgrs.errors import TgrsFormatError
from tigris.emit.tgrs.layout import Value
from tigris.emit.tgrs.model import PlanFile
from tigris.emit.tgrs.records import HEADER, SECTION, SECTION_ELEMENT

HEADER_COUNTS = {
    SectionKind.TENSORS: "num_tensors",
    SectionKind.OPS: "num_ops",
    SectionKind.STAGES: "num_stages",
    SectionKind.TILE_PLANS: "num_tile_plans",
    SectionKind.WEIGHT_ENTRIES: "num_weights",
    SectionKind.WEIGHT_BLOCKS: "num_weight_blocks",
    SectionKind.QUANT_PARAMS: "num_quant_params",
    SectionKind.TABLES: "num_tables",
}
"""Sections whose record count the header repeats (the loader checks they agree)."""


def read_header(data: bytes) -> dict[str, Value]:
    """The header, after the checks that need nothing but the header and the length."""
    if len(data) < HEADER.size:
        raise TgrsFormatError(
            "TOO_SMALL", f"file is {len(data)} bytes, smaller than the {HEADER.size}-byte header"
        )
    h = HEADER.unpack_all(data[: HEADER.size])[0]
    if h["magic"] != MAGIC:
        raise TgrsFormatError("BAD_MAGIC", f"magic: {h['magic']!r}, expected {MAGIC!r}")
    major, minor = h["version_major"], h["version_minor"]
    if major != VERSION_MAJOR or not isinstance(minor, int) or not VERSION_MINOR_OLDEST <= minor <= VERSION_MINOR:
        raise TgrsFormatError(
            "BAD_VERSION",
            f"version: {major}.{minor} is not supported (this reader reads {VERSION_MAJOR}.{VERSION_MINOR_OLDEST} "
            f"to {VERSION_MAJOR}.{VERSION_MINOR})",
        )
    if h["header_size"] != HEADER.size:
        raise TgrsFormatError(
            "BAD_VERSION", f"header_size: {h['header_size']}, version {major}.x has {HEADER.size}"
        )
    if h["file_size"] != len(data):
        raise TgrsFormatError(
            "BAD_SIZE", f"file_size: header says {h['file_size']} bytes, the file has {len(data)}"
        )
    crc = zlib.crc32(data[HEADER.size :])
    if h["crc32"] != crc:
        raise TgrsFormatError("BAD_CRC", f"crc32: header says {h['crc32']:#010x}, the data gives {crc:#010x}")
    HEADER.check(h, "header")
    return h


def read_sections(data: bytes, h: dict[str, Value]) -> dict[SectionKind, tuple[bytes, int]]:
    """Each section's bytes and count, after checking the section table entry by entry."""
    n = h["num_sections"]
    assert isinstance(n, int)
    table_end = HEADER.size + n * SECTION.size
    if table_end > len(data):
        raise TgrsFormatError("BAD_SECTION", f"num_sections: {n} entries run past the end of the file")
    out: dict[SectionKind, tuple[bytes, int]] = {}
    spans: list[tuple[int, int, str]] = []
    for i, rec in enumerate(SECTION.unpack_all(data[HEADER.size : table_end])):
        what = f"section {i}"
        SECTION.check(rec, what, "BAD_SECTION")
        kind, offset, size, count = (int(rec[k]) for k in ("kind", "offset", "size", "count"))  # type: ignore[arg-type]
        kind = SectionKind(kind)
        what = f"section {i} ({kind.name})"
        if kind in out:
            raise TgrsFormatError("BAD_SECTION", f"{what} kind: a second {kind.name} section")
        if offset % SECTION_ALIGN:
            raise TgrsFormatError(
                "BAD_SECTION", f"{what} offset: {offset} is not a multiple of {SECTION_ALIGN}"
            )
        if offset < table_end or offset + size > len(data):
            raise TgrsFormatError(
                "BAD_SECTION",
                f"{what} offset: bytes [{offset}, {offset + size}) are outside [{table_end}, {len(data)})",
            )
        if size != count * SECTION_ELEMENT[kind]:
            raise TgrsFormatError(
                "BAD_SECTION", f"{what} size: {size} bytes != count {count} x {SECTION_ELEMENT[kind]} bytes"
            )
        out[kind] = (data[offset : offset + size], count)
        spans.append((offset, offset + size, what))
    spans.sort()
    for (_, end, first), (start, _, second) in pairwise(spans):
        if start < end:
            raise TgrsFormatError("BAD_SECTION", f"{second} offset: overlaps {first}")
    for kind in REQUIRED_SECTIONS:
        if kind not in out:
            raise TgrsFormatError("MISSING_SEC", f"section {kind.name} is required but missing")
    for kind, key in HEADER_COUNTS.items():
        count = out[kind][1] if kind in out else 0
        if count != h[key]:
            code = "MISSING_SEC" if kind not in out else "BAD_SECTION"
            raise TgrsFormatError(code, f"{key}: header says {h[key]}, section {kind.name} holds {count}")
    return out


def read_plan_file(path: str | Path) -> bytes:
    """The bytes of a `.tgrs` file, reading no more than the format can describe: the
    header, and when its magic is right, up to its `file_size` (a uint32_t, so at most
    4 GiB - 1) plus one byte to notice a longer file. `read_plan` then checks them; a
    stream that never ends (`/dev/zero`) stops at once. OSError if the path is unreadable."""
    with open(path, "rb") as f:
        head = f.read(HEADER.size)
        if len(head) < HEADER.size or head[: len(MAGIC)] != MAGIC:
            return head  # read_plan: TOO_SMALL or BAD_MAGIC
        size = HEADER.unpack_all(head)[0]["file_size"]
        assert isinstance(size, int)
        rest = f.read(max(size - HEADER.size, 0) + 1)
    data = head + rest
    if len(data) > max(size, HEADER.size):
        raise TgrsFormatError("BAD_SIZE", f"file_size: header says {size} bytes, the file has more")
    return data


def read_plan(data: bytes) -> PlanFile:
    """Parse and fully check a `.tgrs` file."""
    data = bytes(data)
    h = read_header(data)
    return decode(h, read_sections(data, h))
