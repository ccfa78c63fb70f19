"""The benchmarks in bench/ are scripts, not tests; this runs each on one small model and
budget so a change to the report or the zoo cannot silently break it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_plan_quality_prints_a_row(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "plan_quality.py"), "--models", "conv1d", "--budgets", "64K", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    header, row, wrote = proc.stdout.splitlines()
    assert header.split()[:3] == ["model", "budget", "verdict"]
    assert row.split()[:4] == ["conv1d", "64.0", "KiB", "fits"]
    assert wrote == f"wrote {tmp_path / 'plan_quality.json'}"
    rows = json.loads((tmp_path / "plan_quality.json").read_text())["rows"]
    assert [(r["model"], r["budget_bytes"], r["traffic_io_ratio"]) for r in rows] == [("conv1d", 65536, 1.0)]


def test_runtime_speed_prints_a_row(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "runtime_speed.py"), "--models", "conv1d", "--repeat", "1", "--no-upstream",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    header, row, geo_mean = proc.stdout.splitlines()
    assert geo_mean.startswith("geo-mean float (1 models): ours / onnxruntime ")
    assert header.split() == ["model", "stages", "load", "ms", "tigris", "ms", "onnxruntime", "ms", "ratio"]
    assert row.split()[:2] == ["conv1d", "1"]
    (result,) = json.loads((tmp_path / "runtime_speed.json").read_text())
    assert result["model"] == "conv1d" and result["tigris_ms"] > 0 and result["onnxruntime_ms"] > 0
    assert result["load_ms"] > 0


def test_compile_time_prints_whole_process_and_phases(tmp_path: Path) -> None:
    """One model, one run: the whole-process rows (ours only: the upstream is optional) and
    the in-process phase row; figures are printed, never asserted."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / "compile_time.py"), "--models", "conv1d", "--budget", "64K", "--densenet", "",
         "--repeat", "1", "--no-upstream", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split()[:2] for line in lines if line.startswith("  conv1d ")][:2] == [["conv1d", "compile"], ["conv1d", "analyze"]]
    document = json.loads((tmp_path / "compile_time.json").read_text())
    assert [(r["model"], r["command"]) for r in document["whole_process"]] == [("conv1d", "compile"), ("conv1d", "analyze")]
    assert all(isinstance(r["ours"], float) and r["ours"] > 0 for r in document["whole_process"])
    (model,) = document["models"]
    assert model["model"] == "conv1d" and set(model["seconds"]) >= {"import", "normalize", "plan", "lower", "verify", "emit"}
    assert document["startup"]["startup"] > 0


def test_min_budget_prints_ours_without_the_upstream(tmp_path: Path) -> None:
    """Without the upstream CLI only our column: the minimum `tigris analyze` reports."""
    env = {k: v for k, v in os.environ.items() if k != "TIGRIS_UPSTREAM"}
    proc = subprocess.run(
        [sys.executable, str(BENCH / "min_budget.py"), "--models", "conv1d_int8", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()[:2]
    assert header.split()[:3] == ["model", "ours", "(B)"]
    result = json.loads((tmp_path / "min_budget.json").read_text())["conv1d_int8"]
    assert result["upstream"] is None and row.split()[:4] == ["conv1d_int8", f"{result['ours']:,}", "-", "-"]


def test_sram_only_prints_a_row(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "sram_only.py"), "--models", "conv1d_int8", "--skip-mbv2-144", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    title, header, row = proc.stdout.splitlines()
    assert title.startswith("smallest SRAM-only budget (-m T+0) per model")
    assert header.split()[:4] == ["model", "T", "arena", "between"]
    result = json.loads((tmp_path / "sram_only.json").read_text())["conv1d_int8"]
    # the total is the arena plus what is passed between stages, and never below the arena alone
    assert result["total"] == result["arena"] + result["between"] >= result["with_psram"]
    assert row.split()[0] == "conv1d_int8" and float(row.split()[1]) == round(result["total"] / 1024, 1)
