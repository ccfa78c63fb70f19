"""Fuzz the C loader (runtime/src/tigris_loader.c) under AddressSanitizer + UBSan.

`runtime/tests/fuzz_loader.c` mutates a seed corpus of real plans (the reader's fixture
plans and zoo models compiled raw, LZ4 and XIP), usually fixing file_size and the CRC
afterwards so the mutations reach the record checks, loads each input from a heap block
of exactly its size, and on TIGRIS_OK walks every accessor of tigris.h over every tensor,
op, stage, table and weight, decompressing the LZ4 blocks. Any out-of-bounds read is a
sanitizer report (the input is saved as fuzz-crash.tgrs in the test's tmp dir). A second
run uses tiny -DTIGRIS_MAX_* limits so the PLAN_LIMITS checks are fuzzed too. Then a
differential run loads Python-mutated files with both the C loader and the Python reader:
the codes must be equal (but for LZ4 offset-0 matches, see tgrs_corruptions.py).

The normal suite spends about 10 s here. For a long run (the time is split the same way):

    TIGRIS_FUZZ_SECONDS=600 python -m pytest test/python/test_runtime_fuzz.py -s

`TIGRIS_FUZZ_SEED` picks another PRNG seed (default 1); `-s` shows the iteration counts.
"""

from __future__ import annotations

import os
import random
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from tgrs_corruptions import FILES, lz4_zero_offset, mutate  # test/support
from tgrs_zoo import zoo_plan  # test/support
from tigris.emit.tgrs import TgrsFormatError, read_plan
from tigris.tools import runtime_build

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "runtime" / "src"
SOURCES = [SRC / "tigris_loader.c", SRC / "tigris_lz4.c", SRC / "tigris_crc32.c"]
SECONDS = float(os.environ.get("TIGRIS_FUZZ_SECONDS", "10"))
SEED = int(os.environ.get("TIGRIS_FUZZ_SEED", "1"))
ZOO_SEEDS = (  # small plans (the CRC of every input dominates a big one): (model, variant)
    ("conv1d_int8", "lz4"),
    ("dense_autoencoder_int8", "none"),
    ("silu_ops_int8", "xip"),
    ("pytorch_idioms_int8", "lz4"),
    ("unet_int8", "lz4"),
    ("conv1d", "none"),
)
SMALL_LIMITS = ("-DTIGRIS_MAX_BANDS=3", "-DTIGRIS_MAX_SLOW_ALLOCS=2", "-DTIGRIS_MAX_FAST_ALLOCS=1")


@pytest.fixture(scope="module")
def corpus(model_zoo: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("fuzz_corpus")
    plans = dict(FILES)
    plans.update({f"{key}_{variant}": zoo_plan(model_zoo[key], 8192, variant) for key, variant in ZOO_SEEDS})
    paths = []
    for name, data in plans.items():
        paths.append(folder / f"{name}.tgrs")
        paths[-1].write_bytes(data)
    return paths


def fuzz(corpus: list[Path], seconds: float, tmp: Path, flags: tuple[str, ...] = ()) -> dict[str, float]:
    exe = runtime_build.build(
        "fuzz_loader" + ("_limits" if flags else ""), [*SOURCES, ROOT / "runtime" / "tests" / "fuzz_loader.c"],
        sanitize=True, extra_flags=flags,
    )  # fmt: skip
    crash = tmp / "fuzz-crash.tgrs"
    cmd = [str(exe), "-t", f"{seconds:.2f}", "-s", str(SEED), "-o", str(crash), *map(str, corpus)]
    result = subprocess.run(cmd, check=False, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(cmd)}\nexit {result.returncode}\n{result.stderr[-6000:]}"
    stats = {k: float(v) for k, v in (line.split() for line in result.stdout.splitlines())}
    print(f"\nfuzz_loader {' '.join(flags)}: " + ", ".join(f"{k} {v:g}" for k, v in stats.items() if v))
    return stats


def test_fuzz_loader(corpus: list[Path], tmp_path: Path) -> None:
    stats = fuzz(corpus, 0.6 * SECONDS, tmp_path)
    assert stats["iterations"] >= 500, stats
    assert stats["TIGRIS_OK"] > 0.02 * stats["iterations"], stats  # the walk ran often
    for code in ("BAD_RECORD", "BAD_SECTION", "BAD_CRC", "BAD_SIZE", "TOO_SMALL", "MISSING_SEC"):
        assert stats[f"TIGRIS_ERR_{code}"] > 0, (code, stats)
    assert stats["TIGRIS_ERR_BAD_RECORD"] > stats["TIGRIS_ERR_BAD_CRC"], stats  # past the checksum mostly
    assert stats["other"] == 0


def test_fuzz_loader_with_small_limits(corpus: list[Path], tmp_path: Path) -> None:
    stats = fuzz(corpus, 0.2 * SECONDS, tmp_path, SMALL_LIMITS)
    assert stats["TIGRIS_ERR_PLAN_LIMITS"] > 0 and stats["TIGRIS_OK"] > 0, stats


def test_differential_against_the_python_reader(corpus: list[Path], tmp_path: Path) -> None:
    """Python-mutated files: the C loader returns the code the Python reader raises."""
    exe = runtime_build.build(
        "load_plan_asan", [*SOURCES, ROOT / "runtime" / "tests" / "load_plan.c"], sanitize=True
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
