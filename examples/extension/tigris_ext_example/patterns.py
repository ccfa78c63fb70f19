"""onnx HardSigmoid -> ext.hard_sigmoid, run by TiGrIS's `convert-plugin-ops` pass.

The importer gives a standard-domain HardSigmoid its typed op, `onnx.HardSigmoid`; the same
op from another domain (an exporter's own) arrives as `onnx.generic` with `op_type =
"HardSigmoid"` and its attributes in `node_attributes`. Both become `ext.hard_sigmoid` when
the tensors are float32; anything else is left for `check-legal` to report.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatAttr, TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tigris.dialects.onnx.ops_elementwise import HardSigmoidOp as OnnxHardSigmoidOp
from tigris.dialects.onnx.ops_quant import GenericOp
from tigris.transforms.rewriting import carry_name
from tigris_ext_example.dialect import HardSigmoidOp


def _parameters(op: Operation) -> dict[str, FloatAttr] | None:
    """alpha and beta of a HardSigmoid node (absent: the ONNX defaults), or None if `op` is not one."""
    if isinstance(op, OnnxHardSigmoidOp):
        return {"alpha": op.alpha, "beta": op.beta}
    if isinstance(op, GenericOp) and op.op_type.data == "HardSigmoid" and len(op.operands) == 1:
        attrs = op.node_attributes.data
        if not all(isinstance(attrs.get(k), FloatAttr | None) for k in ("alpha", "beta")):
            return None
        return {k: attrs[k] for k in ("alpha", "beta") if k in attrs}  # type: ignore[misc]
    return None


def _is_f32(op: Operation) -> bool:
    return all(
        isinstance(v.type, TensorType) and isinstance(v.type.element_type, Float32Type)
        for v in (*op.operands, *op.results)
    )


class ConvertHardSigmoid(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        parameters = _parameters(op)
        if parameters is None or len(op.results) != 1 or not _is_f32(op):
            return
        properties = {k: FloatAttr(v.value.data, Float32Type()) for k, v in parameters.items()}
        new = HardSigmoidOp.build(
            operands=[op.operands[0]], result_types=[op.results[0].type], properties=properties
        )
        rewriter.replace(op, carry_name(op, new))
