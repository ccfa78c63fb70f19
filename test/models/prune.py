"""Magnitude pruning of a built model: the kind of weights LZ4 weight compression is for.

Why: MCU deployment flows prune a trained network's smallest weights to zero, layer by layer, and
runs of zeros are what LZ4 finds; the builders' seeded He-normal weights are incompressible noise.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper


def magnitude_prune(model: onnx.ModelProto, fraction: float) -> onnx.ModelProto:
    """A copy of ``model`` with ``fraction`` of each conv and dense weight (every float initializer
    of rank >= 2) set to zero, smallest magnitudes first (ties by position: reproducible)."""
    pruned = onnx.ModelProto()
    pruned.CopyFrom(model)
    for init in pruned.graph.initializer:
        w = numpy_helper.to_array(init)
        if w.ndim < 2 or w.dtype.kind != "f":
            continue
        w = w.copy()
        w.flat[np.argsort(np.abs(w), axis=None, kind="stable")[: int(fraction * w.size)]] = 0
        init.CopyFrom(numpy_helper.from_array(w, init.name))
    return pruned
