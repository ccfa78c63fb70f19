"""fold-constants: every compile-time constant becomes a `tgr.weight`.

- `onnx.Constant` (value, value_float(s), value_int(s)) -> `tgr.weight`;
- Identity and inference-mode Dropout disappear (a Dropout mask becomes an all-true weight);
- any other op the shared rule (`tigris.dialects.onnx.folding`) can evaluate is evaluated
  by the reference interpreter: ops whose operands are all constant (ConstantOfShape, Cast,
  Unsqueeze, Gather, Slice, Concat, Range, Where, arithmetic, ...) and Shape/Size of a
  statically shaped tensor. Folding thus has exactly the semantics the tests check against
  onnxruntime, and the importer computes the values it needs for typing the same way.

DequantizeLinear is never folded: fold-qdq needs its int8 input to keep weights int8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array, constant_scalar, onnx_constant_array
from tigris.dialects.onnx.folding import Evaluator, compile_time_args
from tigris.dialects.onnx.ops_nn import DropoutOp
from tigris.dialects.onnx.ops_tensor import ConstantOp, IdentityOp
from tigris.dialects.tgr.weight import WeightOp, make_weight
from tigris.transforms.rewriting import apply_patterns, carry_name, fail, node_name


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
            if op.mask is None:
                rewriter.replace(op, [], [op.data])
                return
            mask = _weight_for(op, np.ones(op.mask.type.get_shape(), np.bool_), 1)  # type: ignore[union-attr]
            rewriter.replace(op, [mask], [op.data, mask.output])


class EvaluateConstantOp(RewritePattern):
    """An op the shared folding rule can evaluate, evaluated once at compile time."""

    def __init__(self, module: ModuleOp) -> None:
        self.evaluate = Evaluator(module)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        args = compile_time_args(op, constant_array)
        if args is None:
            return
        results = self.evaluate(op, args)
        rewriter.replace(op, [_weight_for(op, r, i) for i, r in enumerate(results)])


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    name = "fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with np.errstate(all="ignore"):
            apply_patterns(op, ConstantToWeight(), DropIdentity(), EvaluateConstantOp(op))
