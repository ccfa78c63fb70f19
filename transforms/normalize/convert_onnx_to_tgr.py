"""convert-onnx-to-tgr: the one-to-one ONNX -> `tgr` conversions.

Mechanical mappings are rows of `TABLE` (ONNX op, `tgr` op, property renames).
Ops whose ONNX form needs resolving get small patterns: auto_pad becomes explicit
pads, Gemm/MatMul with a constant weight become `tgr.fully_connected`, bounds and
axes given as constant inputs become properties. Ops with a pass of their own
(Constant, Q/DQ, Swish with alpha != 1, Resize, Reshape, shape arithmetic) are left for it.
The element-wise math ops (and SiLU, Pow) are convert_unary.py's patterns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array, constant_ints, constant_scalar
from tigris.dialects.onnx import ops_elementwise as oe
from tigris.dialects.onnx import ops_nn as on
from tigris.dialects.onnx import ops_tensor as ot
from tigris.dialects.shapes import broadcast, ints, normalize_axis, shape_of
from tigris.dialects.tgr import ops_elementwise as te
from tigris.dialects.tgr import ops_shape as ts
from tigris.dialects.tgr import ops_window as tw
from tigris.dialects.tgr.weight import make_weight
from tigris.transforms.normalize.convert_binary import (
    ConvertGemmOfActivations,
    ConvertMaxMin,
    ConvertMean,
    ConvertPRelu,
)
from tigris.transforms.normalize.convert_unary import PATTERNS as UNARY_PATTERNS
from tigris.transforms.normalize.convert_reduce import (
    ConvertLayerNorm,
    ConvertLogSoftmax,
    ConvertLrn,
    ConvertReduction,
    reduce_axes,
)
from tigris.transforms.normalize.convert_move import MOVE_PATTERNS
from tigris.transforms.normalize.weights import transposed_weight
from tigris.transforms.rewriting import apply_patterns, carry_name, fail, node_name


@dataclass(frozen=True)
class Row:
    """One mechanical conversion: same operands and results, properties renamed."""

    target: type[IRDLOperation]
    properties: dict[str, str] = field(default_factory=dict)  # tgr name -> onnx name


TABLE: dict[type[Operation], Row] = {
    oe.ReluOp: Row(te.ReluOp),
    oe.SigmoidOp: Row(te.SigmoidOp),
    oe.TanhOp: Row(te.TanhOp),
    oe.HardSwishOp: Row(te.HardSwishOp),
    oe.LeakyReluOp: Row(te.LeakyReluOp, {"alpha": "alpha"}),
    oe.AddOp: Row(te.AddOp),
    oe.SubOp: Row(te.SubOp),
    oe.MulOp: Row(te.MulOp),
    oe.DivOp: Row(te.DivOp),
    on.SoftmaxOp: Row(te.SoftmaxOp, {"axis": "axis"}),
    on.GlobalAveragePoolOp: Row(tw.GlobalAvgPoolOp),
    on.GlobalMaxPoolOp: Row(tw.GlobalMaxPoolOp),
    on.InstanceNormalizationOp: Row(te.InstanceNormOp, {"epsilon": "epsilon"}),
    ot.FlattenOp: Row(ts.FlattenOp, {"axis": "axis"}),
    ot.ConcatOp: Row(ts.ConcatOp, {"axis": "axis"}),
}


class ConvertByTable(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        row = TABLE.get(type(op))
        if row is None:
            return
        properties = {t: op.properties[o] for t, o in row.properties.items() if o in op.properties}
        new = row.target.build(
            operands=[list(op.operands)] if _variadic(row.target) else list(op.operands),
            result_types=[r.type for r in op.results],
            properties=properties,
        )
        rewriter.replace(op, carry_name(op, new))


def _variadic(cls: type[IRDLOperation]) -> bool:
    from xdsl.irdl import VarOperandDef

    return any(isinstance(d, VarOperandDef) for _, d in cls.get_irdl_definition().operands)


def _i64s(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def explicit_pads(op: Operation, in_shape: tuple[int, ...], kernel: list[int]) -> list[int]:
    """ONNX pads with auto_pad resolved (SAME_UPPER puts the odd pixel at the end)."""
    rank = len(in_shape) - 2
    mode = op.properties.get("auto_pad")
    mode = mode.data if isinstance(mode, StringAttr) else "NOTSET"
    if mode == "NOTSET":
        return ints(op, "pads") or [0] * (2 * rank)
    if mode == "VALID":
        return [0] * (2 * rank)
    if mode not in ("SAME_UPPER", "SAME_LOWER"):
        raise fail(op, f"auto_pad '{mode}' is not an ONNX value")
    strides = ints(op, "strides") or [1] * rank
    dilations = ints(op, "dilations") or [1] * rank
    begins, ends = [], []
    for size, k, s, d in zip(in_shape[2:], kernel, strides, dilations):
        total = max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
        small, large = total // 2, total - total // 2
        begins.append(small if mode == "SAME_UPPER" else large)
        ends.append(large if mode == "SAME_UPPER" else small)
    return begins + ends


def _window_properties(op: Operation, kernel: list[int]) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {"pads": _i64s(explicit_pads(op, shape_of(op.operands[0]), kernel))}
    for name in ("strides", "dilations"):
        if name in op.properties:
            props[name] = op.properties[name]
    return props


class ConvertConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.ConvOp, rewriter: PatternRewriter) -> None:
        props = _window_properties(op, list(shape_of(op.W)[2:]))
        props["group"] = op.group
        operands = [op.X, op.W, [op.B] if op.B is not None else []]
        new = tw.ConvOp.build(operands=operands, result_types=[op.Y.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertConvTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.ConvTransposeOp, rewriter: PatternRewriter) -> None:
        if op.auto_pad.data != "NOTSET" or op.output_shape is not None:
            raise fail(op, "ConvTranspose with auto_pad or output_shape is not supported; give explicit pads")
        props: dict[str, Attribute] = {"group": op.group}
        for name in ("strides", "dilations", "pads", "output_padding"):
            if name in op.properties:
                props[name] = op.properties[name]
        operands = [op.X, op.W, [op.B] if op.B is not None else []]
        new = tw.ConvTransposeOp.build(operands=operands, result_types=[op.Y.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertPool(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, on.MaxPoolOp | on.AveragePoolOp):
            return
        kernel = ints(op, "kernel_shape") or []
        props = _window_properties(op, kernel)
        props["kernel_shape"] = op.properties["kernel_shape"]
        props["ceil_mode"] = op.ceil_mode
        if isinstance(op, on.MaxPoolOp):
            if op.storage_order.value.data != 0:
                raise fail(op, "MaxPool storage_order = 1 is not supported")
            target: type[IRDLOperation] = tw.MaxPoolOp
        else:
            if "dilations" in props and any(d != 1 for d in ints(op, "dilations") or []):
                raise fail(op, "AveragePool with dilations is not supported")
            props.pop("dilations", None)
            props["count_include_pad"] = op.count_include_pad
            target = tw.AvgPoolOp
        new = target.build(operands=[op.X], result_types=[op.Y.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertBatchNorm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.BatchNormalizationOp, rewriter: PatternRewriter) -> None:
        if op.training_mode.value.data != 0:
            raise fail(op, "BatchNormalization in training mode cannot be compiled for inference")
        new = te.BatchNormOp.build(
            operands=list(op.operands), result_types=[op.Y.type], properties={"epsilon": op.epsilon}
        )
        rewriter.replace(op, carry_name(op, new))


class ConvertTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.TransposeOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.data))
        perm = ints(op, "perm") or list(reversed(range(rank)))  # ONNX default: reverse the axes
        new = ts.TransposeOp.build(operands=[op.data], result_types=[op.transposed.type], properties={"perm": _i64s(perm)})
        rewriter.replace(op, carry_name(op, new))


class ConvertGemm(RewritePattern):
    """Gemm -> fully_connected: y = x @ W^T + b, with W [N, K] constant."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.GemmOp, rewriter: PatternRewriter) -> None:
        if op.alpha.value.data != 1.0 or op.transA.value.data != 0:
            raise fail(op, "Gemm with alpha != 1 or transA = 1 is not supported (export with alpha 1, transA 0)")
        weight_ops, weight = transposed_weight(op.B, transpose=op.transB.value.data == 0)
        if weight is None:
            raise fail(op, "Gemm needs a constant B (weight); use MatMul for two activations")
        n = shape_of(weight)[0]
        bias_ops: list[Operation] = []
        bias: list[SSAValue] = []
        if op.C is not None:
            if op.beta.value.data == 1.0 and shape_of(op.C) == (n,):
                bias = [op.C]  # possibly DQ(int32): fold-qdq takes it from here
            else:
                c = constant_array(op.C)
                if c is None or not _is_row_bias(c.shape, n):
                    raise fail(op, f"Gemm needs C to be a bias of {n} values (a constant, or any [{n}] with beta 1)")
                vector = (np.broadcast_to(c.reshape(-1), (n,)) * op.beta.value.data).astype(c.dtype)
                bias_op = make_weight(vector, TensorType(_element(op.C), [n]), f"{node_name(op)}.bias")
                bias_ops, bias = [bias_op], [bias_op.output]
        new = tw.FullyConnectedOp.build(operands=[op.A, weight, bias], result_types=[op.Y.type])
        rewriter.replace(op, [*weight_ops, *bias_ops, carry_name(op, new)])


