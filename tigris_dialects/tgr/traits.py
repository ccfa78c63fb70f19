"""What the planner and the emitter may ask of an op, declared by the op itself.

The planner never keeps lists of op names: it asks `TileCategory.of(op)`,
`SpatialWindow.of(op)` and `FusesActivation`. An op from another dialect becomes
plannable by declaring the same traits (see docs/extending.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.tgr.record_fields import channels_last_order
from tigris.dialects.tgr.runtime_enums import Activation


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

    def kind_for(self, op: Operation, spatial_axis: int = 0) -> TileKind:
        """The category of this op instance when tiles cut spatial axis `spatial_axis` (0: H, the rows
        of every tile plan; 1: W, the columns of 2-D tiles); subclasses refine it from
        properties (an op that joins or picks along that axis cannot be cut along it)."""
        return self.kind

    @staticmethod
    def of(op: Operation, spatial_axis: int = 0) -> TileKind:
        """An op that declares nothing is structural: never tiled, always correct."""
        trait = op.get_trait(TileCategory)
        return trait.kind_for(op, spatial_axis) if trait is not None else TileKind.STRUCTURAL


@dataclass(frozen=True)
class ConcatTileCategory(TileCategory):
    """Concatenation is channel-wise unless it joins along the axis the tiles cut (H, or W for
    2-D tiles): then a band of the output is not a band of each input, and the op needs the
    full extent."""

    kind: TileKind = TileKind.CHANNELWISE

    def kind_for(self, op: Operation, spatial_axis: int = 0) -> TileKind:
        from xdsl.dialects.builtin import StringAttr

        rank = len(op.results[0].type.get_shape())  # type: ignore[union-attr]
        axis = int_prop(op, "axis", 0) % rank
        layout = op.properties.get("layout")
        if isinstance(layout, StringAttr) and layout.data == "nhwc" and rank == 4:
            axis = channels_last_order(rank)[axis]  # NHWC axis -> NCHW axis
        return TileKind.STRUCTURAL if rank >= 3 and axis == 2 + spatial_axis else self.kind


@dataclass(frozen=True)
class ChannelPickTileCategory(TileCategory):
    """A slice or gather that picks along the channel axis only (a ShuffleNet split, a folded
    channel shuffle) is channel-wise: every pixel of the output is the same pixel of the input,
    so a band of rows, or a 2-D window, of the output is the same band or window of the input.
    Anything else is structural: a slice with a start, step or count of its own along another
    axis moves or drops rows, a gather along another axis (or with run-time indices, which can
    change the rank) reorders them.

    The op's properties are in model (NCHW) order whatever the stored layout (the records are
    converted at emission), so no `layout` needs minding here, unlike ConcatTileCategory. A
    slice is recognized by its `starts`/`steps`, a gather by its constant `indices` and `axis`."""

    kind: TileKind = TileKind.CHANNELWISE

    def kind_for(self, op: Operation, spatial_axis: int = 0) -> TileKind:
        return self.kind if picks_channels_only(op) else TileKind.STRUCTURAL


def picks_channels_only(op: Operation) -> bool:
    """Whether a one-operand slice / gather `op` changes only axis 1 (C) of a rank >= 2 tensor."""
    x = op.operands[0].type.get_shape()  # type: ignore[union-attr]
    y = op.results[0].type.get_shape()  # type: ignore[union-attr]
    if len(x) < 2 or len(x) != len(y) or len(op.operands) != 1:
        return False
    starts, steps = _ints(op, "starts"), _ints(op, "steps")
    if starts is not None and steps is not None:
        return all(a == 1 or (starts[a], steps[a], x[a]) == (0, 1, y[a]) for a in range(len(x)))
    return _ints(op, "indices") is not None and int_prop(op, "axis", 0) % len(x) == 1


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
    """A spatial op's window along each spatial axis (H, then W: 2-D tiles cut both).

    The default reads the conventional properties `kernel_shape` (else the weight's
    spatial dims, operand 1), `strides`, `dilations` and `pads` ([begins..., ends...]),
    with global pooling as a window covering the whole input. Ops whose kernel is spelled
    differently subclass this and override `kernel_shape`.
    """

    global_window: bool = False

    def kernel_shape(self, op: Operation) -> list[int]:
        kernel = _ints(op, "kernel_shape")
        if kernel is None:
            w_type = op.operands[1].type
            assert isinstance(w_type, TensorType)
            kernel = list(w_type.get_shape()[2:])
        return kernel

    def window_along(self, op: Operation, axis: int) -> Window | None:
        """The window along spatial axis `axis` (0: H, 1: W); None if the input has no such axis."""
        in_type = op.operands[0].type
        assert isinstance(in_type, TensorType)
        shape = in_type.get_shape()
        spatial_rank = len(shape) - 2
        if not 0 <= axis < spatial_rank:
            return None
        if self.global_window:
            return Window(shape[2 + axis], 1, 1, 0, 0)
        kernel = self.kernel_shape(op)
        strides = _ints(op, "strides") or [1] * spatial_rank
        dilations = _ints(op, "dilations") or [1] * spatial_rank
        pads = _ints(op, "pads") or [0] * (2 * spatial_rank)
        return Window(kernel[axis], strides[axis], dilations[axis], pads[axis], pads[spatial_rank + axis])

    @staticmethod
    def of(op: Operation, axis: int = 0) -> Window | None:
        """The op's window along spatial axis `axis` (0: H, 1: W), None for a non-spatial op."""
        trait = op.get_trait(SpatialWindow)
        return trait.window_along(op, axis) if trait is not None else None


