"""Shared pytest fixtures: the test-model zoo (built once) and ORT helpers.

``test/models`` and ``test/support`` are plain folders (no packages, --import-mode=importlib),
so they are put on ``sys.path`` here; heavy imports stay inside the fixtures.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

MODELS_DIR = Path(__file__).resolve().parent / "models"
SUPPORT_DIR = Path(__file__).resolve().parent / "support"
for _folder in (MODELS_DIR, SUPPORT_DIR):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))


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
