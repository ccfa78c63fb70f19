"""onnx ThresholdedRelu -> ext.thresholded_relu and onnx LpPool -> ext.lp_pool, run by TiGrIS's
`convert-plugin-ops` pass.

The `onnx` dialect has no typed op for ThresholdedRelu, so the importer keeps the node as
`onnx.generic` with `op_type = "ThresholdedRelu"` and the attributes the node sets in
`node_attributes` (absent ones are not filled in: alpha's ONNX default, 1.0, is the op's
own). Only the standard domain ("" or "ai.onnx") is ours: a ThresholdedRelu of another domain
is an exporter's own op that may mean something else. A node in the standard form, with
float32 tensors, becomes `ext.thresholded_relu`; anything else is left for `check-legal` to
report.

LpPool is converted when its kernel can run it: a standard node over a float32 [N, C, H, W] map
with explicit pads (auto_pad absent or NOTSET; none negative), kernel, strides and dilations of
two values >= 1, ceil_mode absent or 0 and p 1 or 2 (ONNX's default 2).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase, Float32Type, FloatAttr, IntegerAttr, StringAttr, TensorType, i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tigris.dialects.onnx.ops_quant import GenericOp
from tigris.transforms.rewriting import carry_name
from tigris_ext_example.dialect import LP_NORMS, LpPoolOp, ThresholdedReluOp

STANDARD_DOMAINS = ("", "ai.onnx")
"""The domains the importer leaves a standard ONNX node in (empty: no `domain` printed)."""


def _standard_node(op: Operation, op_type: str) -> dict[str, Attribute] | None:
    """The attributes of a one-input `op_type` node of the standard domain, else None."""
    if not isinstance(op, GenericOp) or op.op_type.data != op_type:
        return None
    if op.domain.data not in STANDARD_DOMAINS or op.absent_inputs is not None or len(op.operands) != 1:
        return None
    return dict(op.node_attributes.data)


def _parameters(op: Operation) -> dict[str, FloatAttr] | None:
    """alpha of a standard ThresholdedRelu node (empty if the node leaves it at the ONNX
    default), or None if `op` is not one: another op type or domain, an absent or extra
    input, an attribute ThresholdedRelu does not have or an alpha that is not a float."""
    attrs = _standard_node(op, "ThresholdedRelu")
    if attrs is None:
        return None
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


LP_POOL_ARRAYS = {"kernel_shape": 2, "strides": 2, "dilations": 2, "pads": 4}
"""The list attributes of a 2-D LpPool and their lengths (kernel_shape is required)."""


def _ints(attr: Attribute | None) -> list[int] | None:
    return [int(v) for v in attr.get_values()] if isinstance(attr, DenseArrayBase) else None


def _int(attr: Attribute | None, default: int) -> int | None:
    """An int attribute's value, `default` if absent, None if it is not an int."""
    if attr is None:
        return default
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _lp_pool_properties(op: Operation) -> dict[str, Attribute] | None:
    """ext.lp_pool's properties for a standard 2-D LpPool node its kernel runs, else None."""
    attrs = _standard_node(op, "LpPool")
    if attrs is None or set(attrs) - {*LP_POOL_ARRAYS, "auto_pad", "ceil_mode", "p"}:
        return None
    auto_pad = attrs.get("auto_pad")
    if auto_pad is not None and not (isinstance(auto_pad, StringAttr) and auto_pad.data == "NOTSET"):
        return None
    p = _int(attrs.get("p"), 2)
    if p not in LP_NORMS or _int(attrs.get("ceil_mode"), 0) != 0 or "kernel_shape" not in attrs:
        return None
    properties: dict[str, Attribute] = {}
    for name, length in LP_POOL_ARRAYS.items():
        if name in attrs:
            values = _ints(attrs[name])
            if values is None or len(values) != length or min(values) < (0 if name == "pads" else 1):
                return None  # not a 2-D window the kernel runs (ONNX's checker allows some of these)
            properties[name] = DenseArrayBase.from_list(i64, values)
    return properties | {"p": IntegerAttr(p, i64)}


class ConvertLpPool(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        properties = _lp_pool_properties(op)
        if properties is None or len(op.results) != 1 or not _is_f32(op):
            return
        if len(op.operands[0].type.get_shape()) != 4:  # type: ignore[union-attr]
            return
        new = LpPoolOp.build(
            operands=[op.operands[0]], result_types=[op.results[0].type], properties=properties
        )
        rewriter.replace(op, carry_name(op, new))
