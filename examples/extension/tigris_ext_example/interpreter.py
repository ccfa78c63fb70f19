"""ext.hard_sigmoid for TiGrIS's reference interpreter (`tigris-opt --interpret`, run_module).

Values are numpy arrays; the arithmetic is float32, as in the C kernel: alpha * x rounded,
plus beta rounded, then clamped to [0, 1].
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from tigris_ext_example.dialect import HardSigmoidOp


@register_impls
class ExtFunctions(InterpreterFunctions):
    @impl(HardSigmoidOp)
    def run_hard_sigmoid(
        self, interpreter: Interpreter, op: HardSigmoidOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        x = np.asarray(args[0], dtype=np.float32)
        alpha, beta = np.float32(op.alpha.value.data), np.float32(op.beta.value.data)
        return (np.minimum(np.maximum(alpha * x + beta, np.float32(0)), np.float32(1)),)
