"""The test-model zoo, built for a benchmark run into a temporary folder.

Why here and not a copy: the benchmarks measure the same models the tests check
(test/models/zoo.py, deterministic builders, int8 through onnxruntime's quantizer),
so a figure in a benchmark table can be reproduced by a test and vice versa.
`test/models` is a plain folder of scripts, so it goes on `sys.path`; its
`GraphBuilder` is re-exported for the benchmarks' own graphs.
"""

from __future__ import annotations

import sys
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent.parent / "test" / "models"
if str(MODELS_DIR) not in sys.path:
    sys.path.insert(0, str(MODELS_DIR))

import zoo  # noqa: E402  (test/models is on the path only now)
from graph_builder import GraphBuilder  # noqa: E402

__all__ = ["GraphBuilder", "build_models", "model_keys"]


def model_keys(int8: bool = True) -> list[str]:
    """Every zoo model, each float one followed by its int8 QDQ variant."""
    return [key for name in zoo.FLOAT_MODELS for key in (name, zoo.int8_name(name)) if int8 or key == name]


def build_models(keys: list[str], out_dir: Path) -> dict[str, Path]:
    """Write the models named by `keys` (`resnet`, `resnet_int8`, ...) and return key -> path;
    an unknown key raises KeyError naming the known ones."""
    unknown = [k for k in keys if k not in model_keys()]
    if unknown:
        raise KeyError(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(model_keys())}")
    bases = list(dict.fromkeys(k.removesuffix("_int8") for k in keys))
    int8 = any(k.endswith("_int8") for k in keys)
    paths = zoo.build_zoo(out_dir, bases, float_only=not int8)
    return {k: paths[k] for k in keys}
