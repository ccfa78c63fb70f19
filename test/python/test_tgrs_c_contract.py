"""The C header and the Python records describe the same bytes.

A C program generated from the Python tables is compiled against
runtime/include/tigris_format.h (gcc -std=c99 -Wall -Wextra -Werror -pedantic, plus
-Wpadded so hidden padding is an error). It prints sizeof, offsetof of every field,
every enum value and constant, then reads a real `.tgrs` file through the structs and
prints every record field; all of it must equal what Python says. No compiler is a
failure, not a skip.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tigris.emit.tgrs import write_plan
from tigris.emit.tgrs.cheader import render
from tigris.emit.tgrs.enums import C_CONSTANTS, C_ENUMS, SectionKind
from tigris.emit.tgrs.layout import Record
from tigris.emit.tgrs.records import (
    HEADER,
    OP,
    QUANT_PARAM,
    RECORDS,
    SECTION,
    STAGE,
    TENSOR,
    TILE_PLAN,
    WEIGHT_BLOCK,
    WEIGHT_ENTRY,
)
from tigris.emit.tgrs.writer import COMPRESSIONS

ROOT = Path(__file__).resolve().parents[2]
HEADER_PATH = ROOT / "runtime" / "include" / "tigris_format.h"
SECTION_RECORDS = {
    SectionKind.TENSORS: TENSOR,
    SectionKind.OPS: OP,
    SectionKind.STAGES: STAGE,
    SectionKind.TILE_PLANS: TILE_PLAN,
    SectionKind.WEIGHT_ENTRIES: WEIGHT_ENTRY,
    SectionKind.WEIGHT_BLOCKS: WEIGHT_BLOCK,
    SectionKind.QUANT_PARAMS: QUANT_PARAM,
}
PRINTF = {"float": ("%.9g", "double"), "char": ("%.4s", "")}


def _printer(rec: Record) -> str:
    """A C function printing every field of one record as `rec <type> <index> <field> <value>`."""
    lines = [f"static void print_{rec.c_name}(const {rec.c_name} *r, unsigned i) {{"]
    for f in rec.fields:
        fmt, cast = PRINTF.get(f.ctype, ("%lld", "long long"))
        value = f"r->{f.name}" if not cast else f"({cast})r->{f.name}"
        lines.append(f'    printf("rec {rec.c_name} %u {f.name} {fmt}\\n", i, {value});')
    return "\n".join(lines + ["}"])


def c_program() -> str:
    out = [
        "#include <stddef.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        '#include "tigris_format.h"',
        "",
    ]
    out += [_printer(rec) for rec in RECORDS]
    out += ["", "int main(int argc, char **argv) {"]
    for rec in RECORDS:
        out.append(f'    printf("sizeof {rec.c_name} %u\\n", (unsigned)sizeof({rec.c_name}));')
        for f in rec.fields:
            out.append(
                f'    printf("offsetof {rec.c_name} {f.name} %u\\n", (unsigned)offsetof({rec.c_name}, {f.name}));'
            )
    for cls, _, prefix in C_ENUMS:
        for m in cls:
            out.append(f'    printf("enum {prefix}{m.name} %ld\\n", (long){prefix}{m.name});')
    for name, _ in C_CONSTANTS:
        out.append(f'    printf("const {name} %lu\\n", (unsigned long){name});')
    out.append('    printf("const TIGRIS_FORMAT_MAGIC %s\\n", TIGRIS_FORMAT_MAGIC);')
    out.append(
        """    if (argc > 1) {
        FILE *fp = fopen(argv[1], "rb");
        long n;
        unsigned char *buf;
        const tigris_file_header_t *h;
        const tigris_section_t *s;
        unsigned k, j;
        if (!fp || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) return 2;
        buf = (unsigned char *)malloc((size_t)n);
        if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) return 3;
        fclose(fp);
        h = (const tigris_file_header_t *)(const void *)buf;
        print_tigris_file_header_t(h, 0);
        s = (const tigris_section_t *)(const void *)(buf + sizeof(tigris_file_header_t));
        for (k = 0; k < h->num_sections; ++k) {
            const void *base = buf + s[k].offset;
            print_tigris_section_t(&s[k], k);
            for (j = 0; j < s[k].count; ++j) {
                switch (s[k].kind) {"""
    )
    for kind, rec in SECTION_RECORDS.items():
        out.append(
            f"                case TIGRIS_SECTION_{kind.name}: "
            f"print_{rec.c_name}((const {rec.c_name} *)base + j, j); break;"
        )
    out.append(
        """                default: break;
                }
            }
        }
        free(buf);
    }
    return 0;
}"""
    )
    return "\n".join(out) + "\n"


def _compiler() -> str:
    cc = shutil.which(os.environ.get("CC", "gcc"))
    assert cc is not None, "the C contract test needs a C compiler (gcc, or $CC): none was found"
    return cc


@pytest.fixture(scope="module")
def c_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tgrs_c")
    (tmp / "contract.c").write_text(c_program())
    exe = tmp / "contract"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wpadded", "-Wcast-align"]
    proc = subprocess.run(
        [_compiler(), *flags, "-I", str(HEADER_PATH.parent), str(tmp / "contract.c"), "-o", str(exe)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return exe


def _run(exe: Path, *args: str) -> list[list[str]]:
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, check=True)
    return [line.split(" ") for line in proc.stdout.splitlines()]


def test_header_is_generated_from_the_python_definition() -> None:
    assert HEADER_PATH.read_text() == render(), (
        "run: python -m tigris.emit.tgrs.cheader runtime/include/tigris_format.h"
    )


def test_sizes_offsets_enums_and_constants_match(c_binary: Path) -> None:
    seen = {tuple(line[:-1]): line[-1] for line in _run(c_binary) if line[0] != "rec"}
    want: dict[tuple[str, ...], str] = {}
    for rec in RECORDS:
        want[("sizeof", rec.c_name)] = str(rec.size)
        want.update({("offsetof", rec.c_name, name): str(off) for name, off in rec.offsets.items()})
    for cls, _, prefix in C_ENUMS:
        want.update({("enum", prefix + m.name): str(m.value) for m in cls})
    want.update({("const", name): str(value) for name, value in C_CONSTANTS})
    want[("const", "TIGRIS_FORMAT_MAGIC")] = "TGRS"
    assert seen == want


def _f32(text: str) -> float:
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


@pytest.mark.parametrize("compress", COMPRESSIONS)
def test_c_structs_read_a_written_file_field_by_field(c_binary: Path, tmp_path: Path, compress: str) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tgrs_plans", Path(__file__).with_name("test_tgrs_roundtrip.py")
    )
    assert spec is not None and spec.loader is not None
    plans = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plans)
    for name in ("int8_chain", "float_cnn", "blocked"):
        data = write_plan(plans.PLANS[name](), compress)
        path = tmp_path / f"{name}.tgrs"
        path.write_bytes(data)
        want: dict[tuple[str, str, str], object] = {}
        for i, r in enumerate(
            SECTION.unpack_all(data[64 : 64 + 16 * HEADER.unpack_all(data[:64])[0]["num_sections"]])
        ):
            want.update({(SECTION.c_name, str(i), k): v for k, v in r.items()})
            rec = SECTION_RECORDS.get(SectionKind(r["kind"]))
            if rec is not None:
                for j, values in enumerate(rec.unpack_all(data[r["offset"] : r["offset"] + r["size"]])):
                    want.update({(rec.c_name, str(j), k): v for k, v in values.items()})
        want.update({(HEADER.c_name, "0", k): v for k, v in HEADER.unpack_all(data[:64])[0].items()})
        got = {
            (c, i, f): v for _, c, i, f, v in (line for line in _run(c_binary, str(path)) if line[0] == "rec")
        }
        assert got.keys() == want.keys()
        for key, value in want.items():
            if isinstance(value, float):
                assert _f32(str(got[key])) == value, key
            elif isinstance(value, bytes):
                assert got[key] == value.decode(), key
            else:
                assert int(str(got[key])) == value, key
