"""onnx ThresholdedRelu -> ext.thresholded_relu, run by TiGrIS's `convert-plugin-ops` pass.

The `onnx` dialect has no typed op for ThresholdedRelu, so the importer keeps the node as
`onnx.generic` with `op_type = "ThresholdedRelu"` and the attributes the node sets in
`node_attributes` (absent ones are not filled in: alpha's ONNX default, 1.0, is the op's
own). Only the standard domain ("" or "ai.onnx") is ours: a ThresholdedRelu of another domain
is an exporter's own op that may mean something else. A node in the standard form, with
float32 tensors, becomes `ext.thresholded_relu`; anything else is left for `check-legal` to
report.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatAttr, TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tigris.dialects.onnx.ops_quant import GenericOp
from tigris.transforms.rewriting import carry_name
from tigris_ext_example.dialect import ThresholdedReluOp

STANDARD_DOMAINS = ("", "ai.onnx")
"""The domains the importer leaves a standard ONNX node in (empty: no `domain` printed)."""


def _parameters(op: Operation) -> dict[str, FloatAttr] | None:
    """alpha of a standard ThresholdedRelu node (empty if the node leaves it at the ONNX
    default), or None if `op` is not one: another op type or domain, an absent or extra
    input, an attribute ThresholdedRelu does not have or an alpha that is not a float."""
    if not isinstance(op, GenericOp) or op.op_type.data != "ThresholdedRelu":
        return None
    if op.domain.data not in STANDARD_DOMAINS or op.absent_inputs is not None or len(op.operands) != 1:
        return None
    attrs = op.node_attributes.data
    if set(attrs) - {"alpha"} or not isinstance(attrs.get("alpha"), FloatAttr | None):
        return None
    return {k: v for k, v in attrs.items() if isinstance(v, FloatAttr)}


def _is_f32(op: Operation) -> bool:
    return all(
        isinstance(v.type, TensorType) and isinstance(v.type.element_type, Float32Type)
        for v in (*op.operands, *op.results)
    )


class ConvertThresholdedRelu(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        parameters = _parameters(op)
        if parameters is None or len(op.results) != 1 or not _is_f32(op):
            return
        properties = {k: FloatAttr(v.value.data, Float32Type()) for k, v in parameters.items()}
        new = ThresholdedReluOp.build(
            operands=[op.operands[0]], result_types=[op.results[0].type], properties=properties
        )
        rewriter.replace(op, carry_name(op, new))
