"""Fuzz the C loader and executor (runtime/src) under AddressSanitizer + UBSan.

`runtime/tests/fuzz_plan.c` mutates a seed corpus of real plans (the reader's fixture plans
and the fuzz seeds of test/support/fuzz_seeds.py: every runtime op kind, float and int8,
tiled stages, chains, reduction tiles, 2-D tiles, LZ4 and XIP), usually fixing file_size and the CRC afterwards so the
mutations reach the record checks; exact record fields are targeted through the field table
of the format's definition (-F). Each input is loaded from a heap block of exactly its size;
on TIGRIS_OK every accessor of tigris.h is walked over the plan, and the plan is run by
tigris_run with the reference kernels in exact-size arenas (-x). Any out-of-bounds access or
undefined behaviour is a sanitizer report (the input is saved as fuzz-crash.tgrs in the
test's tmp dir), an input running over 10 s is a hang, and a run returning OK without a
model output in the slow buffer is a failure. A second run uses tiny -DTIGRIS_MAX_* limits
so the PLAN_LIMITS checks and the full tables are fuzzed too. Then the committed reproducers
(test/support/fuzz_reproducers.py) are replayed, and a differential run loads
Python-mutated files with both the C loader and the Python reader: the codes must be equal
(but for LZ4 offset-0 matches, see tgrs_corruptions.py).

The normal suite spends about a minute here (TIGRIS_FUZZ_SECONDS, split 70/15 between the
two fuzz runs; the PRNG seed is fixed, so a run is a deterministic prefix of one sequence of
inputs). For a long run, or another sequence:

    TIGRIS_FUZZ_SECONDS=600 TIGRIS_FUZZ_SEED=7 python -m pytest test/python/test_runtime_fuzz.py -s
"""

from __future__ import annotations

import os
import random
import re
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
from fuzz_reproducers import CORPUS, avg_pool_huge_window, write_corpus  # test/support
from fuzz_seeds import field_table, seed_plans
from runtime_ops import RunOpsError, run_plan_ops
from tgrs_corruptions import FILES, lz4_zero_offset, mutate
from tigris.emit.tgrs import TgrsFormatError, read_plan
from tigris.emit.tgrs.enums import FileFlag, OpType
from tigris.tools import runtime_build

ROOT = Path(__file__).resolve().parents[2]
LOADER_SOURCES = [ROOT / "runtime" / "src" / name for name in ("tigris_loader.c", "tigris_lz4.c", "tigris_crc32.c")]
FUZZER = ROOT / "runtime" / "tests" / "fuzz_plan.c"
SECONDS = float(os.environ.get("TIGRIS_FUZZ_SECONDS", "60"))
SEED = int(os.environ.get("TIGRIS_FUZZ_SEED", "1"))
SMALL_LIMITS = ("-DTIGRIS_MAX_BANDS=3", "-DTIGRIS_MAX_SLOW_ALLOCS=2", "-DTIGRIS_MAX_FAST_ALLOCS=1")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("fuzz_corpus")
    paths = []
    for name, data in {**FILES, **seed_plans()}.items():
        paths.append(folder / f"{name}.tgrs")
        paths[-1].write_bytes(data)
    (folder / "fields.txt").write_text(field_table())
    return paths


def fuzzer(flags: tuple[str, ...] = ()) -> Path:
    """fuzz_plan with the whole runtime, under ASan + UBSan (float casts included)."""
    return runtime_build.build(
        "fuzz_plan" + ("_limits" if flags else ""), [*runtime_build.library_sources(), FUZZER],
        sanitize=True, extra_flags=("-fsanitize=float-cast-overflow", *flags),
    )  # fmt: skip


def fuzz(corpus: list[Path], seconds: float, tmp: Path, flags: tuple[str, ...] = ()) -> dict[str, float]:
    crash = tmp / "fuzz-crash.tgrs"
    fields = corpus[0].parent / "fields.txt"
    cmd = [str(fuzzer(flags)), "-x", "-t", f"{seconds:.2f}", "-s", str(SEED), "-o", str(crash), "-F", str(fields),
           *map(str, corpus)]
    result = subprocess.run(cmd, check=False, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(cmd)}\nexit {result.returncode}\n{result.stderr[-6000:]}"
    assert "runtime error" not in result.stderr and "Sanitizer" not in result.stderr, result.stderr[-6000:]
    stats = {k: float(v) for k, v in (line.split() for line in result.stdout.splitlines())}
    print(f"\nfuzz_plan {' '.join(flags)}: " + ", ".join(f"{k} {v:g}" for k, v in stats.items() if v))
    return stats


