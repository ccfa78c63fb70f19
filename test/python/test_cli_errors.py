"""Careless users: every mistake the `tigris` and `tigris-opt` commands can be given ends in
one `error:` line naming the path or value and what to do, and exit status 1 (usage errors
keep argparse's usage text before that line). Each case runs the installed entry point in
a subprocess, as a user would, and checks that no traceback and no file appeared.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent
MODEL = """<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,8,8] x) => (float[1,2,8,8] y) {
  y = Relu(x)
}
"""


def cli(*args: str, env: dict[str, str] | None = None, tool: str = "tigris", cwd: Path | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def one_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The single error line of a failed command (exit 1, nothing on stdout)."""
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stdout == "", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a model, its plan, an input and a plain file."""
    folder = tmp_path_factory.mktemp("cli_errors")
    (folder / "m.onnxtxt").write_text(MODEL)
    proc = cli("compile", str(folder / "m.onnxtxt"), "-m", "64K", "-o", str(folder / "m.tgrs"))
    assert proc.returncode == 0, proc.stderr
    np.save(folder / "x.npy", np.ones((1, 2, 8, 8), np.float32))
    np.save(folder / "c.npy", np.ones((1, 2, 8, 8), np.complex64))
    (folder / "file.txt").write_text("not a directory")
    return folder


# -- tigris compile -o ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "needle"),
    [
        ("{w}/missing/m.tgrs", "no such directory; create it first"),
        ("{w}", "it is a directory; name a file in it"),
        ("{w}/file.txt/m.tgrs", "a part of the path is a file, not a directory"),
        ("", "-o: the path is empty; name the file to write"),
        ("/dev/full", "no space left on the device"),
        ("/proc/version", "cannot write -o '/proc/version': "),
    ],
    ids=["missing-dir", "directory", "under-a-file", "empty", "dev-full", "proc"],
)
def test_compile_output_path_errors(work: Path, output: str, needle: str) -> None:
    target = output.format(w=work)
    before = sorted(p.name for p in work.iterdir())
    line = one_error(cli("compile", str(work / "m.onnxtxt"), "-m", "64K", "-o", target), needle)
    assert target in line
    assert sorted(p.name for p in work.iterdir()) == before  # nothing written, nothing left half-written


def test_compile_refuses_a_budget_beyond_the_format(work: Path) -> None:
    """It used to fail deep in the pipeline with "out of range for type i64"."""
    one_error(cli("compile", str(work / "m.onnxtxt"), "-m", "99999999999G", "-o", str(work / "x.tgrs")),
              "bad -m value '99999999999G'", "use at most 4294967295")
    assert not (work / "x.tgrs").exists()


def test_analyze_refuses_a_budget_beyond_the_format(work: Path) -> None:
    """It used to say "fits"."""
    one_error(cli("analyze", str(work / "m.onnxtxt"), "-m", "99999999999G"), "bad -m value '99999999999G'")
    one_error(cli("analyze", str(work / "m.onnxtxt"), "-m", "64K+8G"), "SLOW '8G'", "use at most 4294967295")


def test_a_directory_given_as_the_model(work: Path) -> None:
    one_error(cli("analyze", str(work), "-m", "64K"), f"cannot open '{work}': it is a directory")
    one_error(cli("compile", str(work), "-m", "64K", "-o", str(work / "x.tgrs")), "it is a directory")


@pytest.mark.parametrize(("output", "needle"), [("{w}/missing/x.mlir", "no such directory"),
                                                ("/dev/full", "no space left on the device")])
def test_tigris_opt_output_path_errors(work: Path, output: str, needle: str) -> None:
    target = output.format(w=work)
    one_error(cli(str(work / "m.onnxtxt"), "-o", target, tool="tigris-opt"), f"cannot write -o '{target}'", needle)


# -- tigris run -------------------------------------------------------------------------------------


def test_run_output_into_a_missing_directory(work: Path) -> None:
    one_error(cli("run", str(work / "m.tgrs"), "--output", str(work / "missing" / "y.npy")),
              "cannot write --output", "no such directory")


def test_run_output_to_a_full_device(work: Path) -> None:
    one_error(cli("run", str(work / "m.tgrs"), "--output", "/dev/full"), "'/dev/full': no space left on the device")
    assert not Path("/dev/full.npy").exists()  # np.save(path) would have written here


def test_run_output_is_written_where_named(work: Path) -> None:
    """No `.npy` appended: the file is the path the user gave (and holds the output)."""
    target = work / "y.out"
    proc = cli("run", str(work / "m.tgrs"), "--input", str(work / "x.npy"), "--output", str(target))
    assert proc.returncode == 0 and proc.stdout.startswith(f"wrote {target}:"), proc.stderr
    assert not (work / "y.out.npy").exists()
    np.testing.assert_array_equal(np.load(target), np.ones((1, 2, 8, 8), np.float32))  # Relu(1) = 1


def test_run_with_cc_pointing_nowhere(work: Path, tmp_path: Path) -> None:
    one_error(cli("run", str(work / "m.tgrs"), env={"CC": str(tmp_path / "no-cc"), "TIGRIS_CACHE_DIR": str(tmp_path)}),
              "CC is", "which is not a program", "set CC to a C compiler")


def test_run_with_an_unusable_cache_dir(work: Path) -> None:
    one_error(cli("run", str(work / "m.tgrs"), env={"TIGRIS_CACHE_DIR": str(work / "file.txt")}),
              "cannot build tigris_host in the cache", "set TIGRIS_CACHE_DIR to a writable directory")


def test_run_refuses_an_arena_beyond_4_gib(work: Path) -> None:
    """-m 8G used to wrap modulo 2^32 in the C call and run with the default arena."""
    one_error(cli("run", str(work / "m.tgrs"), "-m", "8G"), "bad -m value '8G'", "use at most 4294967295")
    one_error(cli("run", str(work / "m.tgrs"), "-m", "4G"), "4294967296 bytes is more than")


def test_run_refuses_a_complex_input(work: Path) -> None:
    one_error(cli("run", str(work / "m.tgrs"), "--input", str(work / "c.npy")),
              f"input '{work / 'c.npy'}' holds complex64 values", "give a float or integer array")


def test_run_and_inspect_an_endless_file_stop_at_once() -> None:
    """A .tgrs is read no further than its header allows: /dev/zero has no magic."""
    for command in ("inspect", "run"):
        start = time.monotonic()
        one_error(cli(command, "/dev/zero", timeout=60), "'/dev/zero' is not a valid .tgrs plan", "magic")
        assert time.monotonic() - start < 30


def test_a_file_longer_than_its_header_says(work: Path, tmp_path: Path) -> None:
    long = tmp_path / "long.tgrs"
    long.write_bytes((work / "m.tgrs").read_bytes() + bytes(100))
    one_error(cli("inspect", str(long)), "file_size: header says", "the file has more")


def test_a_directory_given_as_the_plan(work: Path) -> None:
    one_error(cli("inspect", str(work)), f"cannot read '{work}': it is a directory")
    one_error(cli("run", str(work / "missing.tgrs")), "no such file")


# -- argument misuse ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "needle"),
    [
        ("tigris", ["--bogus"], "unrecognized arguments: --bogus"),
        ("tigris", ["compile"], "the following arguments are required"),
        ("tigris", ["compile", "m.onnxtxt", "-m", "64K", "-o", "x", "-c", "zip"], "invalid choice: 'zip'"),
        ("tigris", ["analyze", "m.onnxtxt", "-m", "64K", "--cuts", "fastest"], "invalid choice: 'fastest'"),
        ("tigris-opt", ["--bogus"], "unrecognized arguments: --bogus"),
        ("tigris-opt", ["-t", "nope"], "invalid choice: 'nope'"),
    ],
)
def test_argument_misuse_exits_1_with_its_usage(tool: str, args: list[str], needle: str) -> None:
    proc = cli(*args, tool=tool)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("usage: ") and needle in proc.stderr.splitlines()[-1]


def test_help_and_version_still_exit_0() -> None:
    for tool, args in (("tigris", ["--help"]), ("tigris", ["--version"]), ("tigris-opt", ["--help"])):
        assert cli(*args, tool=tool).returncode == 0


def test_entry_points_are_installed() -> None:
    assert shutil.which(str(BIN / "tigris")) and shutil.which(str(BIN / "tigris-opt"))


# -- a plan the runtime refuses while running it ---------------------------------------------------


def test_run_names_the_failing_op_and_the_kernels_reason(tmp_path: Path) -> None:
    """A kernel failure is `op N 'name' (ir op): <kernel reason>`, not "kernel callback
    returned an error" (the op's name from the plan's string pool, its kind from RuntimeOp)."""
    from fuzz_reproducers import resize_scale_wraps, stage_outputs_emptied  # test/support

    plan = tmp_path / "resize.tgrs"
    plan.write_bytes(resize_scale_wraps())
    line = one_error(cli("run", str(plan)))
    assert line == "error: op 0 'resize' (tgr.resize): operand shapes inconsistent with the op"
    plan.write_bytes(stage_outputs_emptied())
    line = one_error(cli("run", str(plan)))
    assert line == "error: model output 'y': a model output was not produced (it is not in the slow buffer)"


def test_the_binding_reports_the_op() -> None:
    from fuzz_reproducers import pad_wraps

    from tigris.tools.runtime_binding import RunError, run_plan

    with pytest.raises(RunError, match=r"^op 0 'pad' \(tgr\.pad\): operand shapes inconsistent") as info:
        run_plan(pad_wraps(), [np.zeros((1, 1, 4, 4), np.float32)])
    assert info.value.op == 0


def test_the_binding_refuses_arena_sizes_that_would_wrap() -> None:
    from fuzz_reproducers import stage_outputs_emptied

    from tigris.tools.runtime_binding import RunError, run_plan

    with pytest.raises(RunError, match="a fast arena of 8589934592 bytes: the runtime addresses at most 4294967295"):
        run_plan(stage_outputs_emptied(), [np.zeros((1, 2, 4, 4), np.float32)], fast=8 << 30)
