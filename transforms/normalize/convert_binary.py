"""convert-onnx-to-tgr patterns of PRelu, variadic Max/Min/Mean, and Gemm of two activations.

- PRelu(X, slope) -> tgr.prelu (the slope an operand, broadcast to X; an opset 6 slope of C
  values per channel is unsqueezed to [C, 1, ...]).
- Max/Min of n inputs -> a chain of n-1 binary tgr.max/tgr.min (one input: the input itself),
  as Sum becomes a chain of adds.
- Mean of n inputs -> the chain of adds, then tgr.mul by float32(1/n) (one input: itself).
- Gemm whose B is not a constant weight -> tgr.matmul, with tgr.transpose for transA/transB,
  tgr.mul by alpha / beta where they are not 1, and tgr.add of C. A constant B is a
  fully_connected layer: ConvertGemm's, left alone here.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, TensorType, f32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array
from tigris.dialects.onnx import ops_binary as ob
from tigris.dialects.onnx import ops_nn as on
from tigris.dialects.shapes import broadcast, shape_of
from tigris.dialects.tgr import ops_binary as tb
from tigris.dialects.tgr import ops_elementwise as te
from tigris.dialects.tgr import ops_shape as ts
from tigris.dialects.tgr import ops_window as tw
from tigris.dialects.tgr.weight import make_weight
from tigris.transforms.normalize.weights import is_constant_weight
from tigris.transforms.rewriting import carry_name, fail, node_name


def _element(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def _chain(
    op: Operation, target: type[IRDLOperation], values: list[SSAValue], element: Attribute
) -> tuple[list[Operation], SSAValue]:
    """values[0] target values[1] target ... left to right: the new ops and the last value."""
    new_ops: list[Operation] = []
    acc = values[0]
    for value in values[1:]:
        partial = TensorType(element, broadcast(shape_of(acc), shape_of(value)))
        step = carry_name(op, target.build(operands=[acc, value], result_types=[partial]))
        new_ops.append(step)
        acc = step.results[0]
    return new_ops, acc


def _scaled(op: Operation, value: SSAValue, factor: float, what: str) -> tuple[list[Operation], SSAValue]:
    """value * float32(factor) as a tgr.mul by a one-element constant (nothing when factor is 1)."""
    if factor == 1.0:
        return [], value
    rank = len(shape_of(value))
    const = make_weight(np.full((1,) * rank, factor, np.float32), TensorType(f32, [1] * rank), f"{node_name(op)}.{what}")
    mul = carry_name(op, te.MulOp.build(operands=[value, const.output], result_types=[value.type]))
    return [const, mul], mul.results[0]


class ConvertPRelu(RewritePattern):
    """PRelu -> tgr.prelu; an opset 6 per-channel slope [C] is unsqueezed to [C, 1, ...] first."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ob.PReluOp, rewriter: PatternRewriter) -> None:
        new_ops: list[Operation] = []
        slope = op.slope
        if op.legacy_channel_slope():
            rank = len(shape_of(op.X))
            (channels,) = shape_of(slope)
            unsqueeze = ts.UnsqueezeOp.build(
                operands=[slope],
                result_types=[TensorType(_element(slope), [channels] + [1] * (rank - 2))],
                properties={"axes": DenseArrayBase.from_list(i64, list(range(1, rank - 1)))},
            )
            new_ops.append(carry_name(op, unsqueeze))
            slope = unsqueeze.results[0]
        new = tb.PReluOp.build(operands=[op.X, slope], result_types=[op.Y.type])
        rewriter.replace(op, [*new_ops, carry_name(op, new)])


class ConvertMaxMin(RewritePattern):
    """Max/Min of n inputs -> n-1 binary tgr.max/tgr.min."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ob.MaxOp | ob.MinOp):
            return
        target: type[IRDLOperation] = tb.MaxOp if isinstance(op, ob.MaxOp) else tb.MinOp
        new_ops, acc = _chain(op, target, list(op.data_0), _element(op.results[0]))
        rewriter.replace(op, new_ops, [acc])


class ConvertMean(RewritePattern):
    """Mean of n inputs -> (x1 + ... + xn) * float32(1/n)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ob.MeanOp, rewriter: PatternRewriter) -> None:
        values = list(op.data_0)
        add_ops, total = _chain(op, te.AddOp, values, _element(op.mean))
        mul_ops, mean = _scaled(op, total, float(np.float32(1.0) / np.float32(len(values))), "inv_count")
        rewriter.replace(op, [*add_ops, *mul_ops], [mean])


def _transposed(op: Operation, value: SSAValue) -> tuple[list[Operation], SSAValue]:
    a, b = shape_of(value)
    new = ts.TransposeOp.build(
        operands=[value],
        result_types=[TensorType(_element(value), [b, a])],
        properties={"perm": DenseArrayBase.from_list(i64, [1, 0])},
    )
    return [carry_name(op, new)], new.results[0]


class ConvertGemmOfActivations(RewritePattern):
    """Gemm with B an activation: alpha * op(A) @ op(B) + beta * C as matmul, mul, add."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.GemmOp, rewriter: PatternRewriter) -> None:
        if is_constant_weight(op.B):
            return  # a fully_connected layer (ConvertGemm)
        if len(shape_of(op.A)) != 2 or len(shape_of(op.B)) != 2:
            raise fail(op, "Gemm needs 2-D A and B")
        new_ops: list[Operation] = []
        a, b = op.A, op.B
        if op.transA.value.data:
            ops, a = _transposed(op, a)
            new_ops += ops
        if op.transB.value.data:
            ops, b = _transposed(op, b)
            new_ops += ops
        y_type = TensorType(_element(op.Y), [shape_of(a)[0], shape_of(b)[1]])
        matmul = carry_name(op, tw.MatMulOp.build(operands=[a, b], result_types=[y_type]))
        new_ops.append(matmul)
        ops, y = _scaled(op, matmul.results[0], op.alpha.value.data, "alpha")
        new_ops += ops
        if op.C is not None:
            ops, c = _bias(op, op.C, op.beta.value.data)
            add = carry_name(op, te.AddOp.build(operands=[y, c], result_types=[op.Y.type]))
            new_ops += [*ops, add]
            y = add.results[0]
        rewriter.replace(op, new_ops, [y])


def _bias(op: on.GemmOp, c: SSAValue, beta: float) -> tuple[list[Operation], SSAValue]:
    """beta * C: folded into a constant C, else a tgr.mul."""
    if beta == 1.0:
        return [], c
    array = constant_array(c)
    if array is None:
        return _scaled(op, c, beta, "beta")
    scaled = (array.astype(np.float32) * np.float32(beta)).astype(np.float32)
    weight = make_weight(scaled, TensorType(f32, list(array.shape)), f"{node_name(op)}.beta_c")
    return [weight], weight.output
