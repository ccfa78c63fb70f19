"""compute-quant-scales: the compile-time numbers of every int8 op, attached for the emitter.

The int8 arithmetic is onnxruntime's QDQ meaning (`tigris.dialects.quant.arith`). Most int8 ops
need nothing beyond their tensors' scales and zero points, which the `.tgrs` file already holds;
the numbers that are worth computing once, here, come from `quant.params.int8_params(op)`, the
same function the interpreter's int8 kernels call on every run, so the IR, the interpreter and
the device agree bit for bit. Attributes (all discardable, on the op):

    tgr.requant_scales = array<f32: ...>  conv, depthwise_conv, conv1d, conv_transpose,
                                            fully_connected (per output channel), matmul (per rhs
                                            column): float32(sx * sw[c] / sy), rounded once from
                                            float64, the factor taking the int32 accumulator to
                                            output steps
    tgr.act_range = array<i32: lo, hi>    the same ops: the clamp after requantization (narrowed
                                            by a fused relu/relu6 on the conv family and
                                            fully_connected)
    tgr.table = array<i8: 256 values>     relu, relu6, clip, leaky_relu, sigmoid, tanh, hard_swish,
                                            neg ... silu (tgr/ops_unary.py)
                                            (array<ui8: ...> for uint8 results); entry v - qmin is
                                            the output for the stored input v
    tgr.pad_value = v : i32               tgr.pad: the stored value of its constant padding, at
                                            the result's parameters

The pass also refuses, naming the node, what the device could not compute: a quantized runtime
op without an int8 kernel (fold-qdq leaves such ops in float, so only hand-written IR has them),
activations that are not 8-bit per tensor, and dense ops or means whose int32 accumulator could
overflow (`arith.dense_accumulator_fits`, `arith.MEAN_MAX_COUNT`). Quantize/dequantize convert
with their tensors' parameters and are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, ModuleOp, Signedness, f32, i8, i32
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from tigris.dialects.quant.params import Int8Params, has_int8_kernel, int8_params, is_quantized
from tigris.dialects.tgr.ops_elementwise import DequantizeOp, QuantizeOp
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.transforms.rewriting import fail

ATTRIBUTES = ("tgr.requant_scales", "tgr.table", "tgr.act_range", "tgr.pad_value")
"""Every attribute this pass may write (`param_attributes`): `tgr.` + an `Int8Params` field."""

_UI8 = IntegerType(8, Signedness.UNSIGNED)


def param_attributes(params: Int8Params) -> dict[str, Attribute]:
    """The attributes spelling out `params` (absent fields: no attribute)."""
    attrs: dict[str, Attribute] = {}
    if params.requant_scales is not None:
        values = [float(v) for v in np.asarray(params.requant_scales, np.float32).reshape(-1)]
        attrs["tgr.requant_scales"] = DenseArrayBase.from_list(f32, values)
    if params.act_range is not None:
        attrs["tgr.act_range"] = DenseArrayBase.from_list(i32, [int(v) for v in params.act_range])
    if params.table is not None:
        element = i8 if params.table.dtype == np.int8 else _UI8
        attrs["tgr.table"] = DenseArrayBase.from_list(element, [int(v) for v in params.table])
    if params.pad_value is not None:
        attrs["tgr.pad_value"] = IntegerAttr(params.pad_value, i32)
    return attrs


@dataclass(frozen=True)
class ComputeQuantScalesPass(ModulePass):
    name = "compute-quant-scales"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for node in op.walk():
            if isinstance(node, QuantizeOp | DequantizeOp) or node.get_trait(RuntimeOp) is None:
                continue
            if not is_quantized(node):
                continue
            if not has_int8_kernel(node):
                raise fail(node, "no int8 kernel for this op: quantized tensors are not supported by it")
            try:
                params = int8_params(node)
            except ValueError as e:
                raise fail(node, str(e)) from None
            for name in ATTRIBUTES:
                node.attributes.pop(name, None)
            node.attributes.update(param_attributes(params))
