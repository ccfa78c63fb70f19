"""`tgr` ops with a sliding window or a weight matrix: convolutions, pools, dense layers.

Tensors stay in ONNX's NCHW order in the IR; `layout-nhwc` rewrites weights for
the runtime at the end. Missing strides/dilations/pads mean 1/1/0 on every axis.

Weight layouts. A weighted op's optional `weight_layout` property names the order of its
weight; absent means ONNX's. The verifiers, the planner's window trait and the interpreter
read every weight through `onnx_weight_shape` / `onnx_weight`, so the IR stays valid and
computes the same numbers in either layout:

    op                 ONNX (absent)              weight_layout
    tgr.conv           [O, I/g, KH, KW]           "ohwi"   [O, KH, KW, I/g]
    tgr.depthwise_conv [C*m, 1, KH, KW]           "hwc"    [KH, KW, C*m]
    tgr.conv1d         [O, I/g, K]                "oki"    [O, K, I/g]
    tgr.conv_transpose [I, O/g, KH, KW]           "ohwi"   [O, KH, KW, I/g]  (output channel
                                                           o = group * O/g + j, as ONNX numbers them)
                       [I, O/g, K] (1-D)          "oki"    [O, K, I/g]       (the same order)
    tgr.fully_connected [M, K], K in (c, h, w)    "nk_hwc" [M, K], K in (h, w, c): the input is
                                                           a rank-4 [N, C, H, W] flattened (see
                                                           `flattened_chw`), which the NHWC runtime
                                                           holds in (h, w, c) order
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
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
from tigris.dialects.tgr.plan_attrs import STORED_ORDER
from tigris.dialects.tgr.record_fields import Fields, RecordFieldError, window_fields
from tigris.dialects.tgr.runtime_enums import OpFlag, OpType
from tigris.dialects.tgr.ops_shape import FlattenOp, ReshapeOp
from tigris.dialects.tgr.traits import (
    AccumulatesRows,
    FusesActivation,
    RuntimeOp,
    SpatialWindow,
    TileCategory,
    TileKind,
    int_prop,
)

_NONE = StringAttr("none")


# -- weight layouts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class WeightLayout(ABC):
    """A runtime order of a convolution weight, from and to ONNX's (see the module docstring).

    `channel_axis` is where the output channels end up: the axis of a per-channel quantized
    weight's `!tgr.quant` type in this layout."""

    name: str
    rank: int  # of the ONNX weight
    channel_axis: int

    @property
    def stored_rank(self) -> int:
        return self.rank

    @abstractmethod
    def onnx_shape(self, shape: Sequence[int], group: int) -> tuple[int, ...]: ...

    @abstractmethod
    def from_onnx(self, w: np.ndarray, group: int) -> np.ndarray: ...

    @abstractmethod
    def to_onnx(self, w: np.ndarray, group: int) -> np.ndarray: ...


@dataclass(frozen=True)
class ChannelsLast(WeightLayout):
    """[O, I/g, *K] -> [O, *K, I/g] (conv "ohwi", conv1d "oki")."""

    channel_axis: int = 0

    def _perm(self) -> tuple[int, ...]:
        return (0, *range(2, self.rank), 1)

    def onnx_shape(self, shape: Sequence[int], group: int) -> tuple[int, ...]:
        return (shape[0], shape[-1], *shape[1:-1])

    def from_onnx(self, w: np.ndarray, group: int) -> np.ndarray:
        return np.ascontiguousarray(np.transpose(w, self._perm()))

    def to_onnx(self, w: np.ndarray, group: int) -> np.ndarray:
        return np.ascontiguousarray(np.transpose(w, np.argsort(self._perm())))


@dataclass(frozen=True)
class DepthwiseHWC(WeightLayout):
    """[C*m, 1, KH, KW] -> [KH, KW, C*m]: the unit axis goes, channels last."""

    rank: int = 4
    channel_axis: int = 2

    @property
    def stored_rank(self) -> int:
        return 3

    def onnx_shape(self, shape: Sequence[int], group: int) -> tuple[int, ...]:
        return (shape[2], 1, shape[0], shape[1])

    def from_onnx(self, w: np.ndarray, group: int) -> np.ndarray:
        return np.ascontiguousarray(np.transpose(w[:, 0], (1, 2, 0)))

    def to_onnx(self, w: np.ndarray, group: int) -> np.ndarray:
        return np.ascontiguousarray(np.transpose(w, (2, 0, 1))[:, None])


