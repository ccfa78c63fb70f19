"""`tgr` types and attributes: weight handles, quantized element types, plan annotations.

The plan attributes (`#tgr.lifetime`, `#tgr.tile_plan`, `#tgr.stage`) are written by
the planning passes; they print as `<key = value, ...>` so a FileCheck line says
what each number is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatData,
    IntAttr,
    IntegerType,
    Signedness,
    TensorType,
    f64,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


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
            DenseArrayBase.from_list(i64, list(map(int, zero_points))),
        )

    @property
    def scale_values(self) -> tuple[float, ...]:
        return tuple(float(v) for v in self.scales.get_values())

    @property
    def zero_point_values(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.zero_points.get_values())

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
    parser: AttrParser, names: Sequence[str], parse_value: Callable[[str], object]
) -> dict[str, object]:
    values: dict[str, object] = {}

    def field() -> None:
        key = parser.parse_identifier()
        if key not in names or key in values:
            parser.raise_error(f"unexpected or repeated field '{key}'; expected {', '.join(names)}")
        parser.parse_punctuation("=")
        values[key] = parse_value(key)

    with parser.in_angle_brackets():
        parser.parse_comma_separated_list(parser.Delimiter.NONE, field)
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


@irdl_attr_definition
class TilePlanAttr(_IntFieldsAttr):
    """`#tgr.tile_plan<...>`: how a stage is cut into horizontal bands.

    tile_h output rows per tile, num_tiles tiles, halo extra input rows (RF - 1),
    chain = index of the chain the stage belongs to, or -1 for a lone tiled stage."""

    name = "tgr.tile_plan"
    tile_h: IntAttr
    num_tiles: IntAttr
    halo: IntAttr
    out_h: IntAttr
    chain: IntAttr

    def verify(self) -> None:
        t, n, h, out, c = (p.data for p in (self.tile_h, self.num_tiles, self.halo, self.out_h, self.chain))
        if t < 1 or n < 1 or h < 0 or c < -1:
            raise VerifyException("#tgr.tile_plan needs tile_h >= 1, num_tiles >= 1, halo >= 0, chain >= -1")
        if not (n - 1) * t < out <= n * t:
            raise VerifyException(
                f"#tgr.tile_plan: {n} tiles of {t} rows do not cover exactly {out} output rows"
            )


@irdl_attr_definition
class StageAttr(ParametrizedAttribute):
    """`#tgr.stage<index = i, steps = [first, last], peak = bytes, inputs = [..], outputs = [..]>`.

    A temporal partition: ops with steps first..last run with the fast arena reset
    around them. inputs/outputs are the tensors reloaded from / spilled to slow memory,
    numbered as the planner does: model inputs first, then each op's results in program
    order. `tile` is an optional `#tgr.tile_plan` for spatially tiled or chained stages."""

    name = "tgr.stage"
    index: IntAttr
    first_step: IntAttr
    last_step: IntAttr
    peak: IntAttr
    inputs: DenseArrayBase
    outputs: DenseArrayBase
    tile: Attribute  # TilePlanAttr or NoneAttr

    def verify(self) -> None:
        from xdsl.dialects.builtin import NoneAttr

        if self.index.data < 0 or not 0 <= self.first_step.data <= self.last_step.data:
            raise VerifyException("#tgr.stage needs index >= 0 and 0 <= first step <= last step")
        if self.peak.data < 0:
            raise VerifyException("#tgr.stage peak must be >= 0")
        if not isinstance(self.tile, TilePlanAttr | NoneAttr):
            raise VerifyException("#tgr.stage tile must be a #tgr.tile_plan or absent")

    def print_parameters(self, printer: Printer) -> None:
        from xdsl.dialects.builtin import NoneAttr

        fields = [
            ("index", str(self.index.data)),
            ("steps", _ints([self.first_step.data, self.last_step.data])),
            ("peak", str(self.peak.data)),
            ("inputs", _ints([int(v) for v in self.inputs.get_values()])),
            ("outputs", _ints([int(v) for v in self.outputs.get_values()])),
        ]
        if not isinstance(self.tile, NoneAttr):
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
            return parser.parse_integer()

        names = ("index", "steps", "peak", "inputs", "outputs")
        values: dict[str, object] = {}
        with parser.in_angle_brackets():
            def field() -> None:
                key = parser.parse_identifier()
                if key not in (*names, "tile") or key in values:
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
            values.get("tile", NoneAttr()),  # type: ignore[arg-type]
        )
