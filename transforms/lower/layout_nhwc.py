"""layout-nhwc: every weight in the order the runtime reads it (spec/pipeline.md section 7.1).

The runtime keeps activations NHWC, so it reads a convolution's weights channels-last:

    tgr.conv             [O, I/g, KH, KW] -> "ohwi" [O, KH, KW, I/g]
    tgr.depthwise_conv   [C*m, 1, KH, KW] -> "hwc"  [KH, KW, C*m]
    tgr.conv1d           [O, I/g, K]      -> "oki"  [O, K, I/g]
    tgr.conv_transpose   [I, O/g, KH, KW] -> "ohwi" [O, KH, KW, I/g] (TFLite's TRANSPOSE_CONV order,
                                             output channel o = group * O/g + j as in ONNX)
                         [I, O/g, K]      -> "oki"  [O, K, I/g] (1-D, the same order)
    tgr.fully_connected  [M, K]           -> "nk_hwc" [M, K] with the columns in (h, w, c) order,
                         when its input is a rank-4 [N, C, H, W] (H*W > 1) flattened through
                         tgr.flatten/tgr.reshape and nothing else reads that flatten: the flatten
                         is then marked `tgr.stored_order` (the runtime copies the NHWC bytes as
                         they are, features in (h, w, c) order, instead of ONNX's (c, h, w))

The runtime's reshapes copy in model order (element i to element i, each at its stored place),
which is what every other reader of a reshape expects and costs a gather when a channels-last
map is flattened. A chain of tgr.flatten/tgr.reshape ops from the nearest rank-4 value whose
every reader is an "nk_hwc" fully_connected (directly or through more such reshapes, none back to
rank 4) is marked `tgr.stored_order` as a whole, and only then do those fully_connected ops get
"nk_hwc"; if anything else reads the chain (a softmax, a model output, a squeeze, ...), the
chain copies in model order and the dense weights stay in ONNX order.

Each such op gets a NEW `tgr.weight` holding the permuted array (one per op, so a weight shared by
several ops is permuted per use; the old one is erased once unused) and `weight_layout` naming the
layout; activations, biases and every other op stay as they are. A per-channel quantized weight
keeps its `!tgr.quant` type with the axis moved to where the output channels went (conv "ohwi" 0,
depthwise "hwc" 2, conv1d "oki" 0, conv_transpose "ohwi"/"oki" 0 with its O/g scales repeated per
group, fully_connected 0). Left alone: ops already in a runtime layout, weights that are not
`tgr.weight` constants (computed weights stay in ONNX order), a rank-3 tgr.conv (not yet relabeled
conv1d), and fully_connected ops whose input is not such a flattened feature map (or has H*W = 1,
where both orders agree), or whose flatten another op reads. The verifiers and the
interpreter read weights through the layout (and ignore `tgr.stored_order`, which only says how
the runtime stores an intermediate no other op sees), so the rewritten IR verifies and computes
bit-identical results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_shape import FlattenOp, ReshapeOp
from tigris.dialects.tgr.ops_window import (
    NK_HWC,
    Conv1dOp,
    ConvOp,
    ConvTransposeOp,
    DepthwiseConvOp,
    FullyConnectedOp,
    TransposedOHWI,
    flattened_chw,
    hwc_columns,
    layout_of,
)
from tigris.dialects.tgr.plan_attrs import STORED_ORDER
from tigris.dialects.tgr.weight import WeightOp, make_weight
from tigris.transforms.rewriting import apply_patterns, fail, node_name

def _moved_quant(op: Operation, element: Attribute, onnx_axis: int, new_axis: int, repeat: int) -> Attribute:
    """The weight's element type in the new layout: per-axis parameters follow the output channels."""
    if not isinstance(element, QuantType) or element.axis.data < 0:
        return element
    if element.axis.data != onnx_axis:
        raise fail(
            op, f"weight quantized along axis {element.axis.data}, not its output channels (axis {onnx_axis})"
        )
    scales = list(element.scale_values) * repeat
    zero_points = list(element.zero_point_values) * repeat
    return QuantType.get(element.storage, scales, zero_points, new_axis)


