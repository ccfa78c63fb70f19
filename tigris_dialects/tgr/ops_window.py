"""`tgr` ops with a sliding window or a weight matrix: convolutions, pools, dense layers.

Tensors stay in ONNX's NCHW order in the IR; `layout-nhwc` rewrites weights for
the runtime at the end. Missing strides/dilations/pads mean 1/1/0 on every axis.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, StringAttr, TensorType, i64
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.shapes import expect_shape, ints, shape_of, windowed_shape
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.traits import (
    FusesActivation,
    RuntimeOp,
    SpatialWindow,
    TileCategory,
    TileKind,
    int_prop,
)

_NONE = StringAttr("none")


class _ConvBase(PositionalSyntax):
    """conv, depthwise_conv, conv1d: input, weight [O, I/group, k...], optional bias [O]."""

    RANKS: ClassVar[tuple[int, ...]] = (4,)
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    fused_activation = prop_def(StringAttr, default_value=_NONE)

    def groups(self) -> int:
        return int_prop(self, "group", 1)

    def verify_(self) -> None:
        x, w = shape_of(self.input), shape_of(self.weight)
        if len(x) not in self.RANKS or len(w) != len(x):
            ranks = " or ".join(map(str, self.RANKS))
            raise VerifyException(f"{self.name} needs rank-{ranks} input and weight, got {x} and {w}")
        group = self.groups()
        if group < 1 or x[1] != w[1] * group or w[0] % group:
            raise VerifyException(
                f"{self.name}: input channels {x[1]} != weight in-channels {w[1]} x group {group}"
            )
        if self.bias is not None and shape_of(self.bias) != (w[0],):
            raise VerifyException(f"{self.name}: bias must have shape ({w[0]},)")
        expect_shape(self, shape_of(self.output), windowed_shape(self, x, w[2:], w[0]))


_CONV_TRAITS = (Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), FusesActivation())


@irdl_op_definition
class ConvOp(_ConvBase):
    """2-D convolution; rank 3 (N, C, L) is accepted until `relabel-conv1d` renames it."""

    name = "tgr.conv"
    RANKS: ClassVar[tuple[int, ...]] = (3, 4)
    group = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(*_CONV_TRAITS, RuntimeOp(1))


@irdl_op_definition
class DepthwiseConvOp(_ConvBase):
    """One filter group per input channel; weight [C * multiplier, 1, KH, KW]."""

    name = "tgr.depthwise_conv"
    traits = traits_def(*_CONV_TRAITS, RuntimeOp(2))

    def groups(self) -> int:
        return shape_of(self.input)[1]


@irdl_op_definition
class Conv1dOp(_ConvBase):
    """Convolution over [N, C, L]; L plays the role of H for tiling."""

    name = "tgr.conv1d"
    RANKS: ClassVar[tuple[int, ...]] = (3,)
    group = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(*_CONV_TRAITS, RuntimeOp(32))


@irdl_op_definition
class ConvTransposeOp(PositionalSyntax):
    """Transposed convolution; weight [C_in, C_out / group, KH, KW]. Not tiled."""

    name = "tgr.conv_transpose"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    output_padding = opt_prop_def(DenseArrayBase)
    group = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.STRUCTURAL), RuntimeOp(24))

    def verify_(self) -> None:
        x, w = shape_of(self.input), shape_of(self.weight)
        rank = len(x) - 2
        group = int_prop(self, "group", 1)
        if len(w) != len(x) or w[0] != x[1]:
            raise VerifyException(f"tgr.conv_transpose: weight {w} does not match input {x}")
        s = ints(self, "strides") or [1] * rank
        d = ints(self, "dilations") or [1] * rank
        p = ints(self, "pads") or [0] * (2 * rank)
        op_ = ints(self, "output_padding") or [0] * rank
        spatial = [
            s[i] * (x[2 + i] - 1) + op_[i] + (w[2 + i] - 1) * d[i] + 1 - p[i] - p[rank + i]
            for i in range(rank)
        ]
        expect_shape(self, shape_of(self.output), (x[0], w[1] * group, *spatial))


@irdl_op_definition
class FullyConnectedOp(PositionalSyntax):
    """y = x @ W^T + b with x [N, K], W [M, K] (PyTorch Linear layout), b [M]."""

    name = "tgr.fully_connected"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    fused_activation = prop_def(StringAttr, default_value=_NONE)
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), FusesActivation(), RuntimeOp(9))

    def verify_(self) -> None:
        x, w = shape_of(self.input), shape_of(self.weight)
        if len(x) != 2 or len(w) != 2 or x[1] != w[1]:
            raise VerifyException(f"tgr.fully_connected: input {x} and weight {w} need [N, K] and [M, K]")
        if self.bias is not None and shape_of(self.bias) != (w[0],):
            raise VerifyException(f"tgr.fully_connected: bias must have shape ({w[0]},)")
        expect_shape(self, shape_of(self.output), (x[0], w[0]))


@irdl_op_definition
class MatMulOp(PositionalSyntax):
    """numpy.matmul of two activations (or an activation and a weight)."""

    name = "tgr.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(25))

    def verify_(self) -> None:
        a, b = shape_of(self.lhs), shape_of(self.rhs)
        if len(a) < 2 or len(b) < 2 or a[-1] != b[-2]:
            raise VerifyException(f"tgr.matmul: shapes {a} and {b} do not multiply")


class _PoolBase(PositionalSyntax):
    input = operand_def(TensorType)
    output = result_def(TensorType)
    kernel_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    ceil_mode = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    def verify_(self) -> None:
        x = shape_of(self.input)
        kernel = ints(self, "kernel_shape") or []
        ceil = int_prop(self, "ceil_mode", 0) == 1
        expect_shape(self, shape_of(self.output), windowed_shape(self, x, kernel, x[1], ceil))


@irdl_op_definition
class MaxPoolOp(_PoolBase):
    name = "tgr.max_pool"
    dilations = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), RuntimeOp(5))


@irdl_op_definition
class AvgPoolOp(_PoolBase):
    name = "tgr.avg_pool"
    count_include_pad = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), RuntimeOp(6))


class _GlobalPoolBase(PositionalSyntax):
    input = operand_def(TensorType)
    output = result_def(TensorType)

    def verify_(self) -> None:
        x = shape_of(self.input)
        if len(x) < 3:
            raise VerifyException(f"{self.name} needs an input of rank >= 3, got {x}")
        expect_shape(self, shape_of(self.output), (x[0], x[1], *([1] * (len(x) - 2))))


_GLOBAL = (Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(global_window=True))


@irdl_op_definition
class GlobalAvgPoolOp(_GlobalPoolBase):
    name = "tgr.global_avg_pool"
    traits = traits_def(*_GLOBAL, RuntimeOp(15))


@irdl_op_definition
class GlobalMaxOp(_GlobalPoolBase):
    name = "tgr.global_max"
    traits = traits_def(*_GLOBAL, RuntimeOp(31))
