"""decompose-silu: SiLU (Swish with alpha 1, or Silu in any domain) -> x * sigmoid(x).

The runtime has Sigmoid (an int8 lookup table) and Mul, not SiLU. Swish with another
alpha is x * sigmoid(alpha * x), which we do not decompose: rejected naming the node."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, Signedness, TensorType
from xdsl.ir import Attribute
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tigris.dialects.onnx.ops_elementwise import SiluOp, SwishOp
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_elementwise import MulOp, SigmoidOp
from tigris.transforms.rewriting import apply_patterns, carry_name, fail


class DecomposeSilu(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SiluOp | SwishOp):
            return
        if isinstance(op, SwishOp) and op.alpha.value.data != 1.0:
            raise fail(op, f"Swish with alpha {op.alpha.value.data:g} is not supported (only alpha = 1, i.e. SiLU)")
        x, y = op.X, op.Y
        sigmoid = carry_name(op, SigmoidOp.build(operands=[x], result_types=[_sigmoid_type(y.type)]))
        mul = carry_name(op, MulOp.build(operands=[x, sigmoid.results[0]], result_types=[y.type]))
        rewriter.replace(op, [sigmoid, mul])


def _sigmoid_type(type_: Attribute) -> Attribute:
    """Quantized: sigmoid's output range [0, 1) in steps of 1/256, TFLite's fixed logistic
    output (zero point -128 for int8 storage, 0 for uint8)."""
    assert isinstance(type_, TensorType)
    element = type_.element_type
    if not isinstance(element, QuantType):
        return type_
    unsigned = element.storage.signedness.data == Signedness.UNSIGNED
    return TensorType(QuantType.get(element.storage, [1.0 / 256], [0 if unsigned else -128]), type_.get_shape())


@dataclass(frozen=True)
class DecomposeSiluPass(ModulePass):
    name = "decompose-silu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, DecomposeSilu())
