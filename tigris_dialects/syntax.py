"""One textual syntax for every op of our dialects.

    %y = onnx.Conv %x, %w, none {strides = array<i64: 2, 2>} : (tensor<..>, tensor<..>) -> tensor<..>

Operands are positional, as in ONNX: a missing optional operand prints as `none`
(trailing ones are dropped), so ops with several optional inputs (Clip, Resize)
stay unambiguous without printing `operandSegmentSizes`. Properties and
discardable attributes share one dictionary; properties equal to their default are
not printed. Writing this once keeps the ~80 op definitions free of assembly
formats, and every op round-trips through the same code.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    OptOperandDef,
    OptResultDef,
    VarOperandDef,
    VarResultDef,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

SEGMENTS = AttrSizedOperandSegments.attribute_name


def _operand_slots(op: IRDLOperation) -> list[list[SSAValue]]:
    """The operands grouped by definition, one list per ONNX input slot."""
    defs = type(op).get_irdl_definition().operands
    sizes_attr = op.properties.get(SEGMENTS)
    if isinstance(sizes_attr, DenseArrayBase):
        sizes = [int(v) for v in sizes_attr.get_values()]
    else:
        sizes = [1] * len(defs)
        variadic = [i for i, (_, d) in enumerate(defs) if isinstance(d, VarOperandDef)]
        if variadic:
            sizes[variadic[0]] = len(op.operands) - (len(defs) - 1)
    slots: list[list[SSAValue]] = []
    start = 0
    for size in sizes:
        slots.append(list(op.operands[start : start + size]))
        start += size
    return slots


class PositionalSyntax(IRDLOperation):
    """Mixin giving an op the positional syntax described in the module docstring."""

    def print(self, printer: Printer) -> None:
        items: list[SSAValue | None] = []
        for slot in _operand_slots(self):
            items.extend(slot if slot else [None])
        while items and items[-1] is None:
            items.pop()
        if items:
            printer.print_string(" ")
            printer.print_list(
                items,
                lambda v: printer.print_string("none") if v is None else printer.print_operand(v),
            )
        defaults = {
            name: d.default_value for name, d in type(self).get_irdl_definition().properties.items()
        }
        shown: dict[str, Attribute] = {
            k: v for k, v in self.properties.items() if k != SEGMENTS and defaults.get(k) != v
        }
        shown.update(self.attributes)
        if shown:
            printer.print_string(" ")
            printer.print_attr_dict(shown)
        printer.print_string(" : ")
        printer.print_function_type([o.type for o in self.operands], [r.type for r in self.results])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        slots: list[UnresolvedOperand | None] = []
        first = parser.parse_optional_unresolved_operand()
        if first is not None or parser.parse_optional_keyword("none") is not None:
            slots.append(first)
            while parser.parse_optional_punctuation(",") is not None:
                if parser.parse_optional_keyword("none") is not None:
                    slots.append(None)
                else:
                    slots.append(parser.parse_unresolved_operand())
        entries = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_types, out_types = _parse_function_type(parser)
        present = [s for s in slots if s is not None]
        problem = _slot_problem(cls, slots)
        if problem is not None:
            parser.raise_error(problem, pos, parser.pos)
        operands = parser.resolve_operands(present, in_types, pos)
        results = group_results(cls, out_types)
        if results is None:
            parser.raise_error(f"{cls.name}: {len(out_types)} results do not fit the op's results", pos, parser.pos)
        definition = cls.get_irdl_definition()
        properties = {k: v for k, v in entries.items() if k in definition.properties}
        attributes = {k: v for k, v in entries.items() if k not in definition.properties}
        return cls.build(  # build() derives operandSegmentSizes from the nesting
            operands=_group(cls, operands, slots),
            result_types=results,
            properties=properties,
            attributes=attributes,
        )


def _parse_function_type(parser: Parser) -> tuple[list[Attribute], list[Attribute]]:
    ins = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    parser.parse_punctuation("->")
    if parser.parse_optional_punctuation("(") is not None:
        outs: list[Attribute] = []
        if parser.parse_optional_punctuation(")") is None:
            outs.append(parser.parse_type())
            while parser.parse_optional_punctuation(",") is not None:
                outs.append(parser.parse_type())
            parser.parse_punctuation(")")
        return ins, outs
    return ins, [parser.parse_type()]


def _slot_problem(cls: type[IRDLOperation], slots: list[UnresolvedOperand | None]) -> str | None:
    """Why these positional slots do not fit the op's operand definitions, or None."""
    defs = cls.get_irdl_definition().operands
    for index, (name, d) in enumerate(defs):
        if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef):
            if any(s is None for s in slots[index:]):
                return f"{cls.name}: 'none' cannot stand in the variadic operand list '{name}'"
            return None
        present = index < len(slots) and slots[index] is not None
        if not present and not isinstance(d, OptOperandDef):
            return f"{cls.name}: operand '{name}' is required"
    if len(slots) > len(defs):
        return f"{cls.name} takes at most {len(defs)} operands, got {len(slots)}"
    return None


def _group(
    cls: type[IRDLOperation], operands: list[SSAValue], slots: list[UnresolvedOperand | None]
) -> list[SSAValue | list[SSAValue]]:
    """Operands in the nested form `build` expects: a list for each optional/variadic slot."""
    defs = cls.get_irdl_definition().operands
    grouped: list[SSAValue | list[SSAValue]] = []
    it = iter(operands)
    for index, (_, d) in enumerate(defs):
        if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef):
            grouped.append(list(it))
        elif isinstance(d, OptOperandDef):
            present = index < len(slots) and slots[index] is not None
            grouped.append([next(it)] if present else [])
        else:
            grouped.append(next(it))
    return grouped


def group_results(cls: type[IRDLOperation], types: list[Attribute]) -> list[Attribute | list[Attribute]] | None:
    """Result types in the nested form `build` expects (a list for each optional or variadic
    result: trailing optional results may be absent); None if `types` do not fit."""
    grouped: list[Attribute | list[Attribute]] = []
    taken = 0
    for _, d in cls.get_irdl_definition().results:
        if isinstance(d, OptResultDef):
            grouped.append(types[taken : taken + 1])
        elif isinstance(d, VarResultDef):
            grouped.append(types[taken:])
        elif taken < len(types):
            grouped.append(types[taken])
            taken += 1
            continue
        else:
            return None
        taken += len(grouped[-1])  # type: ignore[arg-type]
    return grouped if taken == len(types) else None
