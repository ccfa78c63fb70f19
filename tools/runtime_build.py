"""Build the C runtime with the system C compiler, cached by the hash of its inputs.

`tigris run` and the tests need the runtime as a shared library or an executable.
There is no install step for it: the first use compiles it (about a second) into a
cache directory keyed by the sources, flags and compiler, so an edited source or a
different flag set rebuilds, and everything else is reused.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

def _runtime_dir() -> Path:
    """The C sources: the `tigris.runtime` package data when installed, else the repo's runtime/."""
    from importlib.util import find_spec

    spec = find_spec("tigris.runtime")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if (Path(location) / "include" / "tigris.h").exists():
            return Path(location)
    return Path(__file__).resolve().parent.parent / "runtime"


RUNTIME_DIR = _runtime_dir()
INCLUDE_DIR = RUNTIME_DIR / "include"
STRICT_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
FLOAT_FLAGS = ("-ffp-contract=off",)
"""The int8 kernels' float32 arithmetic must round every operation once, as numpy does in the
interpreter they are bit-exact with: no fused multiply-add. GCC already keeps contraction off in
an ISO C mode (-std=c99), but clang contracts a * b + c within an expression by default, and so
does GCC in its GNU modes (an ESP-IDF or firmware build); the flag says it for every compiler."""
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g")


class RuntimeBuildError(RuntimeError):
    """The C compiler is missing or rejected the runtime sources."""


def library_sources() -> list[Path]:
    """The runtime proper: loader, memory manager, executor and reference kernels."""
    return sorted((RUNTIME_DIR / "src").rglob("*.c"))


def compiler() -> str:
    """`$CC` (a program, possibly with flags) or the system's cc/gcc."""
    cc = os.environ.get("CC")
    if cc:
        words = shlex.split(cc) if cc.strip() else []
        if not words or shutil.which(words[0]) is None:
            raise RuntimeBuildError(
                f"CC is '{cc}', which is not a program: set CC to a C compiler (e.g. gcc) or unset it"
            )
        return cc
    found = shutil.which("cc") or shutil.which("gcc")
    if found is None:
        raise RuntimeBuildError("no C compiler found: install gcc (or set CC) to build the TiGrIS runtime")
    return found


def cache_dir() -> Path:
    root = os.environ.get("TIGRIS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tigris"
    )
    return Path(root)


def _digest(cc: str, sources: Sequence[Path], flags: Sequence[str]) -> str:
    h = hashlib.sha256()
    h.update(cc.encode())
    h.update("\0".join(flags).encode())
    headers = sorted(INCLUDE_DIR.glob("*.h")) + sorted((RUNTIME_DIR / "src").rglob("*.h"))
    for path in [*sources, *headers]:
        h.update(str(path).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build(
    name: str,
    sources: Sequence[Path],
    *,
    shared: bool = False,
    sanitize: bool = False,
    opt: str = "-O2",
    extra_flags: Sequence[str] = (),
) -> Path:
    """Compile `sources` into an executable (or a shared library) named after `name`.

    Returns the cached artifact. The compiler's diagnostics, and a cache directory that
    cannot be written, become a RuntimeBuildError whose first line says what happened.
    """
    cc = compiler()
    flags = [*STRICT_FLAGS, *FLOAT_FLAGS, opt, f"-I{INCLUDE_DIR}", *extra_flags]
    if sanitize:
        flags += SANITIZE_FLAGS
    if shared:
        flags += ["-shared", "-fPIC"]
    out_dir = cache_dir() / _digest(cc, sources, flags)
    out = out_dir / (f"lib{name}.so" if shared else name)
    if out.exists():
        return out
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        # Compile to a temporary name and rename, so concurrent builders never see half a file.
        with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            tmp_out = Path(tmp) / out.name
            cmd = [*shlex.split(cc), *flags, *map(str, sources), "-o", str(tmp_out), "-lm"]
            try:
                result = subprocess.run(cmd, capture_output=True, text=True)
            except OSError as e:
                raise RuntimeBuildError(f"cannot run the C compiler {cc}: {e.strerror or e}; set CC to one") from None
            if result.returncode != 0:
                first = next((line for line in result.stderr.splitlines() if "error" in line), "see below")
                detail = f"{' '.join(cmd)}\n{result.stderr}"
                raise RuntimeBuildError(f"building {name} with {cc} failed: {first}\n{detail}")
            os.replace(tmp_out, out)
    except OSError as e:
        where = e.filename or out_dir
        raise RuntimeBuildError(
            f"cannot build {name} in the cache '{where}': {(e.strerror or str(e)).lower()}; "
            "set TIGRIS_CACHE_DIR to a writable directory"
        ) from None
    return out
