"""What the planner and the emitter may ask of an op, declared by the op itself.

The planner never keeps lists of op names: it asks `TileCategory.of(op)`,
`SpatialWindow.of(op)` and `FusesActivation`. An op from another dialect becomes
plannable by declaring the same traits (see docs/extending.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException


class TileKind(Enum):
    """The tiling categories of spec/tiling.md."""

    SPATIAL = "spatial"  # windowed along H: contributes to receptive field and halo
    POINTWISE = "pointwise"  # element-wise: a band in, the same band out
    CHANNELWISE = "channelwise"  # along C only (concat, batch_norm)
    RESAMPLE = "resample"  # resize, pad: scales or shifts the band
    STRUCTURAL = "structural"  # needs the full spatial extent (reshape, transpose)
    DENSE = "dense"  # works on a flattened vector (fully_connected, softmax)

    @property
    def tileable(self) -> bool:
        return self not in (TileKind.STRUCTURAL, TileKind.DENSE)


@dataclass(frozen=True)
class TileCategory(OpTrait):
    """Declares how an op behaves when its stage is cut into height bands."""

    kind: TileKind

    @staticmethod
    def of(op: Operation) -> TileKind:
        """An op that declares nothing is structural: never tiled, always correct."""
        trait = op.get_trait(TileCategory)
        return trait.kind if trait is not None else TileKind.STRUCTURAL


@dataclass(frozen=True)
class Window:
    """One spatial op along H: output row r reads input rows r*stride - pad_begin + k*dilation."""

    kernel: int
    stride: int
    dilation: int
    pad_begin: int
    pad_end: int

    @property
    def effective_kernel(self) -> int:
        return self.kernel + (self.kernel - 1) * (self.dilation - 1)


def _ints(op: Operation, name: str) -> list[int] | None:
    attr: Attribute | None = op.properties.get(name)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    return None


@dataclass(frozen=True)
class SpatialWindow(OpTrait):
    """A spatial op's window along H (the first spatial axis).

    The default reads the conventional properties `kernel_shape` (else the weight's
    spatial dims, operand 1), `strides`, `dilations` and `pads` ([begins..., ends...]),
    with global pooling as a window covering the whole input. Ops whose parameters are
    spelled differently subclass this and override `window_h`.
    """

    global_window: bool = False

    def window_h(self, op: Operation) -> Window:
        in_type = op.operands[0].type
        assert isinstance(in_type, TensorType)
        shape = in_type.get_shape()
        spatial_rank = len(shape) - 2
        if self.global_window:
            return Window(shape[2], 1, 1, 0, 0)
        kernel = _ints(op, "kernel_shape")
        if kernel is None:
            w_type = op.operands[1].type
            assert isinstance(w_type, TensorType)
            kernel = list(w_type.get_shape()[2:])
        strides = _ints(op, "strides") or [1] * spatial_rank
        dilations = _ints(op, "dilations") or [1] * spatial_rank
        pads = _ints(op, "pads") or [0] * (2 * spatial_rank)
        return Window(kernel[0], strides[0], dilations[0], pads[0], pads[spatial_rank])

    @staticmethod
    def of(op: Operation) -> Window | None:
        trait = op.get_trait(SpatialWindow)
        return trait.window_h(op) if trait is not None else None


ACTIVATIONS = ("none", "relu", "relu6")


@dataclass(frozen=True)
class FusesActivation(OpTrait):
    """The op has a `fused_activation` property a following Relu/Relu6 can fold into."""

    def verify(self, op: Operation) -> None:
        from xdsl.dialects.builtin import StringAttr

        act = op.properties.get("fused_activation")
        if act is not None and (not isinstance(act, StringAttr) or act.data not in ACTIVATIONS):
            raise VerifyException(f"fused_activation must be one of {', '.join(ACTIVATIONS)}")


@dataclass(frozen=True)
class RuntimeOp(OpTrait):
    """The `tigris_op_type_t` value the emitter writes for this op (spec/c-api.md)."""

    op_type: int


def int_prop(op: Operation, name: str, default: int) -> int:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default