@dataclass(frozen=True)
class AccumulatesRows(OpTrait):
    """The op reduces its whole input (over H and W) to one value per (batch, channel) and can do
    so band by band: with reduction tiles it sees its input a few rows at a time, keeps a running
    accumulator in the arena across the tiles and writes its output after the last one.

    `float_bytes` / `int8_bytes` are the accumulator bytes per (batch, channel) the runtime's
    kernel keeps for a float32 / an int8 input; the kernel refuses a smaller accumulator."""

    float_bytes: int
    int8_bytes: int = 4

    def acc_bytes(self, op: Operation) -> int:
        in_type = op.operands[0].type
        assert isinstance(in_type, TensorType)
        shape = in_type.get_shape()
        per = self.float_bytes if isinstance(in_type.element_type, Float32Type) else self.int8_bytes
        return shape[0] * shape[1] * per

    @staticmethod
    def of(op: Operation) -> int | None:
        """Accumulator bytes of an op that can reduce over tiles, else None."""
        trait = op.get_trait(AccumulatesRows)
        return trait.acc_bytes(op) if trait is not None else None


@dataclass(frozen=True)
class RowMap(OpTrait):
    """For a non-window op that moves rows along H (pad, resize): which input rows output
    rows [start, end) read, and how many rows a band of `rows` output rows can need."""

    def input_range(self, op: Operation, start: int, end: int, in_height: int) -> tuple[int, int]:
        return (max(0, start), min(in_height, end))

    def rows_needed(self, op: Operation, rows: int, in_height: int) -> int:
        return min(in_height, rows)

    @staticmethod
    def of(op: Operation) -> RowMap | None:
        return op.get_trait(RowMap)


def _h_pads(op: Operation) -> tuple[int, int]:
    pads = _ints(op, "pads") or []
    rank = len(pads) // 2
    return (pads[2], pads[rank + 2]) if rank >= 3 else (0, 0)


@dataclass(frozen=True)
class PadRows(RowMap):
    """Output row r is input row r - pad_top (rows outside the input are padding)."""

    def input_range(self, op: Operation, start: int, end: int, in_height: int) -> tuple[int, int]:
        top, _ = _h_pads(op)
        lo, hi = max(0, start - top), min(in_height, end - top)
        return (lo, hi) if hi > lo else (min(lo, in_height - 1), min(lo, in_height - 1) + 1)


@dataclass(frozen=True)
class ResizeRows(RowMap):
    """Upsampling by an integer factor k along H: nearest reads rows [s // k, ceil(e / k));
    linear also the row before (half_pixel) and after, whichever coordinate mode is used."""

    def _scale_linear(self, op: Operation) -> tuple[int, bool]:
        from xdsl.dialects.builtin import StringAttr

        scales = _ints(op, "scales") or []
        mode = op.properties.get("mode")
        return (scales[2] if len(scales) >= 3 else 1), isinstance(mode, StringAttr) and mode.data == "linear"

    def input_range(self, op: Operation, start: int, end: int, in_height: int) -> tuple[int, int]:
        k, linear = self._scale_linear(op)
        if linear:
            lo, hi = math.floor((start + 0.5) / k - 0.5), (end - 1) // k + 2
        else:
            lo, hi = start // k, -(-end // k)
        return (max(0, lo), min(in_height, max(hi, lo + 1)))

    def rows_needed(self, op: Operation, rows: int, in_height: int) -> int:
        k, linear = self._scale_linear(op)
        return min(in_height, -(-rows // k) + (2 if linear else 1))


ACTIVATIONS = tuple(a.name.lower() for a in Activation)
"""The `fused_activation` values: the runtime's `Activation` members, lower-case."""


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
    """The `tigris_op_type_t` value the emitter writes for this op (spec/c-api.md).

    A `tgr` op names an `OpType` member (`RuntimeOp(OpType.CONV)`, never a bare number: a test
    checks that the dialect and the enum agree one to one); a plugin's op gives a number in
    `EXTENSION_OP_TYPES`."""

    op_type: int


def int_prop(op: Operation, name: str, default: int) -> int:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default
