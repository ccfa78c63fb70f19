"""`tgr` types and attributes: weight handles, quantized element types, plan annotations.

The plan attributes (`#tgr.lifetime`, `#tgr.memory`, `#tgr.tile_plan`, `#tgr.stage`) are
written by the planning passes and `#tgr.weight_block` by group-weights; they print as
`<key = value, ...>` so a FileCheck line says what each number is. Together they hold the
whole plan, so nothing downstream plans again to learn it (`plan_attrs.py` reads them back).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects.builtin import (
    BytesAttr,
    DenseArrayBase,
    IntAttr,
    IntegerType,
    Signedness,
    TensorType,
    f64,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


def int_values(array: DenseArrayBase) -> tuple[int, ...]:
    """An `array<i64: ...>` as Python ints."""
    return tuple(int(v) for v in array.get_values())


_I64_RANGE = range(-(1 << 63), 1 << 63)


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    """`DenseArrayBase.from_list(i64, values)`, the same attribute, without its per-value
    normalization when every value is a signed 64-bit int (then each is its own normal form):
    a per-channel `!tgr.quant` holds hundreds of zero points, and that normalization was most
    of fold-qdq's time. Other values take `from_list` (which wraps or refuses them)."""
    ints = [int(v) for v in values]
    if all(v in _I64_RANGE for v in ints):
        return DenseArrayBase(i64, BytesAttr(i64.pack(ints)))
    return DenseArrayBase.from_list(i64, ints)


