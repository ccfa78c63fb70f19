"""Declarative record tables: from a list of (name, C type) fields derive the struct format,
size and offsets, with C's natural alignment and no implicit padding.

A record must place every field at a multiple of its own size and end at a multiple of
its largest field, so the C struct of the same fields has exactly this layout without
`#pragma pack`. `Record` refuses a table that would need hidden padding: padding is an
explicit `reserved*` field, written as zero and checked as zero.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import IntEnum, IntFlag
from functools import cache
from typing import Any

from tigris.emit.tgrs.errors import TgrsFormatError

# C type -> (struct code, size, min, max); float has no integer range, char[n] is a byte string.
CTYPES: dict[str, tuple[str, int, int | None, int | None]] = {
    "uint8_t": ("B", 1, 0, 0xFF),
    "int8_t": ("b", 1, -0x80, 0x7F),
    "uint16_t": ("H", 2, 0, 0xFFFF),
    "int16_t": ("h", 2, -0x8000, 0x7FFF),
    "uint32_t": ("I", 4, 0, 0xFFFFFFFF),
    "int32_t": ("i", 4, -0x80000000, 0x7FFFFFFF),
    "float": ("f", 4, None, None),
    "char": ("s", 1, None, None),
}

Value = int | float | bytes
FLT_MAX = 3.4028234663852886e38


def _is_value_of(enum: type[IntEnum], v: int) -> bool:
    """Whether `enum(v)` is legal: a member's value, or one the enum's `_missing_` accepts
    (OpType: the extension op types)."""
    try:
        enum(v)
    except ValueError:
        return False
    return True


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


@dataclass(frozen=True)
class Field:
    """One struct member. `count` > 1 only for `char` arrays. `enum` lists the legal values
    (an IntFlag: the legal bits); `optional` fields use all-ones (NONE16/NONE32) for "none"."""

    name: str
    ctype: str
    doc: str
    count: int = 1
    enum: type[IntEnum | IntFlag] | None = None
    optional: bool = False

    @property
    def size(self) -> int:
        return CTYPES[self.ctype][1] * self.count

    @property
    def align(self) -> int:
        return CTYPES[self.ctype][1]

    @property
    def none(self) -> int:
        """The all-ones value meaning "no index"."""
        return CTYPES[self.ctype][3] or 0

    @property
    def reserved(self) -> bool:
        return self.name.startswith("reserved")


@dataclass(frozen=True)
class Record:
    """A fixed-size little-endian record; `c_name` is its C typedef."""

    c_name: str
    doc: str
    fields: tuple[Field, ...]
    offsets: dict[str, int] = field(init=False, compare=False)
    struct: struct.Struct = field(init=False, compare=False)

    def __post_init__(self) -> None:
        offsets: dict[str, int] = {}
        offset = 0
        for f in self.fields:
            if f.ctype not in CTYPES or (f.count != 1 and f.ctype != "char"):
                raise TypeError(f"{self.c_name}.{f.name}: unsupported type {f.ctype}[{f.count}]")
            if offset % f.align:
                raise TypeError(f"{self.c_name}.{f.name} at offset {offset} would get hidden padding")
            offsets[f.name] = offset
            offset += f.size
        if offset % max(f.align for f in self.fields):
            raise TypeError(f"{self.c_name}: size {offset} would get hidden tail padding")
        codes = "".join(f"{f.count}s" if f.ctype == "char" else CTYPES[f.ctype][0] for f in self.fields)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "struct", struct.Struct("<" + codes))
        assert self.struct.size == offset

    @property
    def size(self) -> int:
        return self.struct.size

    @property
    def align(self) -> int:
        return max(f.align for f in self.fields)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def pack(self, values: Mapping[str, Value], what: str) -> bytes:
        """Pack `values` (missing reserved fields are 0); a value out of its C range raises a
        ValueError naming `what` and the field, never a bare struct.error."""
        out: list[Value] = []
        for f in self.fields:
            v = values.get(f.name, 0) if f.reserved else values[f.name]
            lo, hi = CTYPES[f.ctype][2], CTYPES[f.ctype][3]
            if f.ctype == "float":
                if math.isfinite(float(v)) and abs(float(v)) > FLT_MAX:
                    raise ValueError(f"{what} {f.name}: {v} does not fit a float32")
            elif f.ctype != "char" and not (
                isinstance(v, int) and lo is not None and hi is not None and lo <= v <= hi
            ):
                raise ValueError(f"{what} {f.name}: {v!r} does not fit {f.ctype}")
            out.append(v)
        return self.struct.pack(*out)

    def unpack_all(self, data: bytes) -> list[dict[str, Value]]:
        """Records of a section whose size is already checked to be a multiple of `size`."""
        return [dict(zip(self.names, vals)) for vals in self.struct.iter_unpack(data)]

    def model_values(self, obj: object, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        """The fields `obj` (a model dataclass) has under the same name; None -> NONE16/32."""
        out: dict[str, Any] = {}
        for f in self.fields:
            if f.name not in skip and f.name in _field_names(type(obj)):
                v = getattr(obj, f.name)
                out[f.name] = f.none if (v is None and f.optional) else v
        return out

    def model_kwargs(
        self, rec: Mapping[str, Value], cls: type, skip: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        """The inverse of `model_values` for a checked record: NONE16/32 -> None, enums typed."""
        out: dict[str, Any] = {}
        for f in self.fields:
            if f.name not in skip and f.name in _field_names(cls):
                v = rec[f.name]
                if f.optional and v == f.none:
                    out[f.name] = None
                else:
                    out[f.name] = f.enum(v) if f.enum is not None else v
        return out

    def check(self, rec: Mapping[str, Value], what: str, code: str = "BAD_RECORD") -> None:
        """Reserved fields are zero and enum fields hold a known value (flags: known bits)."""
        for f in self.fields:
            v = rec[f.name]
            if f.reserved and v != 0:
                raise TgrsFormatError(code, f"{what} {f.name}: reserved field is {v}, must be 0")
            if f.enum is None or (f.optional and v == f.none):
                continue
            assert isinstance(v, int)
            if issubclass(f.enum, IntFlag):
                known = 0
                for m in f.enum:
                    known |= m.value
                if v & ~known:
                    raise TgrsFormatError(code, f"{what} {f.name}: unknown bits {v & ~known:#x}")
            elif not _is_value_of(f.enum, v):
                raise TgrsFormatError(code, f"{what} {f.name}: unknown value {v}")
