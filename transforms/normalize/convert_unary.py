"""The element-wise math conversions of convert-onnx-to-tgr: Neg ... Gelu one to one, SiLU (onnx
Silu, Swish with alpha 1) to `tgr.silu`, Pow with a constant scalar exponent to `tgr.pow`, any
other Pow to `tgr.pow_tensor`.

SiLU becomes one op rather than x * sigmoid(x): in int8 it is then one lookup table, as
onnxruntime computes Swish in float between its Q/DQ pair, instead of a sigmoid rounded to int8
before the multiply. Swish with another alpha is left for decompose-silu (which names it).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatAttr, TensorType, f32
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array
from tigris.dialects.onnx import ops_elementwise as oe
from tigris.dialects.onnx import ops_unary as ou
from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr import ops_binary as tb
from tigris.dialects.tgr import ops_unary as tu
from tigris.transforms.rewriting import carry_name, fail

UNARY: dict[type[Operation], tuple[type[IRDLOperation], tuple[str, ...]]] = {
    ou.NegOp: (tu.NegOp, ()),
    ou.AbsOp: (tu.AbsOp, ()),
    ou.ExpOp: (tu.ExpOp, ()),
    ou.LogOp: (tu.LogOp, ()),
    ou.SqrtOp: (tu.SqrtOp, ()),
    ou.ReciprocalOp: (tu.ReciprocalOp, ()),
    ou.EluOp: (tu.EluOp, ("alpha",)),
    ou.SeluOp: (tu.SeluOp, ("alpha", "gamma")),
    ou.SoftplusOp: (tu.SoftplusOp, ()),
    ou.SoftsignOp: (tu.SoftsignOp, ()),
    ou.ErfOp: (tu.ErfOp, ()),
    ou.GeluOp: (tu.GeluOp, ("approximate",)),
    ou.SignOp: (tu.SignOp, ()),
    ou.ShrinkOp: (tu.ShrinkOp, ("lambd", "bias")),
    oe.HardSigmoidOp: (tu.HardSigmoidOp, ("alpha", "beta")),
    oe.SiluOp: (tu.SiluOp, ()),
}
"""onnx op -> (tgr op, the properties it keeps under the same name)."""


class ConvertUnary(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        row = UNARY.get(type(op))
        if row is None:
            return
        target, names = row
        props = {name: op.properties[name] for name in names if name in op.properties}
        new = target.build(operands=[op.operands[0]], result_types=[op.results[0].type], properties=props)
        rewriter.replace(op, carry_name(op, new))


class ConvertSwishAlphaOne(RewritePattern):
    """Swish with alpha 1 is SiLU; another alpha is not (decompose-silu reports it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: oe.SwishOp, rewriter: PatternRewriter) -> None:
        if op.alpha.value.data != 1.0:
            return
        new = tu.SiluOp.build(operands=[op.X], result_types=[op.Y.type])
        rewriter.replace(op, carry_name(op, new))


class ConvertPow(RewritePattern):
    """Pow(x, c) with c a constant scalar (any shape of one element) that leaves x's shape is
    `tgr.pow` (the exponent a property: one op record, an int8 lookup table); any other Pow on
    float32 is `tgr.pow_tensor`, the broadcasting binary op (float only)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ou.PowOp, rewriter: PatternRewriter) -> None:
        exponent = constant_array(op.Y)
        if exponent is not None and exponent.size == 1 and shape_of(op.Z) == shape_of(op.X):
            props = {"exponent": FloatAttr(float(exponent.reshape(-1)[0]), f32)}
            new = tu.PowOp.build(operands=[op.X], result_types=[op.Z.type], properties=props)
            rewriter.replace(op, carry_name(op, new))
            return
        for value in (op.X, op.Y):
            if not isinstance(value.type, TensorType) or not isinstance(value.type.element_type, Float32Type):
                raise fail(op, f"Pow with a tensor exponent computes float32 only, got {value.type}")
        new = tb.PowTensorOp.build(operands=[op.X, op.Y], result_types=[op.Z.type])
        rewriter.replace(op, carry_name(op, new))


PATTERNS: tuple[RewritePattern, ...] = (ConvertUnary(), ConvertSwishAlphaOne(), ConvertPow())
"""Added to convert-onnx-to-tgr's pattern list."""
