"""Generate `runtime/include/tigris_format.h` from the Python definition.

The header is checked in; `test_tgrs_c_contract.py` fails when it is stale and compiles
it to compare every size, offset and enum value with `records.py` and `enums.py`.

    python -m tigris.emit.tgrs.cheader runtime/include/tigris_format.h
"""

from __future__ import annotations

import sys
from enum import IntEnum, IntFlag
from pathlib import Path

from tigris.emit.tgrs.enums import C_CONSTANTS, C_ENUMS, C_OP_SETS, MAGIC, OpType
from tigris.emit.tgrs.layout import Record
from tigris.emit.tgrs.records import RECORDS

PROLOGUE = """\
/* tigris_format.h - the .tgrs execution-plan format: wire records and enums.
 *
 * GENERATED from tigris.emit.tgrs (enums.py, records.py) by
 *     python -m tigris.emit.tgrs.cheader runtime/include/tigris_format.h
 * Do not edit; docs/tgrs-format.md explains every field and the loader's checks.
 *
 * Little-endian. Every struct uses C's natural alignment with explicit reserved
 * fields, so its in-memory layout is the file layout: no pragma, no hidden padding.
 * Enum-typed fields are stored in the integer width given in the struct.
 */
#ifndef TIGRIS_FORMAT_H
#define TIGRIS_FORMAT_H

#include <stdint.h>

/* Compile-time layout check (C99 has no _Static_assert): a negative array size fails. */
#define TIGRIS_FORMAT_CHECK_SIZE(type, size) \\
    typedef char type##_size_check[(sizeof(type) == (size)) ? 1 : -1]
"""

EPILOGUE = """
#endif /* TIGRIS_FORMAT_H */
"""


def _constant(name: str, value: int) -> str:
    text = f"0x{value:X}u" if name.startswith("TIGRIS_NONE") else str(value)
    return f"#define {name} {text}"


def _enum(cls: type[IntEnum | IntFlag], c_name: str, prefix: str) -> str:
    members = [(prefix + str(m.name), m.value) for m in cls]
    width = max(len(name) for name, _ in members)
    lines = [f"/* {(cls.__doc__ or '').strip().splitlines()[0]} */", "typedef enum {"]
    lines += [f"    {name:<{width}} = {value}," for name, value in members]
    lines.append(f"}} {c_name};")
    return "\n".join(lines)


def _struct(rec: Record) -> str:
    decls = [(f"{f.ctype}", f"{f.name}[{f.count}];" if f.count > 1 else f"{f.name};", f) for f in rec.fields]
    tw = max(len(t) for t, _, _ in decls)
    nw = max(len(n) for _, n, _ in decls)
    lines = [f"/* {rec.doc} */", "typedef struct {"]
    for ctype, name, f in decls:
        doc = f.doc + (f"; TIGRIS_NONE{8 * f.align}: none" if f.optional else "")
        comment = f" /* @{rec.offsets[f.name]:<3} {doc} */" if doc else f" /* @{rec.offsets[f.name]} */"
        lines.append(f"    {ctype:<{tw}} {name:<{nw}}{comment}".rstrip())
    lines.append(f"}} {rec.c_name};")
    lines.append(f"TIGRIS_FORMAT_CHECK_SIZE({rec.c_name}, {rec.size});")
    return "\n".join(lines)


def _predicate(name: str, members: frozenset[OpType]) -> str:
    """`static inline int name(uint8_t op_type)`: 1 for the members of an op set, else 0."""
    lines: list[str] = []
    for case in (f"case TIGRIS_OP_{m.name}:" for m in sorted(members)):
        if lines and len(lines[-1]) + 1 + len(case) <= 112:
            lines[-1] += " " + case
        else:
            lines.append("    " + case)
    body = "\n".join(lines)
    return "\n".join([
        f"static inline int {name}(uint8_t op_type) {{",
        "    switch (op_type) {",
        body,
        "        return 1;",
        "    default:",
        "        return 0;",
        "    }",
        "}",
    ])  # fmt: skip


def render() -> str:
    """The whole header text."""
    parts = [PROLOGUE]
    parts.append(f'#define TIGRIS_FORMAT_MAGIC "{MAGIC.decode()}"')
    parts.extend(_constant(name, value) for name, value in C_CONSTANTS)
    parts.append("")
    parts.extend(_enum(cls, c_name, prefix) + "\n" for cls, c_name, prefix in C_ENUMS)
    parts.extend(_struct(rec) + "\n" for rec in RECORDS)
    parts.append("/* Op sets (emit/tgrs/enums.py C_OP_SETS): which op types a tiling may hold. */")
    parts.extend(_predicate(name, members) + "\n" for name, members in C_OP_SETS)
    return "\n".join(parts).rstrip("\n") + "\n" + EPILOGUE


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    Path(argv[0]).write_text(render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
