"""The memory manager (runtime/src/tigris_mem.c) through its C suite runtime/tests/test_mem.c.

The suite calls every function of tigris_mem.h and checks every error code: bump
allocation and alignment, the allocation tables, refcounts, fast compaction (a freed
allocation in the middle, pointers updated, data preserved), overflow to slow memory,
slow free and compaction (tensor and band pointers follow), load/spill, tile (row band)
and window (2-D tile) load/spill round trips with their exact byte counts, the reserved prefix. It is built strict (-Werror -pedantic),
plain and with ASan/UBSan, and for the alignments of every target family.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from tigris.tools.runtime_build import INCLUDE_DIR, RUNTIME_DIR, STRICT_FLAGS, build, compiler

SOURCES = [RUNTIME_DIR / "tests" / "test_mem.c", RUNTIME_DIR / "src" / "tigris_mem.c"]


def _run(exe: Path) -> str:
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ", 0 failed" in proc.stdout, proc.stdout
    return proc.stdout


@pytest.mark.parametrize("sanitize", [False, True])
def test_mem_suite(sanitize: bool) -> None:
    out = _run(build("test_mem", SOURCES, sanitize=sanitize, opt="-O1" if sanitize else "-O2"))
    assert int(out.split("test_mem: ")[1].split()[0]) > 300  # the checks really ran


@pytest.mark.parametrize("align", [4, 8, 16, 64])
def test_mem_suite_other_alignments(align: int) -> None:
    """TIGRIS_TENSOR_ALIGN of ARM32, Xtensa, AArch64 (and a wider one): the same suite."""
    _run(build(f"test_mem_a{align}", SOURCES, sanitize=True, opt="-O1", extra_flags=(f"-DTIGRIS_TENSOR_ALIGN={align}",)))


def test_mem_stack_and_globals() -> None:
    """Every function of tigris_mem.c uses < 1 KiB of stack, and the file has no mutable globals."""
    with tempfile.TemporaryDirectory() as tmp:
        for opt in ("-O0", "-O2", "-Os"):
            obj = Path(tmp) / f"mem{opt}.o"
            cmd = [compiler(), *STRICT_FLAGS, opt, f"-I{INCLUDE_DIR}", "-fstack-usage", "-c",
                   str(RUNTIME_DIR / "src" / "tigris_mem.c"), "-o", str(obj)]
            subprocess.run(cmd, check=True, capture_output=True, text=True)
            for line in obj.with_suffix(".su").read_text().splitlines():
                where, size, qual = line.rsplit("\t", 2)
                assert int(size) <= 1024 and qual in ("static", "dynamic,bounded"), line
            syms = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
            assert not [s for s in syms.splitlines() if s.split()[-2:-1] and s.split()[-2] in "BbDd"], syms
            assert not {"malloc", "calloc", "realloc", "free"} & {s.split()[-1] for s in syms.splitlines()}
