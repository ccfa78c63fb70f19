"""ext.thresholded_relu for TiGrIS's reference interpreter (`tigris-opt --interpret`, run_module).

Values are numpy arrays; the comparison is in float32, as in the C kernel: x where x > alpha,
else 0 (so NaN, which is not greater than alpha, gives 0, as in onnxruntime).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from tigris_ext_example.dialect import ThresholdedReluOp


@register_impls
class ExtFunctions(InterpreterFunctions):
    @impl(ThresholdedReluOp)
    def run_thresholded_relu(
        self, interpreter: Interpreter, op: ThresholdedReluOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x = np.asarray(args[0], dtype=np.float32)
        alpha = np.float32(op.alpha.value.data)
        return (np.where(x > alpha, x, np.float32(0)),)
