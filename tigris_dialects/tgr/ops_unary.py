"""`tgr` element-wise math: one op per function, each its own runtime op type (36..52).

Float kernels compute the formula (runtime/src/kernels/kernels_f32_math.c, the interpreter's
tgr_unary.py); int8 kernels are 256-entry lookup tables built at compile time from the same
float64 definition (quant/arith.py `activation_function`), onnxruntime's dequantize -> op ->
quantize. Parameters go to the record's `alpha`/`beta` floats and `mode` (gelu).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatAttr, StringAttr, f32
from xdsl.irdl import PropertyDef, irdl_op_definition, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from tigris.dialects.tgr.ops_elementwise import POINTWISE, UnaryElementwise
from tigris.dialects.tgr.record_fields import Fields
from tigris.dialects.tgr.runtime_enums import GeluMode, OpType
from tigris.dialects.tgr.traits import RuntimeOp


GELU_MODES = tuple(mode.name.lower() for mode in GeluMode)
"""`approximate` of tgr.gelu ("none", "tanh"); the record's `mode` is its GeluMode."""


def _float(default: float) -> PropertyDef:
    """A float32 property with its ONNX default (printed only when it differs)."""
    return prop_def(FloatAttr[Float32Type], default_value=FloatAttr(default, f32))


@irdl_op_definition
class NegOp(UnaryElementwise):
    name = "tgr.neg"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.NEG))


@irdl_op_definition
class AbsOp(UnaryElementwise):
    name = "tgr.abs"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.ABS))


@irdl_op_definition
class ExpOp(UnaryElementwise):
    name = "tgr.exp"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.EXP))


@irdl_op_definition
class LogOp(UnaryElementwise):
    name = "tgr.log"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.LOG))


@irdl_op_definition
class SqrtOp(UnaryElementwise):
    name = "tgr.sqrt"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SQRT))


@irdl_op_definition
class ReciprocalOp(UnaryElementwise):
    name = "tgr.reciprocal"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.RECIPROCAL))


@irdl_op_definition
class SoftplusOp(UnaryElementwise):
    name = "tgr.softplus"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SOFTPLUS))


@irdl_op_definition
class SoftsignOp(UnaryElementwise):
    name = "tgr.softsign"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SOFTSIGN))


@irdl_op_definition
class ErfOp(UnaryElementwise):
    name = "tgr.erf"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.ERF))


@irdl_op_definition
class SignOp(UnaryElementwise):
    name = "tgr.sign"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SIGN))


@irdl_op_definition
class SiluOp(UnaryElementwise):
    """x * sigmoid(x) (onnx Silu, Swish with alpha 1): one table in int8, so the sigmoid is
    never rounded to int8 on its own (onnxruntime does not round it either)."""

    name = "tgr.silu"
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SILU))


@irdl_op_definition
class EluOp(UnaryElementwise):
    name = "tgr.elu"
    alpha = _float(1.0)
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.ELU))

    def runtime_fields(self) -> Fields:
        return {"alpha": self.alpha.value.data}


@irdl_op_definition
class SeluOp(UnaryElementwise):
    name = "tgr.selu"
    alpha = _float(1.67326319217681884765625)
    gamma = _float(1.05070102214813232421875)
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SELU))

    def runtime_fields(self) -> Fields:
        return {"alpha": self.alpha.value.data, "beta": self.gamma.value.data}


@irdl_op_definition
class HardSigmoidOp(UnaryElementwise):
    name = "tgr.hard_sigmoid"
    alpha = _float(0.2)
    beta = _float(0.5)
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.HARD_SIGMOID))

    def runtime_fields(self) -> Fields:
        return {"alpha": self.alpha.value.data, "beta": self.beta.value.data}


@irdl_op_definition
class ShrinkOp(UnaryElementwise):
    """x < -lambd: x + bias; x > lambd: x - bias; else 0."""

    name = "tgr.shrink"
    lambd = _float(0.5)
    bias = _float(0.0)
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.SHRINK))

    def runtime_fields(self) -> Fields:
        return {"alpha": self.lambd.value.data, "beta": self.bias.value.data}


@irdl_op_definition
class PowOp(UnaryElementwise):
    """x ** exponent, the exponent a constant (onnx Pow with a constant scalar Y)."""

    name = "tgr.pow"
    exponent = prop_def(FloatAttr[Float32Type])
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.POW))

    def runtime_fields(self) -> Fields:
        return {"alpha": self.exponent.value.data}


@irdl_op_definition
class GeluOp(UnaryElementwise):
    """0.5 x (1 + erf(x / sqrt 2)), or with approximate = "tanh" the tanh form (ONNX Gelu-20)."""

    name = "tgr.gelu"
    approximate = prop_def(StringAttr, default_value=StringAttr("none"))
    traits = traits_def(*POINTWISE, RuntimeOp(OpType.GELU))

    def verify_(self) -> None:
        super().verify_()
        if self.approximate.data not in GELU_MODES:
            raise VerifyException(f"tgr.gelu: approximate must be one of {GELU_MODES}, got '{self.approximate.data}'")

    def runtime_fields(self) -> Fields:
        return {"mode": GeluMode[self.approximate.data.upper()]}


UNARY_OPS = [
    NegOp, AbsOp, ExpOp, LogOp, SqrtOp, ReciprocalOp, EluOp, SeluOp, SoftplusOp, SoftsignOp,
    ErfOp, GeluOp, HardSigmoidOp, SignOp, ShrinkOp, PowOp, SiluOp,
]  # fmt: skip
"""This module's ops, registered in TGR_OPS."""
