"""`i64_array` (tgr/attributes.py) builds the same `array<i64: ...>` as xDSL's parser and
`DenseArrayBase.from_list`, on its fast path (signed 64-bit values) and off it."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, DenseArrayBase, i64
from xdsl.parser import Parser

from tigris.dialects.tgr.attributes import QuantType, i64_array


def parsed(text: str) -> DenseArrayBase:
    ctx = Context()
    ctx.load_dialect(Builtin)
    attr = Parser(ctx, text).parse_attribute()
    assert isinstance(attr, DenseArrayBase)
    return attr


@pytest.mark.parametrize("values", [[], [0], [3, -128, 127, 0], [2**63 - 1, -(2**63)]])
def test_signed_values_give_the_parsed_array(values: list[int]) -> None:
    text = "array<i64" + (": " + ", ".join(map(str, values)) if values else "") + ">"
    assert i64_array(values) == parsed(text)


def test_a_value_past_the_signed_range_wraps_as_from_list_does() -> None:
    # 2**63 is the bit pattern of -2**63 in two's complement (a signless i64)
    assert i64_array([2**63, 1]) == parsed("array<i64: -9223372036854775808, 1>")
    with pytest.raises(ValueError):
        i64_array([2**64])


def test_per_channel_zero_points_of_a_quant_type() -> None:
    from xdsl.dialects.builtin import IntegerType

    q = QuantType.get(IntegerType(8), [0.5, 0.25, 0.125], [1, -2, 3], axis=0)
    assert q.zero_points == parsed("array<i64: 1, -2, 3>")
    assert q.zero_point_values == (1, -2, 3)
