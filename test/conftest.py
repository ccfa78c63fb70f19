"""Shared pytest fixtures: the test-model zoo (built once) and ORT helpers.

``test/models`` is a plain folder (no packages, --import-mode=importlib), so it
is put on ``sys.path`` here; heavy imports stay inside the fixtures.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

MODELS_DIR = Path(__file__).resolve().parent / "models"
if str(MODELS_DIR) not in sys.path:
    sys.path.insert(0, str(MODELS_DIR))


@pytest.fixture(scope="session")
def model_zoo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every float model and its ``_int8`` QDQ version, built once per session."""
    import zoo

    return zoo.build_zoo(tmp_path_factory.mktemp("model_zoo"))


@pytest.fixture(scope="session")
def run_onnxruntime() -> Callable[[Path, dict[str, np.ndarray]], list[np.ndarray]]:
    """``run_onnxruntime(path, inputs) -> outputs`` on the CPU provider."""
    import ort_helpers

    return ort_helpers.run_onnxruntime


@pytest.fixture(scope="session")
def random_inputs() -> Callable[[Path, int], dict[str, np.ndarray]]:
    """``random_inputs(path, seed) -> {input name: float32 array}``."""
    import ort_helpers

    return ort_helpers.random_inputs
