"""Runs every test suite (lit/FileCheck, pytest; the C runtime suite joins with the runtime)
and fails if any fails. `.ci/run` calls exactly this.

The example plugin's suites (examples/extension/test: lit and pytest) run too; the example
must be installed (`pip install -e examples/extension`), else that is a failure, not a skip.

The last line is a plain total, `TOTAL: N passed, M failed`, so a reader of the log
sees the whole run at once.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

TEST_DIR = Path(__file__).resolve().parent
EXAMPLE_DIR = TEST_DIR.parent / "examples" / "extension"
EXAMPLE_DIST = "tigris-ext-example"
PARALLEL = ["-n", "auto", "--durations=15"]
"""pytest-xdist, one worker per core: the suite is CPU-bound and single-threaded, so two cores
halve its wall time (CI's budget); each worker builds the session fixtures (the model zoo) once.
The slowest tests are listed so a growing suite shows where its time goes."""


def run(name: str, command: list[str]) -> tuple[int, int, int]:
    """Run a suite; returns (exit code, passed, failed) parsed from its summary."""
    print(f"== {name}: {' '.join(command)}", flush=True)
    proc = subprocess.run(command, cwd=TEST_DIR.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout, end="", flush=True)
    passed = _count(proc.stdout, r"(\d+) passed", r"^\s*Passed\s*:\s*(\d+)")
    failed = _count(proc.stdout, r"(\d+) (?:failed|errors?)\b", r"^\s*Failed\s*:\s*(\d+)")
    if proc.returncode != 0 and failed == 0:
        failed = 1  # the suite broke before reporting (collection error, crash)
    return proc.returncode, passed, failed


def _count(output: str, *patterns: str) -> int:
    """Sum of the numbers a suite's summary lines report (pytest: `3 passed`, lit: `Passed: 3`)."""
    return sum(int(n) for p in patterns for n in re.findall(p, output, flags=re.MULTILINE))


def example_installed() -> bool:
    """Whether the example plugin is installed (its suites fail loudly otherwise)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        distribution(EXAMPLE_DIST)
    except PackageNotFoundError:
        print(f"== example plugin: {EXAMPLE_DIST} is not installed (pip install -e examples/extension)")
        return False
    return True


def main() -> int:
    lit = shutil.which("lit", path=str(Path(sys.executable).parent)) or shutil.which("lit") or "lit"
    suites = [
        ("lit", [lit, "-sv", str(TEST_DIR)]),
        ("pytest", [sys.executable, "-m", "pytest", "-q", *PARALLEL, str(TEST_DIR)]),
        ("lit (example plugin)", [lit, "-sv", str(EXAMPLE_DIR / "test")]),
        ("pytest (example plugin)", [sys.executable, "-m", "pytest", "-q", str(EXAMPLE_DIR / "test")]),
    ]
    total_passed = total_failed = 0
    codes: list[int] = []
    if not example_installed():
        total_failed += 1
        codes.append(1)
    for name, command in suites:
        code, passed, failed = run(name, command)
        codes.append(code)
        total_passed += passed
        total_failed += failed
    print(f"TOTAL: {total_passed} passed, {total_failed} failed")
    return 0 if total_failed == 0 and all(c == 0 for c in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
