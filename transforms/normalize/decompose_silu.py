"""decompose-silu: Swish with alpha != 1 -> x * sigmoid(alpha * x), in float models.

SiLU itself (Silu, Swish with alpha 1) is `tgr.silu` from convert-onnx-to-tgr: one op, and one
lookup table in int8, which is what onnxruntime computes between its Q/DQ pair. Another alpha
(1.702 is GELU's sigmoid approximation) has no runtime op; in float it is three (a mul by the
constant alpha, a sigmoid, a mul). In an int8 model those intermediate results would need
quantization parameters the model does not give, so it is rejected naming the node."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.onnx.ops_elementwise import SwishOp
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_elementwise import MulOp, SigmoidOp
from tigris.dialects.tgr.weight import make_weight
from tigris.transforms.rewriting import apply_patterns, carry_name, fail, node_name


class DecomposeSwish(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SwishOp, rewriter: PatternRewriter) -> None:
        alpha = op.alpha.value.data
        if alpha == 1.0:
            return  # SiLU: convert-onnx-to-tgr makes it tgr.silu
        x, y = op.X, op.Y
        if _quantized(x.type) or _quantized(y.type):
            raise fail(op, f"Swish with alpha {alpha:g} in an int8 model is not supported (only alpha = 1, i.e. SiLU)")
        assert isinstance(x.type, TensorType)
        scalar = TensorType(x.type.element_type, [])
        k = make_weight(np.asarray(alpha, np.float32), scalar, f"{node_name(op)}.alpha")
        scaled = carry_name(op, MulOp.build(operands=[x, k.output], result_types=[x.type]))
        sigmoid = carry_name(op, SigmoidOp.build(operands=[scaled.results[0]], result_types=[x.type]))
        mul = carry_name(op, MulOp.build(operands=[x, sigmoid.results[0]], result_types=[y.type]))
        rewriter.replace(op, [k, scaled, sigmoid, mul])


def _quantized(type_: Attribute) -> bool:
    return isinstance(type_, TensorType) and isinstance(type_.element_type, QuantType)


@dataclass(frozen=True)
class DecomposeSiluPass(ModulePass):
    name = "decompose-silu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, DecomposeSwish())
