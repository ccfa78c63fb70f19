"""Evaluating ops at compile time: the one rule the importer and `fold-constants` share.

The importer needs the values of small constant subgraphs (a Reshape's target computed by
Concat(Unsqueeze(Constant)), a Resize's `sizes`) to infer the types of the ops they feed;
`fold-constants` later replaces every such subgraph by weights. Both ask `compile_time_args`
whether an op can be evaluated and run it with `Evaluator`, i.e. with the reference
interpreter, so a value folded at compile time is exactly the value the interpreter (tested
against onnxruntime) computes at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.traits import Pure

from tigris.dialects.onnx.ops_quant import DequantizeLinearOp
from tigris.dialects.onnx.ops_tensor import ShapeOp, SizeOp
from tigris.dialects.tgr.weight import numpy_dtype

if TYPE_CHECKING:
    from xdsl.interpreter import Interpreter

READS_SHAPE_ONLY = (ShapeOp, SizeOp)
"""Ops whose result depends on their input's type only: foldable whenever that type is static."""


def foldable(op: Operation) -> bool:
    """A pure op with operands. DequantizeLinear never folds: fold-qdq needs its int8 input to
    keep weights int8."""
    return bool(op.operands) and op.has_trait(Pure) and not isinstance(op, DequantizeLinearOp)


def compile_time_args(
    op: Operation, value_of: Callable[[SSAValue], np.ndarray | None]
) -> tuple[np.ndarray, ...] | None:
    """The operand values to evaluate `op` with at compile time, or None if it cannot be.

    `value_of` gives a constant operand's value (None: not constant). Shape and Size get a
    zero-strided placeholder of their input's type: no data is read, none is allocated."""
    if not foldable(op):
        return None
    if isinstance(op, READS_SHAPE_ONLY):
        type_ = op.operands[0].type
        assert isinstance(type_, TensorType)
        placeholder = np.broadcast_to(np.zeros((), numpy_dtype(type_.element_type)), type_.get_shape())
        return (placeholder,)
    args = [value_of(v) for v in op.operands]
    if any(a is None for a in args):
        return None
    return tuple(a for a in args if a is not None)


class Evaluator:
    """Runs one op on numpy values with the reference interpreter (set up on first use: most
    modules have nothing to evaluate)."""

    def __init__(self, module: ModuleOp | None = None) -> None:
        self._module = module
        self._interpreter: Interpreter | None = None

    def __call__(self, op: Operation, args: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        if self._interpreter is None:
            from tigris.dialects.interpreter import make_interpreter

            self._interpreter = make_interpreter(self._module or ModuleOp([]))
        with np.errstate(all="ignore"):
            return tuple(np.asarray(r) for r in self._interpreter.run_op(op, args))