def _use_weight(
    op: Operation, array: np.ndarray, element: Attribute, layout: str, rewriter: PatternRewriter
) -> None:
    """Give `op` a new weight `array` of element type `element` and set its `weight_layout`."""
    old = op.operands[1]
    assert isinstance(old.owner, WeightOp)
    weight = make_weight(array, TensorType(element, array.shape), f"{node_name(old.owner)}.{layout}")
    rewriter.insert(weight, InsertPoint.before(op))
    rewriter.replace_uses_with_if(old, weight.output, lambda use: use.operation is op)
    op.properties["weight_layout"] = StringAttr(layout)
    rewriter.notify_op_modified(op)


class PermuteConvWeight(RewritePattern):
    """conv, depthwise_conv, conv1d, conv_transpose: the weight in the op's `runtime_layout()`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ConvOp | DepthwiseConvOp | Conv1dOp | ConvTransposeOp, rewriter: PatternRewriter
    ) -> None:
        owner = op.weight.owner
        layout = op.runtime_layout()
        if layout_of(op) is not None or not isinstance(owner, WeightOp):
            return
        type_ = op.weight.type
        assert isinstance(type_, TensorType)
        if len(type_.get_shape()) != layout.rank:
            return  # a rank-3 tgr.conv: relabel-conv1d makes it a conv1d first
        group = op.groups()
        repeat = group if isinstance(layout, TransposedOHWI) else 1
        element = _moved_quant(op, type_.element_type, op.ONNX_CHANNEL_AXIS, layout.channel_axis, repeat)
        _use_weight(op, layout.from_onnx(owner.array(), group), element, layout.name, rewriter)


def _chain_root(value: SSAValue) -> FlattenOp | ReshapeOp | None:
    """The tgr.flatten / tgr.reshape up `value`'s chain that reads the nearest rank-4 value (the
    map `flattened_chw` finds)."""
    op = value.owner
    while isinstance(op, FlattenOp | ReshapeOp):
        if len(shape_of(op.input)) == 4:
            return op
        op = op.input.owner
    return None


def _takes_hwc(op: Operation, index: int, chw: tuple[int, int, int]) -> bool:
    """Whether operand `index` of `op` is the input of a fully_connected that has (or gets) "nk_hwc"
    for the map `chw`."""
    if not isinstance(op, FullyConnectedOp) or index != 0 or flattened_chw(op.input) != chw:
        return False
    layout = layout_of(op)
    return layout == NK_HWC or (layout is None and isinstance(op.weight.owner, WeightOp))


def _stored_order_chain(value: SSAValue, chw: tuple[int, int, int]) -> list[Operation] | None:
    """The reshapes reading `value`, transitively, if every reader of `value` and of theirs is an
    "nk_hwc" fully_connected for `chw` or such a reshape (not back to rank 4); else None."""
    chain: list[Operation] = []
    for use in value.uses:
        user = use.operation
        if _takes_hwc(user, use.index, chw):
            continue
        if not isinstance(user, FlattenOp | ReshapeOp) or len(shape_of(user.output)) == 4:
            return None
        below = _stored_order_chain(user.output, chw)
        if below is None:
            return None
        chain += [user, *below]
    return chain


class PermuteDenseColumns(RewritePattern):
    """fully_connected on a flattened [N, C, H, W] no other op reads: weight columns from (c, h, w)
    to (h, w, c), and the flatten chain marked `tgr.stored_order` (a byte copy at run time)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FullyConnectedOp, rewriter: PatternRewriter) -> None:
        owner = op.weight.owner
        if layout_of(op) is not None or not isinstance(owner, WeightOp):
            return
        chw = flattened_chw(op.input)
        if chw is None or chw[1] * chw[2] == 1:
            return  # not a feature map, or one pixel: (c, h, w) and (h, w, c) agree
        root = _chain_root(op.input)
        assert root is not None  # flattened_chw found the map through it
        chain = _stored_order_chain(root.output, chw)
        if chain is None:
            return  # another op reads the flattened map in model order: keep ONNX's columns
        for reshape in (root, *chain):
            if STORED_ORDER not in reshape.attributes:
                reshape.attributes[STORED_ORDER] = UnitAttr()
                rewriter.notify_op_modified(reshape)
        type_ = op.weight.type
        assert isinstance(type_, TensorType)
        element = _moved_quant(op, type_.element_type, 0, 0, 1)
        _use_weight(op, hwc_columns(owner.array(), chw), element, NK_HWC, rewriter)


@dataclass(frozen=True)
class LayoutNhwcPass(ModulePass):
    name = "layout-nhwc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, PermuteConvWeight(), PermuteDenseColumns())
