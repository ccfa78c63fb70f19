"""Each normalization pass preserves semantics, measured: after EVERY pass of
tigris-normalize, the reference interpreter's output equals onnxruntime's on the
original ONNX model (float: within 1e-4 relative to max |output|)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr
from xdsl.dialects.func import FuncOp

from tigris.dialects.interpreter import run_module
from tigris.dialects.onnx.importer import import_model_file
from tigris.transforms import get_all_passes
from tigris.transforms.pipelines import NORMALIZE

FLOAT_MODELS = [
    "mobilenet_v2", "resnet", "unet", "yolo", "conv1d", "dense_autoencoder", "pytorch_idioms", "silu_ops",
]  # fmt: skip


def onnx_layout(module, outputs: list[np.ndarray]) -> list[np.ndarray]:
    """Undo trim-output-transpose: apply each output's recorded permutation."""
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    restored = []
    for index, value in enumerate(outputs):
        attrs = func.res_attrs.data[index] if func.res_attrs else DictionaryAttr({})
        perm = attrs.data.get("tgr.output_perm")
        restored.append(np.transpose(value, [int(p) for p in perm.get_values()]) if isinstance(perm, DenseArrayBase) else value)
    return restored


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_every_pass_preserves_float_semantics(name: str, model_zoo: dict[str, Path], run_onnxruntime, random_inputs) -> None:
    path = model_zoo[name]
    feeds = random_inputs(path, 3)
    expected = run_onnxruntime(path, feeds)
    module = import_model_file(path)
    inputs = list(feeds.values())
    registry = get_all_passes()
    ctx = Context()
    for pass_name in ("import", *NORMALIZE):
        if pass_name != "import":
            registry[pass_name]()().apply(ctx, module)
            module.verify()
        got = onnx_layout(module, run_module(module, inputs))
        for want, have in zip(expected, got, strict=True):
            scale = float(np.max(np.abs(want))) or 1.0
            error = float(np.max(np.abs(want - have))) / scale
            assert error <= 1e-4, f"{name}: after {pass_name}, relative error {error:.2e}"
    assert all(op.name.startswith(("tgr.", "func.", "builtin.")) for op in module.walk())
