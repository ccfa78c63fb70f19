"""Bounds-checked access to the pools of a file being read.

Every pool reference in a record is (offset, count) or a string offset; these helpers
check the range against the pool and the values against their limits, and raise
`TgrsFormatError` naming the record field, so the decoder never indexes blindly.
"""

from __future__ import annotations

import math
import struct

from tigris.emit.tgrs.enums import SectionKind
from tigris.emit.tgrs.errors import TgrsFormatError


def _elements(fmt: str, data: bytes) -> tuple[int, ...]:
    return struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data)


def float32s(words: tuple[int, ...]) -> tuple[float, ...]:
    """Quant data words (binary32 bits) as the floats they hold."""
    return struct.unpack(f"<{len(words)}f", struct.pack(f"<{len(words)}i", *words))


def positive_scale(s: float) -> bool:
    """A usable scale: positive and finite (NaN, infinities, zero and negatives are not)."""
    return math.isfinite(s) and s > 0


def bad(what: str, problem: str) -> TgrsFormatError:
    """The error for a record field (shorthand used by the decoder)."""
    return TgrsFormatError("BAD_RECORD", f"{what}: {problem}")


class Pools:
    """The index (u16), shape (i32), quant data (i32) and string pools of one file."""

    def __init__(self, sections: dict[SectionKind, tuple[bytes, int]]) -> None:
        def raw(kind: SectionKind) -> bytes:
            return sections[kind][0] if kind in sections else b""

        self.index = _elements("H", raw(SectionKind.INDEX_POOL))
        self.shape = _elements("i", raw(SectionKind.SHAPE_POOL))
        self.quant = _elements("i", raw(SectionKind.QUANT_DATA))
        self.strings = raw(SectionKind.STRINGS)

    @staticmethod
    def _slice(pool: tuple[int, ...], name: str, offset: int, count: int, what: str) -> tuple[int, ...]:
        if offset + count > len(pool):
            raise bad(
                what, f"{name} range [{offset}, {offset + count}) is outside the pool ({len(pool)} entries)"
            )
        return pool[offset : offset + count]

    def indices(self, offset: int, count: int, what: str, limit: int, limit_name: str) -> tuple[int, ...]:
        """`count` index-pool entries at `offset`, each < `limit` (e.g. num_tensors)."""
        values = self._slice(self.index, "index pool", offset, count, what)
        for i, v in enumerate(values):
            if v >= limit:
                raise bad(f"{what}[{i}]", f"index {v} >= {limit_name} {limit}")
        return values

    def shapes(self, offset: int, count: int, what: str) -> tuple[int, ...]:
        return self._slice(self.shape, "shape pool", offset, count, what)

    def quants(self, offset: int, count: int, what: str) -> tuple[int, ...]:
        return self._slice(self.quant, "quant data", offset, count, what)

    def string(self, offset: int, what: str) -> str:
        """The NUL-terminated UTF-8 string at `offset` of the string pool."""
        end = self.strings.find(b"\0", offset) if offset < len(self.strings) else -1
        if end < 0:
            raise bad(
                what,
                f"string offset {offset} has no NUL-terminated string in the pool ({len(self.strings)} bytes)",
            )
        try:
            return self.strings[offset:end].decode("utf-8")
        except UnicodeDecodeError:
            raise bad(what, f"string at offset {offset} is not valid UTF-8") from None