def test_seeds_cover_every_op_kind_tiles_chains_lz4_and_xip() -> None:
    kinds: set[str] = set()
    for plan in map(read_plan, seed_plans().values()):
        kinds |= {OpType(op.op_type).name for op in plan.ops}
        for stage in plan.stages:
            tp = plan.tile_plans[stage.tile_plan] if stage.tile_plan is not None else None
            kinds.add("normal" if tp is None else "chain" if tp.chain >= 0 else "tiled")
            kinds |= {"reduction"} if tp is not None and tp.reduce_op is not None else set()
            kinds |= {"2-D"} if tp is not None and tp.tile_w > 0 else set()
            kinds |= {"row caches"} if tp is not None and tp.row_cache else set()
        kinds |= {f.name for f in FileFlag if f in FileFlag(plan.flags)}
    want = {t.name for t in OpType if t != OpType.UNKNOWN} | {"normal", "tiled", "chain", "reduction", "2-D", "LZ4", "XIP",
                                                              "row caches"}
    assert kinds >= want, want - kinds


def test_fuzz_loader_and_executor(corpus: list[Path], tmp_path: Path) -> None:
    stats = fuzz(corpus, 0.7 * SECONDS, tmp_path)
    assert stats["crc_fixed"] >= 5000 and stats["executed"] >= 1000, stats
    assert stats["ok_missing_output"] == 0 and stats["other"] == 0 and stats["exec_other"] == 0, stats
    assert stats["kernel_other"] == 0, stats
    assert stats["fields_hit"] == stats["fields"] > 100, stats  # every record field was mutated
    assert stats["TIGRIS_OK"] > 0.02 * stats["iterations"], stats  # the walk and the run ran often
    for code in ("BAD_RECORD", "BAD_SECTION", "BAD_CRC", "BAD_SIZE", "TOO_SMALL", "MISSING_SEC"):
        assert stats[f"TIGRIS_ERR_{code}"] > 0, (code, stats)
    assert stats["TIGRIS_ERR_BAD_RECORD"] > stats["TIGRIS_ERR_BAD_CRC"], stats  # past the checksum mostly
    for code in ("OK", "ERR_KERNEL", "ERR_MEM", "ERR_TILE"):  # the executor's paths, reached
        assert stats[f"TIGRIS_EXEC_{code}"] > 0, (code, stats)
    assert stats["TIGRIS_KERNEL_ERR_SHAPE"] > 0 and stats["TIGRIS_KERNEL_ERR_PARAMS"] > 0, stats
    assert stats["reduced_ok"] > 0, stats  # plans in reduction tiles ran to the end
    assert stats["tiled_2d_ok"] > 0, stats  # plans in 2-D tiles ran to the end


def test_fuzz_with_small_limits(corpus: list[Path], tmp_path: Path) -> None:
    stats = fuzz(corpus, 0.15 * SECONDS, tmp_path, SMALL_LIMITS)
    assert stats["TIGRIS_ERR_PLAN_LIMITS"] > 0 and stats["TIGRIS_OK"] > 0, stats
    assert stats["executed"] > 0 and stats["ok_missing_output"] == 0, stats


