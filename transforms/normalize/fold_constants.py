"""fold-constants: every compile-time constant becomes a `tgr.weight`.

- `onnx.Constant` (value, value_float(s), value_int(s)) -> `tgr.weight`;
- Identity and inference-mode Dropout disappear;
- Shape of a statically shaped tensor is its dims;
- any other op whose inputs are all constant (ConstantOfShape, Cast, Unsqueeze,
  Gather, Slice, Concat, arithmetic, ...) is evaluated by the reference interpreter,
  so folding has exactly the semantics the tests check against onnxruntime.

DequantizeLinear is never folded: fold-qdq needs its int8 input to keep weights int8.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import Pure

from tigris.dialects.constants import constant_array, constant_scalar, onnx_constant_array
from tigris.dialects.onnx.ops_nn import DropoutOp
from tigris.dialects.onnx.ops_quant import DequantizeLinearOp
from tigris.dialects.onnx.ops_tensor import ConstantOp, IdentityOp, ShapeOp
from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.weight import WeightOp, make_weight
from tigris.transforms.rewriting import apply_patterns, carry_name, fail, node_name

if TYPE_CHECKING:
    from xdsl.interpreter import Interpreter


def _weight_for(op: Operation, array: np.ndarray, index: int = 0) -> WeightOp:
    result = op.results[index]
    assert isinstance(result.type, TensorType)
    name = node_name(op) if len(op.results) == 1 else f"{node_name(op)}.{index}"
    weight = carry_name(op, make_weight(np.asarray(array).reshape(result.type.get_shape()), result.type, name))
    weight.output.name_hint = result.name_hint
    return weight  # type: ignore[return-value]


class ConstantToWeight(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstantOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, _weight_for(op, onnx_constant_array(op)))


class DropIdentity(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, IdentityOp):
            rewriter.replace(op, [], [op.input])
        elif isinstance(op, DropoutOp):
            if op.training_mode is not None and constant_scalar(op.training_mode) != 0:
                raise fail(op, "Dropout in training mode cannot be compiled for inference")
            rewriter.replace(op, [], [op.data])


class StaticShape(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ShapeOp, rewriter: PatternRewriter) -> None:
        dims = list(shape_of(op.data))
        end = op.end.value.data if op.end is not None else len(dims)
        rewriter.replace(op, _weight_for(op, np.array(dims[op.start.value.data : end], np.int64)))


class EvaluateConstantOp(RewritePattern):
    """Any pure op on constants only, evaluated once at compile time."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self._interpreter: Interpreter | None = None

    def evaluate(self, op: Operation, args: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        """Interpreter set up on first use: most models have nothing left to evaluate."""
        if self._interpreter is None:
            from tigris.dialects.interpreter import make_interpreter

            self._interpreter = make_interpreter(self.module)
        return tuple(self._interpreter.run_op(op, args))

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, WeightOp | DequantizeLinearOp) or not op.operands or not op.has_trait(Pure):
            return
        args = [constant_array(v) for v in op.operands]
        if any(a is None for a in args):
            return
        results = self.evaluate(op, tuple(a for a in args if a is not None))
        rewriter.replace(op, [_weight_for(op, r, i) for i, r in enumerate(results)])


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    name = "fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with np.errstate(all="ignore"):
            apply_patterns(op, ConstantToWeight(), DropIdentity(), StaticShape(), EvaluateConstantOp(op))
