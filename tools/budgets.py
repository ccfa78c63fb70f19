"""Memory sizes on the command line: `-m 256K`, `-m 256K+8M`, `-f 4M`, `--align 32`.

Units are binary, as MCU datasheets and spec/memory-model.md's `-m 256K` use them:
K = KB = KiB = 1024 bytes, M = MB = MiB = 1024 K, G likewise, any letter case; no
unit (or `B`) is bytes. A fraction is accepted when it names whole bytes (`0.5M` =
524288, `1.5K` = 1536; `0.3K` is refused). Zero, signs, exponents, spaces, sizes above
`MAX_SIZE` and anything else are refused with one message naming the flag and the value;
the one zero accepted is `-m FAST+0`, a device without PSRAM.
"""

from __future__ import annotations

import re
from decimal import Decimal

from tigris.emit.tgrs.layout import CTYPES

MAX_SIZE: int = CTYPES["uint32_t"][3]  # type: ignore[assignment]
"""The largest size a plan and the runtime can address: the `.tgrs` sizes, peaks and budgets
and the runtime's arena sizes are `uint32_t` (4 GiB - 1 bytes)."""

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)([kmg](?:i?b)?|b)?", re.IGNORECASE | re.ASCII)
_ZERO = re.compile(r"0+(?:\.0+)?([kmg](?:i?b)?|b)?", re.IGNORECASE | re.ASCII)
"""A zero SLOW size (`+0`, `+0K`): no PSRAM."""
_EXAMPLES = "e.g. 262144, 256K, 256KiB, 1.5M (K = 1024 bytes)"


class BudgetError(ValueError):
    """A size flag the user mistyped; the message is the whole error line."""


def _bytes(text: str) -> int:
    """The size `text` names; ValueError says why it names none."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"expected a size, {_EXAMPLES}")
    number, unit = match.groups()
    value = Decimal(number) * _UNITS[(unit or "")[:1].lower()]
    if value != value.to_integral_value():
        raise ValueError(f"that is {value.normalize():f} bytes, not a whole number")
    if value < 1:
        raise ValueError("a size must be at least 1 byte")
    if value > MAX_SIZE:
        raise ValueError(
            f"{value:f} bytes is more than a plan and the runtime can address; use at most {MAX_SIZE} (4 GiB - 1)"
        )
    return int(value)


def parse_size(text: str, flag: str) -> int:
    """Bytes named by `text`, e.g. `256K` -> 262144."""
    try:
        return _bytes(text)
    except ValueError as e:
        raise BudgetError(f"bad {flag} value '{text}': {e}") from None


def parse_memory(text: str, flag: str = "-m") -> tuple[int, int | None]:
    """`FAST` or `FAST+SLOW` (SRAM budget, PSRAM size) in bytes; `FAST+0` is a device without
    PSRAM (SLOW 0, `report/sram_only.py`)."""
    fast, plus, slow = text.partition("+")
    if plus and (not fast or not slow or "+" in slow):
        raise BudgetError(f"bad {flag} value '{text}': expected FAST or FAST+SLOW, e.g. 256K or 256K+8M")
    if not plus:
        return parse_size(text, flag), None
    sizes = []
    for part, role in ((fast, "FAST"), (slow, "SLOW")):
        if role == "SLOW" and _ZERO.fullmatch(part):
            sizes.append(0)
            continue
        try:
            sizes.append(_bytes(part))
        except ValueError as e:
            raise BudgetError(f"bad {flag} value '{text}': {role} '{part}': {e}") from None
    return sizes[0], sizes[1]


def parse_align(text: str, flag: str = "--align") -> int:
    """The tensor alignment in bytes: a power of two (spec/memory-model.md: 4, 8, 16 or 32)."""
    value = int(text) if text.isascii() and text.isdigit() else 0
    if value < 1 or value & (value - 1):
        raise BudgetError(f"bad {flag} value '{text}': expected a power of two, e.g. 4, 8, 16 or 32")
    return value


def parse_percent(text: str, flag: str = "--max-recompute") -> float:
    """A percentage in [0, 100] (`--max-recompute 5`, `2.5`)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:  # NaN fails too
        raise BudgetError(f"bad {flag} value '{text}': expected a percentage from 0 to 100, e.g. 10 or 2.5")
    return value
