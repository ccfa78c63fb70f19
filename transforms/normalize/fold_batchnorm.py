"""fold-batchnorm: a BatchNorm whose input is a conv's only use folds into the conv.

w' = w * k and b' = (b - mean) * k + beta per output channel, k = gamma / sqrt(var + eps).
Works for plain, grouped and depthwise convs (all still `tgr.conv` here) and Conv1D.
A BatchNorm anywhere else stays `tgr.batch_norm`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array
from tigris.dialects.tgr.ops_elementwise import BatchNormOp
from tigris.dialects.tgr.ops_window import ConvOp
from tigris.dialects.tgr.weight import make_weight
from tigris.transforms.rewriting import apply_patterns, carry_name, node_name


class FoldIntoConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, bn: BatchNormOp, rewriter: PatternRewriter) -> None:
        conv = bn.input.owner
        if not isinstance(conv, ConvOp) or not conv.output.has_one_use():
            return
        if conv.fused_activation.data != "none":
            return  # BN(relu(conv)) is not a conv
        w_type = conv.weight.type
        assert isinstance(w_type, TensorType)
        if not isinstance(w_type.element_type, Float32Type):
            return  # quantized weights: the quantizer folds batch norms before QDQ
        params = [constant_array(v) for v in (conv.weight, bn.scale, bn.bias, bn.mean, bn.var)]
        bias = constant_array(conv.bias) if conv.bias is not None else np.zeros(1)
        if bias is None or any(p is None for p in params):
            return
        w, gamma, beta, mean, var = (np.asarray(p, np.float64) for p in params)
        k = gamma / np.sqrt(var + bn.epsilon.value.data)
        label = node_name(bn)
        scaled = (w * k.reshape(-1, *[1] * (w.ndim - 1))).astype(np.float32)
        new_w = make_weight(scaled, w_type, f"{label}.folded_weight")
        folded_bias = ((np.asarray(bias, np.float64) - mean) * k + beta).astype(np.float32)
        new_b = make_weight(folded_bias, TensorType(w_type.element_type, [w.shape[0]]), f"{label}.folded_bias")
        new_conv = ConvOp.build(
            operands=[conv.input, new_w.output, [new_b.output]],
            result_types=[bn.output.type],
            properties=dict(conv.properties),
        )
        rewriter.replace(bn, [new_w, new_b, carry_name(conv, new_conv)])
        rewriter.erase(conv)


@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    name = "fold-batchnorm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, FoldIntoConv())
