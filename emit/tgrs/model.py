"""A `.tgrs` plan in Python terms: the writer's input and the reader's output.

Indices and names replace offsets; pools, alignment, sizes and flags that follow from
the content are the writer's business. Field names match the C record fields where the
meaning is the same, so the writer and reader copy those generically. Values are
normalized on construction (lists -> tuples, floats rounded to float32, numpy -> bytes),
so `read_plan(write_plan(p)) == p` holds with plain `==`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from tigris.emit.tgrs.enums import Activation, BandGeometry, DType, FileFlag, OpFlag, OpType, TileFlag, WeightLayout

NO_OP_FLAGS = OpFlag(0)
NO_FILE_FLAGS = FileFlag(0)


def f32(x: float) -> float:
    """`x` as the float32 the file will hold (left alone if it does not fit: the writer says so)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return float(x)


def as_bytes(data: bytes | bytearray | memoryview | np.ndarray) -> bytes:
    """The little-endian bytes of an array (C order), or the bytes unchanged."""
    if isinstance(data, np.ndarray):
        little = data.astype(data.dtype.newbyteorder("<"), copy=False)
        return np.ascontiguousarray(little).tobytes()
    return bytes(data)


def f32s(xs: Sequence[float]) -> tuple[float, ...]:
    """`f32` of each of `xs` (Python floats) in one pack and unpack: a plan's per-channel scales
    are thousands of floats, and one struct call per float was most of the writer's and the
    reader's time. Element-wise if one does not fit a float32 (`f32` leaves it alone)."""
    n = len(xs)
    try:
        return struct.unpack(f"<{n}f", struct.pack(f"<{n}f", *xs))
    except OverflowError:
        return tuple(f32(x) for x in xs)


def _plain(v: object) -> object:
    """numpy scalars -> int/float (floats rounded to float32), sequences -> tuples of those.
    Sequences of plain ints or floats (nearly every field) take the one-pass paths."""
    kind = type(v)
    if kind is int or kind is str or v is None:
        return v
    if kind is tuple or kind is list:
        if all(type(x) is int for x in v):  # type: ignore[union-attr]
            return tuple(v)  # type: ignore[arg-type]
        if all(type(x) is float for x in v):  # type: ignore[union-attr]
            return f32s(v)  # type: ignore[arg-type]
        return tuple(_plain(x) for x in v)  # type: ignore[union-attr]
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, (float, np.floating)):
        return f32(float(v))
    if isinstance(v, np.integer):
        return int(v)
    return v


class _Normalized:
    """Applies `_plain` to every field after __init__, so equal plans compare equal."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            plain = _plain(value)
            if plain is not value:
                object.__setattr__(self, f.name, plain)


@dataclass(frozen=True)
class Tensor(_Normalized):
    """An activation's `shape` is in model (NCHW) order, its bytes channels-last at run time;
    a constant's `shape` is that of its stored bytes (e.g. [O, KH, KW, I] for OHWI).
    `perm` (model inputs and outputs only) is the layout the ONNX model declares the tensor in,
    the `tgr.input_perm` / `tgr.output_perm` of a transpose folded into the model boundary: the
    user's tensor is `x.transpose(perm)`, x in the recorded (model-order) shape."""

    name: str
    dtype: DType
    shape: tuple[int, ...]
    quant: int | None = None
    weight: int | None = None  # index into PlanFile.weights: the tensor is a constant
    perm: tuple[int, ...] | None = None

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * DType(self.dtype).size


