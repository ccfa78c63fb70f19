"""The `tigris` CLI entry point (subcommands arrive with their issues)."""

from __future__ import annotations

import subprocess


def test_version_names_the_package() -> None:
    out = subprocess.run(["tigris", "--version"], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "tigris 0.1.0"


def test_help_has_an_example() -> None:
    out = subprocess.run(["tigris", "--help"], check=True, capture_output=True, text=True).stdout
    assert "examples:" in out and "tigris-opt model.onnx" in out


def test_unknown_option_is_a_usage_error() -> None:
    proc = subprocess.run(["tigris", "--bogus"], capture_output=True, text=True)
    assert proc.returncode == 1 and "unrecognized arguments: --bogus" in proc.stderr  # 1, as every user error
    assert "Traceback" not in proc.stderr