@irdl_attr_definition
class DenseResourceAttr(ParametrizedAttribute):
    """`#tgr.dense_resource<key : tensor<..>>`: a handle into the `tgr` resource table."""

    name = "tgr.dense_resource"
    handle: Attribute  # StringAttr
    type: TensorType

    @property
    def key(self) -> str:
        from xdsl.dialects.builtin import StringAttr

        assert isinstance(self.handle, StringAttr)
        return self.handle.data

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_resource_handle("tgr", self.key)
            printer.print_string(" : ")
            printer.print_attribute(self.type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from xdsl.dialects.builtin import StringAttr

        with parser.in_angle_brackets():
            key = parse_resource_key(parser)
            parser.parse_punctuation(":")
            type_ = parser.parse_type()
        if not isinstance(type_, TensorType):
            parser.raise_error("a weight resource must have a tensor type")
        return (StringAttr(key), type_)


def parse_resource_key(parser: AttrParser) -> str:
    """Parse a handle key and declare it in the `tgr` table (see resources.py)."""
    from tigris.dialects.tgr.dialect import weight_resources

    return weight_resources().declare_resource(parser.parse_identifier(" for weight resource"))


@irdl_attr_definition
class QuantType(ParametrizedAttribute, TypeAttribute):
    """Quantized element type: `!tgr.quant<i8, 0.05:-3>` or `!tgr.quant<i8:0, {0.1:0, 0.2:0}>`.

    Scale and zero point travel with the tensor type, as in MLIR's quant dialect, so a
    pass never has to look for the Q/DQ pair that used to carry them. `axis` is -1 for
    per-tensor parameters.
    """

    name = "tgr.quant"
    storage: IntegerType
    axis: IntAttr
    scales: DenseArrayBase
    zero_points: DenseArrayBase

    @staticmethod
    def get(
        storage: IntegerType, scales: Sequence[float], zero_points: Sequence[int], axis: int = -1
    ) -> QuantType:
        return QuantType(
            storage,
            IntAttr(axis),
            DenseArrayBase.from_list(f64, list(map(float, scales))),
            i64_array(zero_points),
        )

    @property
    def scale_values(self) -> tuple[float, ...]:
        return tuple(float(v) for v in self.scales.get_values())

    @property
    def zero_point_values(self) -> tuple[int, ...]:
        return int_values(self.zero_points)

    def verify(self) -> None:
        scales, zps = self.scale_values, self.zero_point_values
        if len(scales) != len(zps) or not scales:
            raise VerifyException("tgr.quant needs as many zero points as scales (>= 1)")
        if self.axis.data < -1 or (self.axis.data == -1 and len(scales) != 1):
            raise VerifyException("per-tensor tgr.quant has exactly one scale; per-axis needs axis >= 0")
        if any(not s > 0 for s in scales):
            raise VerifyException("tgr.quant scales must be positive")
        width, signed = self.storage.width.data, self.storage.signedness.data != Signedness.UNSIGNED
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        if any(not lo <= z <= hi for z in zps):
            raise VerifyException(f"tgr.quant zero point outside the {self.storage} range")

    def print_parameters(self, printer: Printer) -> None:
        pairs = [f"{s!r}:{z}" for s, z in zip(self.scale_values, self.zero_point_values)]
        with printer.in_angle_brackets():
            printer.print_attribute(self.storage)
            if self.axis.data < 0:
                printer.print_string(f", {pairs[0]}")
            else:
                printer.print_string(f":{self.axis.data}, {{{', '.join(pairs)}}}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def pair() -> tuple[float, int]:
            scale = parser.parse_float()
            parser.parse_punctuation(":")
            return scale, parser.parse_integer()

        with parser.in_angle_brackets():
            storage = parser.parse_type()
            if not isinstance(storage, IntegerType):
                parser.raise_error("tgr.quant storage must be an integer type")
            axis = -1
            if parser.parse_optional_punctuation(":") is not None:
                axis = parser.parse_integer(allow_negative=False)
            parser.parse_punctuation(",")
            if axis >= 0:
                pairs = parser.parse_comma_separated_list(parser.Delimiter.BRACES, pair)
            else:
                pairs = [pair()]
        q = cls.get(storage, [p[0] for p in pairs], [p[1] for p in pairs], axis)
        return q.parameters


def _print_fields(printer: Printer, fields: Sequence[tuple[str, str]]) -> None:
    with printer.in_angle_brackets():
        printer.print_string(", ".join(f"{k} = {v}" for k, v in fields))


def _parse_fields(
    parser: AttrParser,
    names: Sequence[str],
    parse_value: Callable[[str], object],
    optional: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """Named fields in any order; those in `optional` may be absent and take its value."""
    values: dict[str, object] = {}

    def field() -> None:
        key = parser.parse_identifier()
        if key not in names or key in values:
            parser.raise_error(f"unexpected or repeated field '{key}'; expected {', '.join(names)}")
        parser.parse_punctuation("=")
        values[key] = parse_value(key)

    with parser.in_angle_brackets():
        parser.parse_comma_separated_list(parser.Delimiter.NONE, field)
    for name, default in (optional or {}).items():
        values.setdefault(name, default)
    missing = [n for n in names if n not in values]
    if missing:
        parser.raise_error(f"missing field(s): {', '.join(missing)}")
    return values


def _ints(values: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


class _IntFieldsAttr(ParametrizedAttribute):
    """Attributes whose parameters are named integers, printed `<name = 3, ...>`."""

    def print_parameters(self, printer: Printer) -> None:
        fields = zip(self._field_names(), self.parameters, strict=True)
        _print_fields(printer, [(n, str(p.data)) for n, p in fields if isinstance(p, IntAttr)])

    @classmethod
    def _field_names(cls) -> tuple[str, ...]:
        return tuple(name for name, _ in cls.get_irdl_definition().parameters)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        names = cls._field_names()
        values = _parse_fields(parser, names, lambda _: parser.parse_integer())
        return tuple(IntAttr(int(values[n])) for n in names)  # type: ignore[arg-type]


@irdl_attr_definition
class LifetimeAttr(_IntFieldsAttr):
    """`#tgr.lifetime<birth = b, death = d>`: the steps during which a tensor is live.

    Model inputs are born at step -1 (before the first op)."""

    name = "tgr.lifetime"
    birth: IntAttr
    death: IntAttr

    def verify(self) -> None:
        if self.birth.data < -1 or self.death.data < self.birth.data:
            raise VerifyException(
                f"#tgr.lifetime needs -1 <= birth <= death, got {self.birth.data}, {self.death.data}"
            )


@irdl_attr_definition
class MemoryAttr(_IntFieldsAttr):
    """`#tgr.memory<peak = bytes, step = s, align = a>`: the whole model's memory timeline
    run as one stage (the unscheduled peak), where it peaks, and the alignment used."""

    name = "tgr.memory"
    peak: IntAttr
    step: IntAttr
    align: IntAttr

    def verify(self) -> None:
        if self.peak.data < 0 or self.align.data < 1 or self.align.data & (self.align.data - 1):
            raise VerifyException("#tgr.memory needs peak >= 0 and a power-of-two align")


_TILE_PLAN_OPTIONAL: dict[str, object] = {
    "acc": 0, "tile_w": 0, "num_tiles_w": 1, "halo_w": 0, "out_w": 0, "tile_c": 0, "num_tiles_c": 1, "cache": 0,
}  # fmt: skip
"""#tgr.tile_plan fields that may be left out of the text, with the value they then have."""


@irdl_attr_definition
class TilePlanAttr(_IntFieldsAttr):
    """`#tgr.tile_plan<...>`: how a stage is cut into horizontal bands.

    tile_h output rows per tile, num_tiles tiles, halo extra input rows (RF - 1), out_h rows of
    the output the tiles cover, peak = the bytes one band needs (the whole chain's band, for a
    chain: the planner computes it once, the runtime checks its arena against it), chain = index
    of the chain the stage belongs to, or -1 for a lone tiled stage.

    acc > 0 makes them reduction tiles: the stage's last op accumulates over the tiles in an
    accumulator of `acc` bytes (part of `peak`), the tiles cut the rows of that op's input
    (out_h of them) and its output is written after the last tile.

    tile_w > 0 makes them 2-D tiles: each row band is cut into num_tiles_w tiles of tile_w of the
    out_w output columns, halo_w extra input columns each (a lone stage, no chain). tile_w 0 is
    full-width rows. Reduction tiles may be cut along W too, one row tall (tile_h 1, halo_w 0:
    the tiles then visit the input's pixels in row-major order, as the untiled op sums them, so
    the result stays bit-identical); out_w is then the input's width.

    tile_c > 0 in reduction tiles runs them in num_tiles_c blocks of tile_c channels of the
    op's input, outermost: the accumulator holds one block (acc is its size) and every block
    runs all the row (and column) tiles; the input is read once per block. tile_c 0 is all
    channels. tile_c > 0 without acc is output-feature blocks: the stage is one op of
    `FEATURE_BLOCK_OPS` (a fully_connected layer), each block reads its whole input and computes
    tile_c of its output features (one row: tile_h = out_h = 1). With acc, the stage's op of that
    kind runs in reduction blocks: blocks of tile_c output features, each over tiles of tile_h of
    the out_h input features, acc the block's partial sums.

    cache > 0 runs full-width output-row tiles with row caches (`transforms/plan/row_cache.py`):
    the tensors a window reads keep their rows across the tiles in slots of `cache` bytes (part
    of `peak`), so no row is computed or loaded twice. acc, cache and the 2-D and channel fields
    are printed only when they differ from their default."""

    name = "tgr.tile_plan"
    tile_h: IntAttr
    num_tiles: IntAttr
    halo: IntAttr
    out_h: IntAttr
    peak: IntAttr
    chain: IntAttr
    acc: IntAttr
    tile_w: IntAttr
    num_tiles_w: IntAttr
    halo_w: IntAttr
    out_w: IntAttr
    tile_c: IntAttr
    num_tiles_c: IntAttr
    cache: IntAttr

    def print_parameters(self, printer: Printer) -> None:
        fields = zip(self._field_names(), self.parameters, strict=True)
        shown = [(n, str(p.data)) for n, p in fields if isinstance(p, IntAttr) and _TILE_PLAN_OPTIONAL.get(n) != p.data]
        _print_fields(printer, shown)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        names = cls._field_names()
        values = _parse_fields(parser, names, lambda _: parser.parse_integer(), _TILE_PLAN_OPTIONAL)
        return tuple(IntAttr(int(values[n])) for n in names)  # type: ignore[arg-type]

    @property
    def reduces(self) -> bool:
        return self.acc.data > 0

    @property
    def is_2d(self) -> bool:
        return self.tile_w.data > 0

    @property
    def feature_blocks(self) -> bool:
        return self.tile_c.data > 0 and self.acc.data == 0

    def verify(self) -> None:
        t, n, h, out, c = (p.data for p in (self.tile_h, self.num_tiles, self.halo, self.out_h, self.chain))
        if t < 1 or n < 1 or h < 0 or c < -1:
            raise VerifyException("#tgr.tile_plan needs tile_h >= 1, num_tiles >= 1, halo >= 0, chain >= -1")
        if self.peak.data < 0:
            raise VerifyException("#tgr.tile_plan peak must be >= 0")
        if not (n - 1) * t < out <= n * t:
            raise VerifyException(
                f"#tgr.tile_plan: {n} tiles of {t} rows do not cover exactly {out} output rows"
            )
        if self.acc.data < 0 or (self.acc.data > 0 and (self.chain.data != -1 or self.halo.data != 0)):
            raise VerifyException("#tgr.tile_plan acc must be >= 0; reduction tiles (acc > 0) have chain -1, halo 0")
        if self.acc.data > self.peak.data:
            raise VerifyException("#tgr.tile_plan acc is part of peak: it cannot exceed it")
        if self.cache.data < 0 or self.cache.data > self.peak.data:
            raise VerifyException("#tgr.tile_plan cache >= 0 is part of peak: it cannot exceed it")
        if self.cache.data and (self.acc.data or self.tile_w.data or self.tile_c.data):
            raise VerifyException("#tgr.tile_plan: row caches (cache > 0) run full-width output-row tiles: "
                                  "no acc, tile_w or tile_c")  # fmt: skip
        tc, nc = self.tile_c.data, self.num_tiles_c.data
        if tc < 0 or nc < 1 or (tc == 0 and nc != 1):
            raise VerifyException("#tgr.tile_plan: tile_c >= 0; without channel blocks (tile_c 0) num_tiles_c is 1")
        if self.feature_blocks and ((t, n, out, h, c) != (1, 1, 1, 0, -1) or self.tile_w.data != 0):
            raise VerifyException("#tgr.tile_plan: output-feature blocks (tile_c > 0 without acc) run a lone stage "
                                  "of one row: tile_h 1, num_tiles 1, out_h 1, halo 0, chain -1, no tile_w")  # fmt: skip
        tw, nw, hw, ow = (p.data for p in (self.tile_w, self.num_tiles_w, self.halo_w, self.out_w))
        if tw == 0:
            if (nw, hw, ow) != (1, 0, 0):
                raise VerifyException(
                    "#tgr.tile_plan without tile_w (full-width rows) has num_tiles_w 1, halo_w 0, out_w 0"
                )
            return
        if tw < 0 or hw < 0 or not (nw - 1) * tw < ow <= nw * tw:
            raise VerifyException(
                f"#tgr.tile_plan: {nw} tiles of {tw} columns do not cover exactly {ow} output columns"
            )
        if c != -1:
            raise VerifyException("#tgr.tile_plan: 2-D tiles (tile_w > 0) are not a chain")
        if self.acc.data and (t != 1 or hw != 0):
            raise VerifyException("#tgr.tile_plan: reduction tiles cut along W (tile_w > 0) have tile_h 1, halo_w 0")


class Strategy(StrEnum):
    """How a stage runs (spec/tiling.md): whole, cut into bands on its own, or banded together
    with the other stages of its chain. The values are the names reports print."""

    NORMAL = "normal"
    TILED = "tiled"
    CHAIN = "chain"


@irdl_attr_definition
class StrategyAttr(EnumAttribute[Strategy], SpacedOpaqueSyntaxAttribute):
    """`#tgr<strategy tiled>`; inside `#tgr.stage` it prints as `strategy = tiled`."""

    name = "tgr.strategy"


@irdl_attr_definition
class StageAttr(ParametrizedAttribute):
    """`#tgr.stage<index = i, steps = [first, last], peak = bytes, inputs = [..], outputs = [..]>`.

    A temporal partition: ops with steps first..last run with the fast arena reset
    around them. inputs/outputs are the tensors reloaded from / spilled to slow memory,
    numbered as the planner does: model inputs first, then each op's results in program
    order. A tiled or chained stage adds `strategy = tiled | chain` and its `tile =
    #tgr.tile_plan<...>` (a normal stage prints neither); the verifier keeps the two in step
    (chain exactly when the tile plan has a chain index)."""

    name = "tgr.stage"
    index: IntAttr
    first_step: IntAttr
    last_step: IntAttr
    peak: IntAttr
    inputs: DenseArrayBase
    outputs: DenseArrayBase
    strategy: StrategyAttr
    tile: Attribute  # TilePlanAttr or NoneAttr

    @property
    def tile_plan(self) -> TilePlanAttr | None:
        return self.tile if isinstance(self.tile, TilePlanAttr) else None

    @property
    def scheduled_peak(self) -> int:
        """The arena the stage needs as it runs: its band peak if banded, else its peak."""
        tile = self.tile_plan
        return tile.peak.data if tile is not None else self.peak.data

    @property
    def input_tensors(self) -> tuple[int, ...]:
        return int_values(self.inputs)

    @property
    def output_tensors(self) -> tuple[int, ...]:
        return int_values(self.outputs)

    def verify(self) -> None:
        from xdsl.dialects.builtin import NoneAttr

        if self.index.data < 0 or not 0 <= self.first_step.data <= self.last_step.data:
            raise VerifyException("#tgr.stage needs index >= 0 and 0 <= first step <= last step")
        if self.peak.data < 0:
            raise VerifyException("#tgr.stage peak must be >= 0")
        if not isinstance(self.tile, TilePlanAttr | NoneAttr):
            raise VerifyException("#tgr.stage tile must be a #tgr.tile_plan or absent")
        tile, strategy = self.tile_plan, self.strategy.data
        expected = Strategy.NORMAL
        if tile is not None:
            expected = Strategy.CHAIN if tile.chain.data >= 0 else Strategy.TILED
        if strategy is not expected:
            has = "no tile plan" if tile is None else f"a tile plan with chain = {tile.chain.data}"
            raise VerifyException(f"#tgr.stage strategy {strategy.value} does not match {has}")

    def print_parameters(self, printer: Printer) -> None:
        fields = [
            ("index", str(self.index.data)),
            ("steps", _ints([self.first_step.data, self.last_step.data])),
            ("peak", str(self.peak.data)),
            ("inputs", _ints(self.input_tensors)),
            ("outputs", _ints(self.output_tensors)),
        ]
        if self.strategy.data is not Strategy.NORMAL:
            fields.append(("strategy", self.strategy.data.value))
        if self.tile_plan is not None:
            fields.append(("tile", str(self.tile)))
        _print_fields(printer, fields)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from xdsl.dialects.builtin import NoneAttr

        def int_list() -> list[int]:
            return parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer()
            )

        def value(key: str) -> object:
            if key in ("steps", "inputs", "outputs"):
                return int_list()
            if key == "tile":
                return parser.parse_attribute()
            if key == "strategy":
                return parser.parse_str_enum(Strategy)
            return parser.parse_integer()

        names = ("index", "steps", "peak", "inputs", "outputs")
        values: dict[str, object] = {}
        with parser.in_angle_brackets():
            def field() -> None:
                key = parser.parse_identifier()
                if key not in (*names, "strategy", "tile") or key in values:
                    parser.raise_error(f"unexpected or repeated field '{key}' in #tgr.stage")
                parser.parse_punctuation("=")
                values[key] = value(key)

            parser.parse_comma_separated_list(parser.Delimiter.NONE, field)
        missing = [n for n in names if n not in values]
        if missing:
            parser.raise_error(f"#tgr.stage is missing field(s): {', '.join(missing)}")
        steps = values["steps"]
        assert isinstance(steps, list)
        if len(steps) != 2:
            parser.raise_error("#tgr.stage steps must be [first, last]")
        return (
            IntAttr(values["index"]),  # type: ignore[arg-type]
            IntAttr(steps[0]),
            IntAttr(steps[1]),
            IntAttr(values["peak"]),  # type: ignore[arg-type]
            DenseArrayBase.from_list(i64, values["inputs"]),  # type: ignore[arg-type]
            DenseArrayBase.from_list(i64, values["outputs"]),  # type: ignore[arg-type]
            StrategyAttr(values.get("strategy", Strategy.NORMAL)),  # type: ignore[arg-type]
            values.get("tile", NoneAttr()),  # type: ignore[arg-type]
        )


@irdl_attr_definition
class WeightBlockAttr(_IntFieldsAttr):
    """`#tgr.weight_block<stage = s, raw_bytes = r, compressed_bytes = c>`: one block of weights
    group-weights made for stage s, r bytes as laid out in the file, c as stored (LZ4, or r)."""

    name = "tgr.weight_block"
    stage: IntAttr
    raw_bytes: IntAttr
    compressed_bytes: IntAttr

    def verify(self) -> None:
        if self.stage.data < 0 or self.raw_bytes.data < 0 or self.compressed_bytes.data < 0:
            raise VerifyException("#tgr.weight_block fields must be >= 0")
