"""The `tgr` dialect and the runtime's `OpType` agree one to one, and both match the C API.

`op_code_mismatches` is the check: every `tgr` op (but `tgr.weight`, a constant, not a runtime
op) declares a `RuntimeOp` whose code is an `OpType` member (a bare number is refused, so a
code can only be written by name), no two ops share a code, and every member but `UNKNOWN` is
some op's. It is shown to catch each kind of planted mismatch on a made-up op list. The numbers
themselves are pinned against spec/c-api.md's `tigris_op_type_t` (1..32, 255), written out
below from the spec, plus the three codes this project added (33..35).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def

from tigris.dialects.tgr.dialect import TGR_OPS
from tigris.dialects.tgr.runtime_enums import CUSTOM_OP_FIRST, CUSTOM_OP_LAST, EXTENSION_OP_TYPES, OpType
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.dialects.tgr.weight import WeightOp

NOT_AN_OP = frozenset({OpType.UNKNOWN})
"""Members no op declares: UNKNOWN (255) is the runtime's "not an op" value."""


def op_code_mismatches(ops: Iterable[type[Operation]], codes: type[IntEnum]) -> list[str]:
    """What is wrong between `ops` (the runtime ops of a dialect) and the enum `codes`."""
    problems: list[str] = []
    owner: dict[IntEnum, str] = {}
    for op in ops:
        trait = op.get_trait(RuntimeOp)
        if trait is None:
            problems.append(f"{op.name} declares no RuntimeOp")
            continue
        code = trait.op_type
        if not isinstance(code, codes) or code.name not in codes.__members__:
            problems.append(f"{op.name}: op code {int(code)} is not a member of {codes.__name__}")
            continue
        if code in owner:
            problems.append(f"{codes.__name__}.{code.name} is declared by {owner[code]} and {op.name}")
        owner[code] = op.name
    for member in codes:
        if member not in owner and member not in NOT_AN_OP:
            problems.append(f"{codes.__name__}.{member.name} is declared by no op")
    return problems


RUNTIME_OPS = [op for op in TGR_OPS if op is not WeightOp]


def test_the_dialect_and_the_enum_agree() -> None:
    assert op_code_mismatches(RUNTIME_OPS, OpType) == []


# spec/c-api.md's tigris_op_type_t, by the `tgr` op that implements each value.
SPEC = {
    "tgr.conv": 1, "tgr.depthwise_conv": 2, "tgr.relu": 3, "tgr.relu6": 4, "tgr.max_pool": 5,
    "tgr.avg_pool": 6, "tgr.add": 7, "tgr.mul": 8, "tgr.fully_connected": 9, "tgr.softmax": 10,
    "tgr.clip": 11, "tgr.sigmoid": 12, "tgr.concat": 13, "tgr.pad": 14, "tgr.global_avg_pool": 15,
    "tgr.flatten": 16, "tgr.reshape": 17, "tgr.sub": 18, "tgr.div": 19, "tgr.tanh": 20,
    "tgr.leaky_relu": 21, "tgr.batch_norm": 22, "tgr.instance_norm": 23, "tgr.conv_transpose": 24,
    "tgr.matmul": 25, "tgr.reduce_mean": 26, "tgr.squeeze": 27, "tgr.unsqueeze": 28,
    "tgr.transpose": 29, "tgr.resize": 30, "tgr.global_max_pool": 31, "tgr.conv1d": 32,
    # this project's additions (docs/tgrs-format.md)
    "tgr.hard_swish": 33, "tgr.quantize": 34, "tgr.dequantize": 35,
    "tgr.slice": 60, "tgr.gather": 61, "tgr.tile": 62,  # data movement on activations
    "tgr.prelu": 70, "tgr.max": 71, "tgr.min": 72, "tgr.pow_tensor": 73,
    "tgr.reduce_sum": 80, "tgr.reduce_max": 81, "tgr.reduce_min": 82,  # reductions and normalizations
    "tgr.log_softmax": 83, "tgr.lrn": 84, "tgr.layer_norm": 85,
    # element-wise math (tgr/ops_unary.py)
    "tgr.neg": 36, "tgr.abs": 37, "tgr.exp": 38, "tgr.log": 39, "tgr.sqrt": 40, "tgr.reciprocal": 41,
    "tgr.elu": 42, "tgr.selu": 43, "tgr.softplus": 44, "tgr.softsign": 45, "tgr.erf": 46, "tgr.gelu": 47,
    "tgr.hard_sigmoid": 48, "tgr.sign": 49, "tgr.shrink": 50, "tgr.pow": 51, "tgr.silu": 52,
}  # fmt: skip


