"""fold-channel-shuffle: ShuffleNet's channel shuffle becomes one `tgr.gather` along C.

PyTorch exports `x.view(N, G, C/G, H, W).transpose(1, 2).reshape(N, C, H, W)` as
reshape -> transpose -> reshape. All three are structural (a band of rows of the result is not a
band of the input through a reshape), so the planner had to hold the whole map, and the shuffle
set the model's minimum budget. What the three compute together is only a permutation of the
channels: a gather with constant indices along axis 1, which the planner tiles channel-wise
(rows in, the same rows out).

The chain matched, for x of shape [N, C, d...] (rank >= 2, model order):

    a = reshape x    : [N, A, B, d...]     (A * B = C; every other axis unchanged)
    t = transpose a  : perm (0, 2, 1, 3, ...) -> [N, B, A, d...]
    y = reshape t    : [N, C, d...]        (x's shape again)

with a and t used only by the next op of the chain and one element type throughout (a transpose
between different quantization parameters also requantizes). Then y[:, j] = t[:, j // A, j % A]
= a[:, j % A, j // A] = x[:, (j % A) * B + j // A], so y = take(x, indices, axis=1) with
indices[j] = (j % A) * B + j // A. When A or B is 1 the permutation is the identity and y is x.
Anything else (a perm that moves another axis, a reshape that touches another axis, an
intermediate with a second user) is left as it is. No options.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.shapes import ints, shape_of
from tigris.dialects.tgr.ops_move import GatherOp
from tigris.dialects.tgr.ops_shape import ReshapeOp, TransposeOp
from tigris.transforms.rewriting import apply_patterns, carry_name

CHANNEL_AXIS = 1
"""The channel axis of the IR's model (NCHW) order."""


def shuffle_indices(groups: int, per_group: int) -> list[int]:
    """The input channel each output channel reads when [groups, per_group] channels are
    transposed to [per_group, groups]: output j = (p, g) with p = j // groups, g = j % groups,
    reads input (g, p) = g * per_group + p."""
    return [(j % groups) * per_group + j // groups for j in range(groups * per_group)]


def _split_channels(x: tuple[int, ...], a: tuple[int, ...]) -> tuple[int, int] | None:
    """(A, B) if a is x with the channel axis split in two, A * B = C, else None."""
    c = CHANNEL_AXIS
    if len(a) != len(x) + 1 or a[:c] != x[:c] or a[c + 2 :] != x[c + 1 :] or a[c] * a[c + 1] != x[c]:
        return None
    return a[c], a[c + 1]


def _swaps_split_axes(perm: list[int]) -> bool:
    """perm exchanges axes 1 and 2 and keeps every other axis in place."""
    c = CHANNEL_AXIS
    want = list(range(len(perm)))
    want[c], want[c + 1] = c + 1, c
    return perm == want


def _element(value: SSAValue) -> object:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


class FoldChannelShuffle(RewritePattern):
    """Anchored on the reshape that joins the channels again; walks up the single-use chain."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter) -> None:
        moved = op.input.owner
        if not isinstance(moved, TransposeOp) or not moved.output.has_one_use():
            return
        split = moved.input.owner
        if not isinstance(split, ReshapeOp) or not split.output.has_one_use():
            return
        x = split.input
        shape = shape_of(x)
        if len(shape) < 2 or shape_of(op.output) != shape or not _swaps_split_axes(ints(moved, "perm") or []):
            return
        if len({_element(v) for v in (x, split.output, moved.output, op.output)}) != 1:
            return
        factors = _split_channels(shape, shape_of(split.output))
        if factors is None:
            return
        indices = shuffle_indices(*factors)
        if indices == sorted(indices):  # one group, or groups of one channel: y is x
            rewriter.replace(op, [], [x])
            return
        props = {"axis": IntegerAttr(CHANNEL_AXIS, i64), "indices": DenseArrayBase.from_list(i64, indices)}
        gather = GatherOp.build(operands=[x, []], result_types=[op.output.type], properties=props)
        rewriter.replace(op, carry_name(moved, gather))  # the transpose is the node that shuffles


@dataclass(frozen=True)
class FoldChannelShufflePass(ModulePass):
    name = "fold-channel-shuffle"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, FoldChannelShuffle())
