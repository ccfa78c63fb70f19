"""convert-onnx-to-tgr, reductions and normalizations: ReduceMean/Sum/Max/Min, LogSoftmax, LRN,
LayerNormalization. ConvertOnnxToTgrPass lists these patterns beside its own.

ONNX gives reduction axes as an attribute (opset < 13 for ReduceSum, < 18 for the others) or
as a constant input; no axes means every axis unless noop_with_empty_axes, which makes the op
an identity. A ReduceMax over every spatial axis that keeps them is a global max pool
(ConvertReduceMaxOverSpace, listed before ConvertReduction, so it wins)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array, constant_ints
from tigris.dialects.onnx import ops_nn as on
from tigris.dialects.onnx import ops_tensor as ot
from tigris.dialects.shapes import ints, normalize_axis, shape_of
from tigris.dialects.tgr import ops_reduce as tr
from tigris.dialects.tgr import ops_shape as ts
from tigris.dialects.tgr.weight import make_weight
from tigris.transforms.rewriting import carry_name, fail, node_name

OnnxReduce = ot.ReduceMeanOp | ot.ReduceSumOp | ot.ReduceMaxOp | ot.ReduceMinOp

REDUCTIONS: dict[type[Operation], type[tr.Reduction]] = {
    ot.ReduceMeanOp: ts.ReduceMeanOp,
    ot.ReduceSumOp: tr.ReduceSumOp,
    ot.ReduceMaxOp: tr.ReduceMaxOp,
    ot.ReduceMinOp: tr.ReduceMinOp,
}


def reduce_axes(op: OnnxReduce) -> list[int]:
    """The sorted, non-negative axes an ONNX reduction reduces (empty: it is an identity)."""
    rank = len(shape_of(op.data))
    axes = constant_ints(op.axes_in) if op.axes_in is not None else ints(op, "axes")
    if op.axes_in is not None and axes is None:
        raise fail(op, "reduction axes must be constant")
    if not axes:
        return [] if op.noop_with_empty_axes.value.data else list(range(rank))
    return sorted(normalize_axis(a, rank, "reduce axis") for a in axes)


class ConvertReduction(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        target = REDUCTIONS.get(type(op))
        if target is None:
            return
        assert isinstance(op, OnnxReduce)
        axes = reduce_axes(op)
        if not axes:  # noop_with_empty_axes: identity
            rewriter.replace(op, [], [op.data])
            return
        props = {"axes": DenseArrayBase.from_list(i64, axes), "keepdims": op.keepdims}
        new = target.build(operands=[op.data], result_types=[op.reduced.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertLogSoftmax(RewritePattern):
    """The importer already rewrote pre-13 LogSoftmax (2-D flattening) into today's form."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.LogSoftmaxOp, rewriter: PatternRewriter) -> None:
        new = tr.LogSoftmaxOp.build(operands=[op.input], result_types=[op.output.type], properties={"axis": op.axis})
        rewriter.replace(op, carry_name(op, new))


class ConvertLrn(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.LRNOp, rewriter: PatternRewriter) -> None:
        if len(shape_of(op.X)) < 2:
            raise fail(op, "LRN needs an input with a channel axis (rank >= 2)")
        assert op.size is not None  # the onnx.LRN verifier requires it
        props = {"size": op.size, "alpha": op.alpha, "beta": op.beta, "bias": op.bias}
        new = tr.LrnOp.build(operands=[op.X], result_types=[op.Y.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertLayerNorm(RewritePattern):
    """Scale and B may be anything that broadcasts to X.shape[axis:]; tgr.layer_norm takes them at
    exactly that shape, so a constant of another shape becomes a broadcast weight."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.LayerNormalizationOp, rewriter: PatternRewriter) -> None:
        x = shape_of(op.X)
        axis = normalize_axis(op.axis.value.data, len(x))
        new_ops: list[Operation] = []
        params: list[SSAValue] = []
        for role, value in (("scale", op.Scale), ("bias", op.B)):
            if value is None:
                continue
            if shape_of(value) != x[axis:]:
                weight = _broadcast_weight(op, value, x[axis:], role)
                new_ops.append(weight)
                value = weight.results[0]
            params.append(value)
        props = {"axis": op.axis, "epsilon": op.epsilon}
        new = tr.LayerNormOp.build(
            operands=[op.X, params[0], params[1:]], result_types=[op.Y.type], properties=props
        )
        rewriter.replace(op, [*new_ops, carry_name(op, new)])


def _broadcast_weight(op: Operation, value: SSAValue, shape: tuple[int, ...], role: str) -> Operation:
    array = constant_array(value)
    if array is None:
        raise fail(op, f"LayerNormalization {role} of shape {shape_of(value)} must be a constant to broadcast to {shape}")
    try:
        full = np.ascontiguousarray(np.broadcast_to(array, shape))
    except ValueError:
        raise fail(op, f"LayerNormalization {role} of shape {array.shape} does not broadcast to {shape}") from None
    assert isinstance(value.type, TensorType)
    return make_weight(full, TensorType(value.type.element_type, list(shape)), f"{node_name(op)}.{role}")