def test_codes_are_the_c_apis() -> None:
    declared = {op.name: int(trait.op_type) for op in RUNTIME_OPS if (trait := op.get_trait(RuntimeOp))}
    assert declared == SPEC
    assert OpType.UNKNOWN == 255
    assert (CUSTOM_OP_FIRST, CUSTOM_OP_LAST) == (128, 254)
    assert list(EXTENSION_OP_TYPES) == list(range(128, 255))


# --------------------------------------------------------- the check catches planted mistakes


def _op(name: str, *traits: object) -> type[IRDLOperation]:
    """A one-operand op class named `name` with `traits`."""
    fields = {"name": name, "input": operand_def(TensorType), "output": result_def(TensorType)}
    fields["traits"] = traits_def(*traits)
    return irdl_op_definition(type(name.replace(".", "_"), (IRDLOperation,), fields))


class Codes(IntEnum):
    """A small enum to plant mistakes against."""

    ONE = 1
    TWO = 2
    THREE = 3
    UNKNOWN = 255


def test_a_consistent_list_passes() -> None:
    ops = [_op(f"t.{c.name.lower()}", RuntimeOp(c)) for c in (Codes.ONE, Codes.TWO, Codes.THREE)]
    assert op_code_mismatches(ops, Codes) == []


@pytest.mark.parametrize(
    ("planted", "expected"),
    [
        # two ops with one code (and so a member nobody declares)
        ([("t.a", Codes.ONE), ("t.b", Codes.ONE), ("t.c", Codes.THREE)],
         ["Codes.ONE is declared by t.a and t.b", "Codes.TWO is declared by no op"]),
        # a member no op uses
        ([("t.a", Codes.ONE), ("t.b", Codes.TWO)], ["Codes.THREE is declared by no op"]),
        # a bare number, even one equal to a member's value
        ([("t.a", Codes.ONE), ("t.b", 2), ("t.c", Codes.THREE)],
         ["t.b: op code 2 is not a member of Codes", "Codes.TWO is declared by no op"]),
        # a code outside the enum
        ([("t.a", Codes.ONE), ("t.b", Codes.TWO), ("t.c", Codes.THREE), ("t.d", 99)],
         ["t.d: op code 99 is not a member of Codes"]),
        # a code of another enum
        ([("t.a", Codes.ONE), ("t.b", Codes.TWO), ("t.c", OpType.DEPTHWISE)],
         ["t.c: op code 2 is not a member of Codes", "Codes.THREE is declared by no op"]),
    ],
)  # fmt: skip
def test_planted_mismatches_are_caught(planted: list[tuple[str, int]], expected: list[str]) -> None:
    ops = [_op(name, RuntimeOp(code)) for name, code in planted]
    assert op_code_mismatches(ops, Codes) == expected


def test_an_op_without_a_code_is_caught() -> None:
    ops = [_op(f"t.{c.name.lower()}", RuntimeOp(c)) for c in (Codes.ONE, Codes.TWO, Codes.THREE)]
    ops.append(_op("t.none"))
    assert op_code_mismatches(ops, Codes) == ["t.none declares no RuntimeOp"]
