"""The `ext` ops for TiGrIS's reference interpreter (`tigris-opt --interpret`, run_module).

Values are numpy arrays, computed in float32 as the C kernels compute them.
- ext.thresholded_relu: x where x > alpha, else 0 (so NaN, which is not greater than alpha,
  gives 0, as in onnxruntime).
- ext.lp_pool: per window, the sum of |x|^p over its taps inside the map (padding reads 0, which
  adds nothing) in kernel-row then kernel-column order, then its p-th root.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from tigris.dialects.shapes import ints
from tigris_ext_example.dialect import LpPoolOp, ThresholdedReluOp


def lp_pool(x: np.ndarray, op: LpPoolOp) -> np.ndarray:
    """ext.lp_pool of an [N, C, H, W] float32 array."""
    kh, kw = ints(op, "kernel_shape") or [1, 1]
    sh, sw = ints(op, "strides") or [1, 1]
    dh, dw = ints(op, "dilations") or [1, 1]
    top, left, bottom, right = ints(op, "pads") or [0, 0, 0, 0]
    p = op.p.value.data
    padded = np.pad(np.abs(x.astype(np.float32)), ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh = (padded.shape[2] - (dh * (kh - 1) + 1)) // sh + 1
    ow = (padded.shape[3] - (dw * (kw - 1) + 1)) // sw + 1
    acc = np.zeros((x.shape[0], x.shape[1], oh, ow), np.float32)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            cols = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
            tap = padded[:, :, rows, cols]
            acc += tap if p == 1 else tap * tap
    return acc if p == 1 else np.sqrt(acc)


@register_impls
class ExtFunctions(InterpreterFunctions):
    @impl(ThresholdedReluOp)
    def run_thresholded_relu(
        self, interpreter: Interpreter, op: ThresholdedReluOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x = np.asarray(args[0], dtype=np.float32)
        alpha = np.float32(op.alpha.value.data)
        return (np.where(x > alpha, x, np.float32(0)),)

    @impl(LpPoolOp)
    def run_lp_pool(self, interpreter: Interpreter, op: LpPoolOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (lp_pool(np.asarray(args[0], dtype=np.float32), op),)