def _is_row_bias(shape: tuple[int, ...], n: int) -> bool:
    """C broadcasts to [M, N] the same in every row: shape (), (1|N,), (1, 1|N)."""
    return len(shape) <= 2 and (len(shape) < 2 or shape[0] == 1) and (not shape or shape[-1] in (1, n))


def _element(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


class ConvertMatMul(RewritePattern):
    """MatMul with a constant 2-D right operand is a fully_connected layer; else tgr.matmul."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: on.MatMulOp, rewriter: PatternRewriter) -> None:
        if len(shape_of(op.A)) == 2 and len(shape_of(op.B)) == 2:
            weight_ops, weight = transposed_weight(op.B, transpose=True)
            if weight is not None:
                new = tw.FullyConnectedOp.build(operands=[op.A, weight, []], result_types=[op.Y.type])
                rewriter.replace(op, [*weight_ops, carry_name(op, new)])
                return
        new = tw.MatMulOp.build(operands=[op.A, op.B], result_types=[op.Y.type])
        rewriter.replace(op, carry_name(op, new))


class ConvertClip(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: oe.ClipOp, rewriter: PatternRewriter) -> None:
        props: dict[str, Attribute] = {}
        for name, operand in (("min", op.min_in), ("max", op.max_in)):
            if operand is not None:
                bound = constant_scalar(operand)
                if bound is None:
                    raise fail(op, f"Clip {name} must be a constant")
                props[name] = FloatAttr(bound, f32)
            elif name in op.properties:
                props[name] = op.properties[name]
        new = te.ClipOp.build(operands=[op.input], result_types=[op.output.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertPad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.PadOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.data))
        pads = constant_ints(op.pads_in) if op.pads_in is not None else ints(op, "pads")
        if pads is None:
            raise fail(op, "Pad needs constant pads")
        if op.axes_in is not None:
            axes = constant_ints(op.axes_in)
            if axes is None:
                raise fail(op, "Pad needs constant axes")
            full = [0] * (2 * rank)
            for i, axis in enumerate(normalize_axis(a, rank) for a in axes):
                full[axis], full[rank + axis] = pads[i], pads[len(axes) + i]
            pads = full
        if op.constant_value is not None:
            value = constant_scalar(op.constant_value)
            if value is None:
                raise fail(op, "Pad needs a constant constant_value")
        else:
            value = op.value.value.data if op.value is not None else 0.0
        if min(pads) < 0:
            raise fail(op, "Pad with negative pads (cropping) is not supported")
        props = {"pads": _i64s(pads), "mode": op.mode, "value": FloatAttr(value, f32)}
        new = ts.PadOp.build(operands=[op.data], result_types=[op.output.type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertReduceMaxOverSpace(RewritePattern):
    """ReduceMax over every spatial axis with keepdims is a global max pool; others stay."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ot.ReduceMaxOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.data))
        if rank >= 3 and op.keepdims.value.data == 1 and reduce_axes(op) == list(range(2, rank)):
            new = tw.GlobalMaxPoolOp.build(operands=[op.data], result_types=[op.reduced.type])
            rewriter.replace(op, carry_name(op, new))


class ConvertSum(RewritePattern):
    """Sum of n inputs -> a chain of n-1 adds (a single input is the input itself)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: oe.SumOp, rewriter: PatternRewriter) -> None:
        values = list(op.data_0)
        new_ops: list[Operation] = []
        acc = values[0]
        for value in values[1:]:
            partial = TensorType(_element(op.sum), broadcast(shape_of(acc), shape_of(value)))
            add = te.AddOp.build(operands=[acc, value], result_types=[partial])
            new_ops.append(carry_name(op, add))
            acc = add.output
        rewriter.replace(op, new_ops, [acc])


class ConvertSqueeze(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ot.SqueezeOp | ot.UnsqueezeOp):
            return
        axes = constant_ints(op.axes_in) if op.axes_in is not None else ints(op, "axes")
        if op.axes_in is not None and axes is None:
            raise fail(op, "axes must be constant")
        props = {"axes": _i64s(axes)} if axes is not None else {}
        target = ts.SqueezeOp if isinstance(op, ot.SqueezeOp) else ts.UnsqueezeOp
        new = target.build(operands=[op.data], result_types=[op.results[0].type], properties=props)
        rewriter.replace(op, carry_name(op, new))


@dataclass(frozen=True)
class ConvertOnnxToTgrPass(ModulePass):
    name = "convert-onnx-to-tgr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(
            op,
            ConvertByTable(),
            ConvertConv(),
            ConvertConvTranspose(),
            ConvertPool(),
            ConvertBatchNorm(),
            ConvertTranspose(),
            ConvertGemmOfActivations(),  # before ConvertGemm, which refuses an activation B
            ConvertGemm(),
            ConvertMatMul(),
            ConvertClip(),
            ConvertPad(),
            ConvertReduceMaxOverSpace(),
            ConvertReduction(),
            ConvertLogSoftmax(),
            ConvertLrn(),
            ConvertLayerNorm(),
            ConvertSum(),
            ConvertPRelu(),
            ConvertMaxMin(),
            ConvertMean(),
            ConvertSqueeze(),
            *(pattern() for pattern in MOVE_PATTERNS),
            *UNARY_PATTERNS,
        )