@dataclass(frozen=True)
class TransposedOHWI(WeightLayout):
    """conv_transpose [I, O/g, *K] -> [O, *K, I/g], output channel o = g * O/g + j ("ohwi" for
    2-D, "oki" with rank 3 for 1-D).

    A per-channel weight's O/g scales (ONNX axis 1, the same for every group) become O."""

    rank: int = 4
    channel_axis: int = 0

    def onnx_shape(self, shape: Sequence[int], group: int) -> tuple[int, ...]:
        o, *kernel, i_g = shape
        return (i_g * group, o // group, *kernel)

    def from_onnx(self, w: np.ndarray, group: int) -> np.ndarray:
        i, o_g, *kernel = w.shape
        k = len(kernel)
        grouped = w.reshape(group, i // group, o_g, *kernel).transpose(0, 2, *range(3, 3 + k), 1)
        return np.ascontiguousarray(grouped.reshape(group * o_g, *kernel, i // group))

    def to_onnx(self, w: np.ndarray, group: int) -> np.ndarray:
        o, *kernel, i_g = w.shape
        k = len(kernel)
        grouped = w.reshape(group, o // group, *kernel, i_g).transpose(0, 2 + k, 1, *range(2, 2 + k))
        return np.ascontiguousarray(grouped.reshape(group * i_g, o // group, *kernel))


NK_HWC = "nk_hwc"
"""fully_connected's runtime layout: weight columns in (h, w, c) order."""


def flattened_chw(value: SSAValue) -> tuple[int, int, int] | None:
    """(C, H, W) when `value` [N, C*H*W] is a rank-4 [N, C, H, W] passed through tgr.flatten /
    tgr.reshape ops only (the nearest rank-4 value up that chain); else None.

    The runtime keeps activations NHWC; when only "nk_hwc" fully_connected ops read the chain,
    `layout-nhwc` marks its reshapes `tgr.stored_order` (byte copies at run time), so such a
    `value` holds its features in (h, w, c) order there, not ONNX's (c, h, w)."""
    shape = shape_of(value)
    if len(shape) != 2:
        return None
    source = value
    while isinstance(source.owner, FlattenOp | ReshapeOp):
        source = source.owner.input
        nchw = shape_of(source)
        if len(nchw) == 4:
            n, c, h, w = nchw
            return (c, h, w) if n == shape[0] and c * h * w == shape[1] else None
    return None


def hwc_columns(w: np.ndarray, chw: tuple[int, int, int]) -> np.ndarray:
    """A [M, C*H*W] weight's columns from (c, h, w) order to (h, w, c)."""
    c, h, width = chw
    return np.ascontiguousarray(w.reshape(w.shape[0], c, h, width).transpose(0, 2, 3, 1).reshape(w.shape))


def chw_columns(w: np.ndarray, chw: tuple[int, int, int]) -> np.ndarray:
    """The inverse of `hwc_columns`."""
    c, h, width = chw
    return np.ascontiguousarray(w.reshape(w.shape[0], h, width, c).transpose(0, 3, 1, 2).reshape(w.shape))


def layout_of(op: Operation) -> str | None:
    """The op's `weight_layout`, None for ONNX's."""
    attr = op.properties.get("weight_layout")
    return attr.data if isinstance(attr, StringAttr) else None


class WeightedOp(PositionalSyntax):
    """An op with `weight` operand 1 in ONNX's or its runtime layout (`runtime_layout()`,
    `WEIGHT_LAYOUT` unless the op picks one by rank)."""

    WEIGHT_LAYOUT: ClassVar[WeightLayout]
    ONNX_CHANNEL_AXIS: ClassVar[int] = 0
    weight_layout = opt_prop_def(StringAttr)

    def groups(self) -> int:
        return int_prop(self, "group", 1)

    def runtime_layout(self) -> WeightLayout:
        """The layout `layout-nhwc` gives this op's weight."""
        return self.WEIGHT_LAYOUT

    def _layout(self) -> WeightLayout | None:
        name = layout_of(self)
        if name is None:
            return None
        want = self.runtime_layout()
        if name != want.name:
            raise VerifyException(f'{self.name}: weight_layout must be "{want.name}", got "{name}"')
        return want

    def onnx_weight_shape(self) -> tuple[int, ...]:
        """The weight's shape in ONNX order, whichever layout it is stored in."""
        shape = shape_of(self.operands[1])
        layout = self._layout()
        if layout is None:
            return shape
        rank = layout.stored_rank
        if len(shape) != rank:
            raise VerifyException(
                f'{self.name}: weight_layout "{layout.name}" needs a rank-{rank} weight, got {shape}'
            )
        return layout.onnx_shape(shape, self.groups())

    def onnx_weight(self, w: np.ndarray) -> np.ndarray:
        """The weight array `w` (in this op's layout) in ONNX order, C-contiguous like a weight
        that was never permuted (numpy's matmul may sum a strided operand in another order)."""
        layout = self._layout()
        return w if layout is None else layout.to_onnx(w, self.groups())

    def weight_channel_axis(self) -> int:
        """The axis of the weight holding output channels (per-channel quantization)."""
        layout = self._layout()
        return self.ONNX_CHANNEL_AXIS if layout is None else layout.channel_axis


@dataclass(frozen=True)
class _ConvWindow(SpatialWindow):
    """The windows with the kernel read through `onnx_weight_shape`, whatever the weight's layout."""

    def kernel_shape(self, op: Operation) -> list[int]:
        assert isinstance(op, WeightedOp)
        return list(op.onnx_weight_shape()[2:])


class _ConvBase(WeightedOp):
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

    def verify_(self) -> None:
        x, w = shape_of(self.input), self.onnx_weight_shape()
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

    def runtime_fields(self) -> Fields:
        return window_fields(self, self.onnx_weight_shape()[2:]) | {"group": self.groups()}


_CONV_TRAITS = (Pure(), TileCategory(TileKind.SPATIAL), _ConvWindow(), FusesActivation())


@irdl_op_definition
class ConvOp(_ConvBase):
    """2-D convolution; rank 3 (N, C, L) is accepted until `relabel-conv1d` renames it."""

    name = "tgr.conv"
    RANKS: ClassVar[tuple[int, ...]] = (3, 4)
    WEIGHT_LAYOUT: ClassVar[WeightLayout] = ChannelsLast("ohwi", 4)
    group = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(*_CONV_TRAITS, RuntimeOp(OpType.CONV))


@irdl_op_definition
class DepthwiseConvOp(_ConvBase):
    """One filter group per input channel; weight [C * multiplier, 1, KH, KW]."""

    name = "tgr.depthwise_conv"
    WEIGHT_LAYOUT: ClassVar[WeightLayout] = DepthwiseHWC("hwc")
    traits = traits_def(*_CONV_TRAITS, RuntimeOp(OpType.DEPTHWISE))

    def groups(self) -> int:
        return shape_of(self.input)[1]

    def runtime_fields(self) -> Fields:
        """The record's `group` is the channel multiplier, what the depthwise kernel reads."""
        multiplier = shape_of(self.output)[1] // max(1, shape_of(self.input)[1])
        return super().runtime_fields() | {"group": multiplier}


@irdl_op_definition
class Conv1dOp(_ConvBase):
    """Convolution over [N, C, L]; L plays the role of H for tiling."""

    name = "tgr.conv1d"
    RANKS: ClassVar[tuple[int, ...]] = (3,)
    WEIGHT_LAYOUT: ClassVar[WeightLayout] = ChannelsLast("oki", 3)
    group = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(*_CONV_TRAITS, RuntimeOp(OpType.CONV1D))


@irdl_op_definition
class ConvTransposeOp(WeightedOp):
    """Transposed convolution; weight [C_in, C_out / group, KH, KW]. Not tiled."""

    name = "tgr.conv_transpose"
    WEIGHT_LAYOUT: ClassVar[WeightLayout] = TransposedOHWI("ohwi")
    WEIGHT_LAYOUT_1D: ClassVar[WeightLayout] = TransposedOHWI("oki", 3)
    ONNX_CHANNEL_AXIS: ClassVar[int] = 1
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    output_padding = opt_prop_def(DenseArrayBase)
    group = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.STRUCTURAL), RuntimeOp(OpType.CONV_TRANSPOSE))

    def runtime_layout(self) -> WeightLayout:
        return self.WEIGHT_LAYOUT_1D if len(shape_of(self.input)) == 3 else self.WEIGHT_LAYOUT

    def verify_(self) -> None:
        group = int_prop(self, "group", 1)
        if layout_of(self) is not None and (group < 1 or shape_of(self.weight)[0] % group):
            raise VerifyException(f"tgr.conv_transpose: group {group} does not divide the output channels")
        x, w = shape_of(self.input), self.onnx_weight_shape()
        rank = len(x) - 2
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

    def runtime_fields(self) -> Fields:
        return window_fields(self, self.onnx_weight_shape()[2:]) | {
            "group": int_prop(self, "group", 1),
            "params": tuple(ints(self, "output_padding") or ()),
        }


@irdl_op_definition
class FullyConnectedOp(WeightedOp):
    """y = x @ W^T + b with x [N, K], W [M, K] (PyTorch Linear layout), b [M].

    With weight_layout = "nk_hwc" W's columns are in (h, w, c) order of the rank-4 tensor
    its input was flattened from (`flattened_chw`)."""

    name = "tgr.fully_connected"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    fused_activation = prop_def(StringAttr, default_value=_NONE)
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), FusesActivation(), RuntimeOp(OpType.FULLY_CONN))

    def _chw(self) -> tuple[int, int, int] | None:
        name = layout_of(self)
        if name is None:
            return None
        if name != NK_HWC:
            raise VerifyException(f'tgr.fully_connected: weight_layout must be "{NK_HWC}", got "{name}"')
        chw = flattened_chw(self.input)
        if chw is None:
            raise VerifyException(
                f'tgr.fully_connected: weight_layout "{NK_HWC}" needs an input flattened from a rank-4 '
                "[N, C, H, W] by tgr.flatten/tgr.reshape"
            )
        return chw

    def onnx_weight_shape(self) -> tuple[int, ...]:
        self._chw()
        return shape_of(self.weight)

    def onnx_weight(self, w: np.ndarray) -> np.ndarray:
        chw = self._chw()
        return w if chw is None else chw_columns(w, chw)

    def weight_channel_axis(self) -> int:
        return 0

    def verify_(self) -> None:
        x, w = shape_of(self.input), self.onnx_weight_shape()
        if len(x) != 2 or len(w) != 2 or x[1] != w[1]:
            raise VerifyException(f"tgr.fully_connected: input {x} and weight {w} need [N, K] and [M, K]")
        if self.bias is not None and shape_of(self.bias) != (w[0],):
            raise VerifyException(f"tgr.fully_connected: bias must have shape ({w[0]},)")
        expect_shape(self, shape_of(self.output), (x[0], w[0]))

    def runtime_fields(self) -> Fields:
        """No parameters; an "nk_hwc" weight reads its flattened map in (h, w, c) order, so
        every reshape up to the rank-4 map must copy the stored bytes (`tgr.stored_order`)."""
        if layout_of(self) == NK_HWC:
            source = self.input
            while isinstance(source.owner, FlattenOp | ReshapeOp) and len(shape_of(source)) != 4:
                if STORED_ORDER not in source.owner.attributes:
                    msg = f'weight_layout "{NK_HWC}" reads a flatten that is not {STORED_ORDER}'
                    raise RecordFieldError(msg)
                source = source.owner.input
        return {}


@irdl_op_definition
class MatMulOp(PositionalSyntax):
    """numpy.matmul of two activations (or an activation and a weight)."""

    name = "tgr.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure(), TileCategory(TileKind.DENSE), RuntimeOp(OpType.MATMUL))

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

    def runtime_fields(self) -> Fields:
        flags = OpFlag.CEIL_MODE if self.ceil_mode.value.data else OpFlag(0)
        return window_fields(self, ints(self, "kernel_shape") or []) | {"flags": flags}


@irdl_op_definition
class MaxPoolOp(_PoolBase):
    name = "tgr.max_pool"
    dilations = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), RuntimeOp(OpType.MAX_POOL))


@irdl_op_definition
class AvgPoolOp(_PoolBase):
    name = "tgr.avg_pool"
    count_include_pad = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), SpatialWindow(), RuntimeOp(OpType.AVG_POOL))

    def runtime_fields(self) -> Fields:
        fields = super().runtime_fields()
        if self.count_include_pad.value.data:
            fields["flags"] = OpFlag(fields["flags"]) | OpFlag.COUNT_INCLUDE_PAD
        return fields


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
    # float32: a Kahan-compensated sum, so a sum and a compensation per channel
    traits = traits_def(*_GLOBAL, RuntimeOp(OpType.GLOBAL_AVG), AccumulatesRows(float_bytes=8))


@irdl_op_definition
class GlobalMaxPoolOp(_GlobalPoolBase):
    name = "tgr.global_max_pool"
    traits = traits_def(*_GLOBAL, RuntimeOp(OpType.GLOBAL_MAX), AccumulatesRows(float_bytes=4))
