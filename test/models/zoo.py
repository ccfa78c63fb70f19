"""Registry of the float test models and a one-call builder for the zoo.

Why: tests, the CLI and examples all need the same names and defaults; the
int8 QDQ variant of every model is written next to it as ``<name>_int8.onnx``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import onnx

from architectures import (
    build_efficientnet, build_mnasnet, build_mobilenet_v3, build_shufflenet_v2, build_squeezenet,
)  # fmt: skip
from conv1d import build_conv1d
from dense_autoencoder import build_dense_autoencoder
from keras_models import (
    build_ds_cnn, build_keras_mobilenet_v1, build_keras_mobilenet_v2, build_resnet8, float_nodes,
)  # fmt: skip
from mobilenet_v2 import build_mobilenet_v2
from pytorch_idioms import build_pytorch_idioms, build_silu_ops
from quantize import quantize_int8
from resnet import build_resnet
from unet import build_unet
from yolo import build_yolo


def default_mobilenet(resolution: int = 96, prune: float = 0.0) -> onnx.ModelProto:
    """Zoo MobileNetV2: width 0.35, 10 classes — small enough to test quickly; ``prune``: see
    ``build_mobilenet_v2``."""
    return build_mobilenet_v2(resolution=resolution, width=0.35, num_classes=10, prune=prune)


FLOAT_MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "mobilenet_v2": default_mobilenet,
    "resnet": build_resnet,
    "unet": build_unet,
    "yolo": build_yolo,
    "conv1d": build_conv1d,
    "dense_autoencoder": build_dense_autoencoder,
    "pytorch_idioms": build_pytorch_idioms,
    "silu_ops": build_silu_ops,
    # Keras models as tf2onnx exports them: channels-last inputs, layout transposes
    "keras_mobilenet_v1": build_keras_mobilenet_v1,
    "keras_mobilenet_v2": build_keras_mobilenet_v2,
    "ds_cnn": build_ds_cnn,
    "resnet8": build_resnet8,
    # the classifier families of issue G1, as PyTorch exports them (architectures.py)
    "mobilenet_v3": build_mobilenet_v3,
    "shufflenet_v2": build_shufflenet_v2,
    "efficientnet": build_efficientnet,
    "squeezenet": build_squeezenet,
    "mnasnet": build_mnasnet,
}

KERAS_MODELS: frozenset[str] = frozenset({"keras_mobilenet_v1", "keras_mobilenet_v2", "ds_cnn", "resnet8"})
"""Their int8 versions keep `keras_models.float_nodes` in float (see keras_models.py)."""

# Models whose int8 version must use per-tensor weights (none so far).
PER_TENSOR_MODELS: frozenset[str] = frozenset()


def int8_name(name: str) -> str:
    return f"{name}_int8"


def build_zoo(out_dir: Path, names: list[str] | None = None,
              float_only: bool = False) -> dict[str, Path]:
    """Write ``<name>.onnx`` and ``<name>_int8.onnx``; return key -> path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    unknown = set(names or ()) - FLOAT_MODELS.keys()
    if unknown:
        raise KeyError(f"unknown model(s): {sorted(unknown)}; known: {sorted(FLOAT_MODELS)}")
    paths: dict[str, Path] = {}
    for name in names or list(FLOAT_MODELS):
        model = FLOAT_MODELS[name]()
        paths[name] = save(model, out_dir / f"{name}.onnx")
        if not float_only:
            exclude = float_nodes(model) if name in KERAS_MODELS else []
            qmodel = quantize_int8(model, per_channel=name not in PER_TENSOR_MODELS, exclude=exclude)
            paths[int8_name(name)] = save(qmodel, out_dir / f"{int8_name(name)}.onnx")
    return paths


def save(model: onnx.ModelProto, path: Path) -> Path:
    """Serialize deterministically (single file, no external data)."""
    path.write_bytes(model.SerializeToString(deterministic=True))
    return path