def test_libfuzzer_entry_points(corpus: list[Path]) -> None:
    """The same target as LLVMFuzzerTestOneInput (and the format-aware mutations as
    LLVMFuzzerCustomMutator), driven by fuzz_standalone.c: what a clang -fsanitize=fuzzer
    build runs (docs/runtime.md), built here with the CI's compiler."""
    exe = runtime_build.build(
        "fuzz_plan_libfuzzer", [*runtime_build.library_sources(), FUZZER, FUZZER.with_name("fuzz_standalone.c")],
        sanitize=True, extra_flags=("-DTIGRIS_LIBFUZZER",),
    )  # fmt: skip
    seeds = [p for p in corpus if p.stem in seed_plans()]
    env = {**os.environ, "TIGRIS_FUZZ_FIELDS": str(corpus[0].parent / "fields.txt")}
    result = subprocess.run([str(exe), "-m", "100", *map(str, seeds)], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 0 and result.stderr == "", result.stderr[-6000:]
    stats = {k: float(v) for k, v in (line.split() for line in result.stdout.splitlines())}
    assert stats["crc_fixed"] == 101 * len(seeds) and stats["executed"] > len(seeds), stats
    assert stats["ok_missing_output"] == 0 and stats["fields_hit"] > 0, stats


def test_reproducers(tmp_path: Path) -> None:
    """Every committed reproducer, loaded and run once under ASan + UBSan: the answer it must
    get (an error code naming the op and the kernel's reason, never OK with garbage)."""
    paths = write_corpus(tmp_path)
    result = subprocess.run([str(fuzzer()), "-r", *map(str, paths.values())], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr[-6000:]
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    for name, path in paths.items():
        got = dict(re.findall(r"(\w+)=(\S+)", lines[str(path)]))
        assert got["load"] == "TIGRIS_OK", (name, got)
        for key, want in CORPUS[name].expect.items():
            prefix = {"exec": "TIGRIS_EXEC_", "kernel": "TIGRIS_KERNEL_ERR_"}.get(key, "")
            assert got[key] in (want, prefix + want, "TIGRIS_EXEC_ERR_" + want), (name, key, got)


def test_reproducer_kernels_without_the_executor() -> None:
    """The kernel reproducers straight through the kernels (run_ops, ASan + UBSan): the same
    reasons; and the huge average-pool window gives its one tap / 65535^2 (count_include_pad)."""
    for name, rep in CORPUS.items():
        if rep.expect.get("exec") != "KERNEL":
            continue
        reason = {"SHAPE": "operand shapes inconsistent", "RANGE": "beyond the kernel's integer range"}
        with pytest.raises(RunOpsError, match=reason[rep.expect["kernel"]]) as info:
            run_plan_ops(rep.build(), [np.ones(read_plan(rep.build()).tensors[0].shape, np.float32)], sanitize=True)
        assert info.value.returncode == 3, (name, info.value)  # a kernel error, not a crash
    x = np.array([3.0, -6.0], np.float32).reshape(1, 2, 1, 1)
    (y,) = run_plan_ops(avg_pool_huge_window(), [x], sanitize=True)
    np.testing.assert_allclose(y, x / np.float32(65535.0 * 65535.0), rtol=1e-6)


def test_differential_against_the_python_reader(corpus: list[Path], tmp_path: Path) -> None:
    """Python-mutated files: the C loader returns the code the Python reader raises."""
    exe = runtime_build.build(
        "load_plan_asan", [*LOADER_SOURCES, ROOT / "runtime" / "tests" / "load_plan.c"], sanitize=True
    )
    rng = random.Random(SEED)
    bases = [p.read_bytes() for p in corpus if p.stat().st_size < 20000]
    count = max(300, int(30 * SECONDS))
    files, expected = [], []
    for i in range(count):
        data = rng.choice(bases)
        for _ in range(rng.choice((1, 1, 2, 3))):
            try:
                data = mutate(rng, data)
            except (ValueError, IndexError, struct.error):  # a mutation needs a sound section table
                break
        if len(data) >= 64 and rng.random() < 0.9:  # stacked mutations: fix size and CRC again
            data = data[:12] + struct.pack("<II", len(data), zlib.crc32(data[64:])) + data[20:]
        try:
            read_plan(data)
            code = "OK"
        except TgrsFormatError as e:
            code = e.code
        files.append(tmp_path / f"{i}.tgrs")
        files[-1].write_bytes(data)
        expected.append("TIGRIS_OK" if code == "OK" else f"TIGRIS_ERR_{code}")
    for start in range(0, count, 500):  # keep the command line short
        chunk = files[start : start + 500]
        result = subprocess.run([str(exe), *map(str, chunk)], check=False, capture_output=True, text=True)
        assert result.returncode == 0 and not result.stderr, result.stderr[-6000:]
        for path, got, want in zip(chunk, result.stdout.split(), expected[start : start + 500]):
            if got != want:
                data = path.read_bytes()
                assert (want, got) == ("TIGRIS_OK", "TIGRIS_ERR_BAD_RECORD") and lz4_zero_offset(data), (
                    f"{path}: the Python reader says {want}, the C loader {got}"
                )
    assert sum(e == "TIGRIS_OK" for e in expected) > 0.05 * count
    assert sum(e == "TIGRIS_ERR_BAD_RECORD" for e in expected) > 0.2 * count
