"""Per-function stack frames of C sources, from the compiler's `-fstack-usage`.

    from stack_usage import assert_stack_usage
    assert_stack_usage([RUNTIME_DIR / "src" / "tigris_mem.c"], limit=1024)

compiles each source alone (`-c`, the runtime's strict flags and include directory) at
each optimization level and reads the `.su` file gcc (or clang) writes next to the
object: one line `file:line:col:function<TAB>bytes<TAB>qualifiers` per function. A
function fails when its frame exceeds `limit` bytes or when its size is `dynamic`
without `bounded` (alloca or a variable-length array). The frames are those of a
normal build: sanitizers add redzones and are not used here. A frame is one function:
inlining at -O2/-Os merges callees into it, which is why several levels are checked.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tigris.tools.runtime_build import INCLUDE_DIR, STRICT_FLAGS, compiler

OPT_LEVELS = ("-O0", "-O2", "-Os")


def stack_usage(
    sources: Sequence[Path | str], *, opt: str = "-O2", extra_flags: Sequence[str] = ()
) -> dict[str, tuple[int, str]]:
    """`{"file.c:function": (bytes, qualifiers)}` for every function of `sources`."""
    out: dict[str, tuple[int, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, src in enumerate(map(Path, sources)):
            obj = Path(tmp) / f"{i}_{src.stem}.o"
            cmd = [compiler(), *STRICT_FLAGS, opt, f"-I{INCLUDE_DIR}", *extra_flags, "-fstack-usage", "-c",
                   str(src), "-o", str(obj)]  # fmt: skip
            result = subprocess.run(cmd, check=False, capture_output=True, text=True)
            if result.returncode != 0:
                raise AssertionError(f"compiling {src.name} failed:\n{' '.join(cmd)}\n{result.stderr}")
            su = obj.with_suffix(".su")
            assert su.exists(), f"{compiler()} wrote no {su.name}: does it support -fstack-usage?"
            for line in su.read_text().splitlines():
                where, size, qualifiers = line.rsplit("\t", 2)
                function = where.rsplit(":", 1)[-1]
                out[f"{src.name}:{function}"] = (int(size), qualifiers)
    return out


def assert_stack_usage(
    sources: Sequence[Path | str],
    limit: int = 1024,
    *,
    opts: Sequence[str] = OPT_LEVELS,
    extra_flags: Sequence[str] = (),
) -> dict[str, dict[str, tuple[int, str]]]:
    """Fail if a function of `sources` needs more than `limit` bytes of stack (or an
    unbounded frame) at any of `opts`; returns the usage per optimization level."""
    usage = {opt: stack_usage(sources, opt=opt, extra_flags=extra_flags) for opt in opts}
    bad = [
        f"{opt} {name}: {size} bytes ({qualifiers})"
        for opt, frames in usage.items()
        for name, (size, qualifiers) in sorted(frames.items())
        if size > limit or ("dynamic" in qualifiers and "bounded" not in qualifiers)
    ]
    assert not bad, f"stack frames over {limit} bytes or unbounded:\n" + "\n".join(bad)
    return usage
