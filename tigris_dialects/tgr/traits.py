"""What the planner and the emitter may ask of an op, declared by the op itself.

The planner never keeps lists of op names: it asks `TileCategory.of(op)`,
`SpatialWindow.of(op)` and `FusesActivation`. An op from another dialect becomes
plannable by declaring the same traits (see docs/extending.md).
"""

from __future__ import annotations

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
    """For a non-window op that moves pixels along a spatial axis (pad, resize): which input
    indices output indices [start, end) read along `axis` (0: H, model axis 2; 1: W, model axis
    3), and how many a band of `count` outputs can need. One rule per axis, the same along H and
    W: the planner's band sizes, its exact per-tile ranges and the runtime's twin
    (tigris_bands.c) all read it. Every range is exactly the hull of the kernel's reads, clamped
    to the input and never empty (geometry._clamp)."""

    def input_range(
        self, op: Operation, start: int, end: int, in_size: int, axis: int = 0
    ) -> tuple[int, int]:
        return (max(0, start), min(in_size, end))

    def rows_needed(self, op: Operation, rows: int, in_size: int, axis: int = 0) -> int:
        """An upper bound of `input_range`'s extent over every band of `rows` outputs."""
        return min(in_size, rows)

    def along(self, op: Operation, axis: int) -> bool:
        """Whether the op has spatial axis `axis` (model axis 2 + axis), so tiles may cut it
        (2-D tiles ask W): `input_range` holds along every axis the op has."""
        shape = op.operands[0].type.get_shape() if isinstance(op.operands[0].type, TensorType) else ()
        return len(shape) > 2 + axis

    @staticmethod
    def of(op: Operation) -> RowMap | None:
        return op.get_trait(RowMap)


def _h_pads(op: Operation, axis: int = 0) -> tuple[int, int]:
    """The (begin, end) pads of spatial axis `axis` (0: H, 1: W; model order, negative crops);
    (0, 0) if the op has none."""
    pads = _ints(op, "pads") or []
    rank = len(pads) // 2
    return (pads[2 + axis], pads[rank + 2 + axis]) if rank >= 3 + axis else (0, 0)


def _str_prop(op: Operation, name: str, default: str) -> str:
    from xdsl.dialects.builtin import StringAttr

    attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else default


def _triangle_hull(a: int, b: int, length: int) -> tuple[int, int]:
    """The hull [lo, hi) of reflect(t) for t in [a, b]: numpy's reflect of `length` kept indices
    is a triangle wave of period 2 (length - 1), monotone between its troughs (t = 0 mod period,
    value 0) and peaks (t = length - 1 mod period, value length - 1)."""
    if length == 1:
        return (0, 1)
    period = 2 * (length - 1)

    def reflect(t: int) -> int:
        m = t % period
        return m if m < length else period - m

    ends = (reflect(a), reflect(b))
    trough = b // period * period >= a
    peak = (b - (length - 1)) // period * period + length - 1 >= a
    return (0 if trough else min(ends), length if peak else max(ends) + 1)


@dataclass(frozen=True)
class PadRows(RowMap):
    """Output index r along the axis reads input index r - begin (numpy's pad after cropping a
    negative pad); an index in the padding reads nothing (constant), the nearest kept index
    (edge) or its mirror image (reflect). The range is the hull of those reads; a constant band
    that is all padding still reads one index. Edge and reflect near an edge thus read indices
    outside the shifted range (the mirror of the band), along H and W alike."""

    def input_range(
        self, op: Operation, start: int, end: int, in_size: int, axis: int = 0
    ) -> tuple[int, int]:
        begin, end_pad = _h_pads(op, axis)
        first = max(0, -begin)  # input index of the first kept element
        kept = in_size - first - max(0, -end_pad)
        a, b = start - max(0, begin), end - 1 - max(0, begin)  # outputs as indices into the kept run
        mode = _str_prop(op, "mode", "constant")
        if mode == "constant" or kept < 1:
            lo, hi = max(0, first + a), min(in_size, first + b + 1)
            return (lo, hi) if hi > lo else (min(lo, in_size - 1), min(lo, in_size - 1) + 1)
        if mode == "edge":  # clamping is monotone: the ends of the band give the hull
            lo, hi = min(max(a, 0), kept - 1), min(max(b, 0), kept - 1) + 1
        else:
            lo, hi = _triangle_hull(a, b, kept)
        return (first + lo, first + hi)

    # rows_needed: min(in_size, rows) holds in every mode, each read moving at most one index
    # per output index (a shift, a clamp or a triangle wave of slope 1)


@dataclass(frozen=True)
class ResizeRows(RowMap):
    """Upsampling by an integer factor k along the axis. Output index j reads, with the kernel's
    source coordinate c(j) (asymmetric j / k, align_corners j (in - 1) / (out - 1), half_pixel
    and pytorch_half_pixel (j + 1/2) / k - 1/2), input round_prefer_floor(c) (nearest; floor for
    asymmetric), or floor(c) and the index after (linear), clamped. c is monotone, so a range
    reads from the first tap of its first output to the last tap of its last one: nearest
    [s // k, ceil(e / k)) in every mode but align_corners, linear half_pixel one index before
    and after that. A scale of 1 copies: [s, e)."""

    def _scale_linear(self, op: Operation, axis: int = 0) -> tuple[int, bool]:
        scales = _ints(op, "scales") or []
        k = scales[2 + axis] if len(scales) > 2 + axis else 1
        return k, _str_prop(op, "mode", "nearest") == "linear"

    def taps(self, op: Operation, j: int, in_size: int, axis: int = 0) -> tuple[int, int]:
        """The first and last input index output index j reads along `axis` (exact integer
        arithmetic of the kernel's float32 coordinates, tigris_f32_resize)."""
        k, linear = self._scale_linear(op, axis)
        if k == 1:
            return (j, j)
        coord = _str_prop(op, "coordinate_transformation_mode", "half_pixel")
        if coord == "align_corners":  # c = num / den (out = in * k > 1)
            num, den = j * (in_size - 1), in_size * k - 1
        elif coord == "asymmetric":
            num, den = j, k
        else:
            num, den = 2 * j + 1 - k, 2 * k
        if linear:
            i0 = min(max(num // den, 0), in_size - 1)
            return (i0, min(i0 + 1, in_size - 1))
        i = num // den
        if coord != "asymmetric" and 2 * (num - i * den) > den:  # round half down
            i += 1
        i = min(max(i, 0), in_size - 1)
        return (i, i)

    def input_range(
        self, op: Operation, start: int, end: int, in_size: int, axis: int = 0
    ) -> tuple[int, int]:
        lo, hi = self.taps(op, start, in_size, axis)[0], self.taps(op, end - 1, in_size, axis)[1] + 1
        lo = min(max(lo, 0), in_size - 1)
        return (lo, min(in_size, max(hi, lo + 1)))

    def rows_needed(self, op: Operation, rows: int, in_size: int, axis: int = 0) -> int:
        k, linear = self._scale_linear(op, axis)
        if k == 1:
            return min(in_size, rows)
        # c moves by at most 1 / k per output index: `rows` outputs round or floor to at most
        # ceil(rows / k) + 1 indices (a band not aligned to k straddles one more), and linear's
        # second tap adds one
        return min(in_size, -(-rows // k) + (2 if linear else 1))


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