@dataclass(frozen=True)
class Op(_Normalized):
    """One op. Inputs list every operand in order, constants included; `weight` and `bias`
    repeat the constant operands a kernel looks up by role. Parameters that do not apply
    to `op_type` keep their defaults (see docs/tgrs-format.md, "Op parameters")."""

    op_type: OpType
    name: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    weight: int | None = None
    bias: int | None = None
    table: int | None = None
    activation: Activation = Activation.NONE
    flags: OpFlag = NO_OP_FLAGS
    params: tuple[int, ...] = ()
    requant_scales: tuple[float, ...] = ()  # int8 dense ops: float32 per output channel / rhs column
    kernel_h: int = 1
    kernel_w: int = 1
    stride_h: int = 1
    stride_w: int = 1
    dilation_h: int = 1
    dilation_w: int = 1
    pad_top: int = 0
    pad_left: int = 0
    pad_bottom: int = 0
    pad_right: int = 0
    group: int = 1
    axis: int = 0
    act_min: int = -128
    act_max: int = 127
    mode: int = 0
    coord_mode: int = 0
    geometry_h: BandGeometry = BandGeometry.NONE  # how a band of output rows maps to input rows
    geometry_w: BandGeometry = BandGeometry.NONE  # ... and a window of output columns to input columns
    clip_min: float = -math.inf
    clip_max: float = math.inf
    alpha: float = 0.01
    beta: float = 0.0
    epsilon: float = 1e-5
    pad_value: float = 0.0
    input_zp: int = 0
    input2_zp: int = 0
    output_zp: int = 0
    pad_value_q: int = 0


@dataclass(frozen=True)
class Stage(_Normalized):
    """`inputs` are reloaded from slow memory before the stage, `outputs` spilled after it."""

    ops: tuple[int, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    peak: int
    tile_plan: int | None = None
    weight_block: int | None = None


@dataclass(frozen=True)
class TilePlan(_Normalized):
    tile_h: int
    num_tiles: int
    halo: int
    out_h: int
    peak: int  # band peak bytes (the whole chain's, for a chain; the accumulator included)
    chain: int = -1
    reduce_op: int | None = None  # reduction tiles: the accumulating op (tiles cut its input rows)
    acc_bytes: int = 0  # reduction tiles: the accumulator kept across the tiles
    tile_w: int = 0  # 2-D tiles: output columns per tile; 0: full-width rows
    num_tiles_w: int = 1  # 2-D tiles: tiles per row band (row-major order)
    halo_w: int = 0  # 2-D tiles: extra input columns per tile
    out_w: int = 0  # 2-D tiles: output columns of the stage
    tile_c: int = 0  # channel blocks: channels per block (reduction tiles), or output features per block
    #                  (output-feature blocks: no reduce_op); 0: all channels
    num_tiles_c: int = 1  # channel blocks, the outermost loop
    flags: TileFlag = TileFlag(0)  # ROW_CACHE: full-width row tiles with row caches (acc_bytes: their slots)

    @property
    def row_cache(self) -> bool:
        return TileFlag.ROW_CACHE in self.flags

    @property
    def feature_blocks(self) -> bool:
        """Output-feature blocks of a lone dense op: channel blocks without reduce_op."""
        return self.tile_c > 0 and self.reduce_op is None


@dataclass(frozen=True)
class Weight:
    """A constant's bytes, already in its runtime `layout`; `block` groups it for staging."""

    data: bytes
    layout: WeightLayout = WeightLayout.PLAIN
    block: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", as_bytes(self.data))


@dataclass(frozen=True)
class WeightBlock:
    """A group of weights (those whose `block` is its index). The sizes are what the reader
    found; the writer derives them and ignores these, so they take no part in `==`."""

    raw_size: int = field(default=0, compare=False)
    stored_size: int = field(default=0, compare=False)


@dataclass(frozen=True)
class QuantParam(_Normalized):
    """Per-tensor (axis -1, one scale) or per-axis along `axis` of the recorded shape."""

    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int = -1


@dataclass
class PlanFile:
    """A whole plan. `flags` may hold XIP and QUANTIZED; LZ4 is set by the writer from its
    `compress` argument and reported by the reader."""

    name: str
    tensors: list[Tensor]
    ops: list[Op]
    stages: list[Stage]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    tile_plans: list[TilePlan] = field(default_factory=list)
    weights: list[Weight] = field(default_factory=list)
    weight_blocks: list[WeightBlock] = field(default_factory=list)
    quant_params: list[QuantParam] = field(default_factory=list)
    tables: list[bytes] = field(default_factory=list)
    flags: FileFlag = NO_FILE_FLAGS

    def __post_init__(self) -> None:
        self.inputs = tuple(self.inputs)
        self.outputs = tuple(self.outputs)
        self.tables = [as_bytes(t) for t in self.tables]
