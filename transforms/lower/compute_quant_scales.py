"""compute-quant-scales: the integer parameters of every int8 op, attached for the emitter.

spec/pipeline.md section 7.2: each quantized op's effective scale (e.g. s_x * s_w[c] / s_y) as a
Q0.31 multiplier and a shift, so the device computes with integers only. The numbers come from
`int8_params(op)`, the same function the interpreter's int8 kernels call on every run, so the IR,
the interpreter and the device agree bit for bit. Attributes (all discardable, on the op):

    tgr.multipliers = array<i32: ...>   per output channel (conv family, fully_connected: of
    tgr.shifts = array<i32: ...>          s_x s_w[c] / s_y; matmul per rhs column), one value for
                                          mul, global_avg_pool/reduce_mean and requantizing moves,
                                          one per input for concat
    tgr.add_params = array<i32: left_shift, in1_mult, in1_shift, in2_mult, in2_shift,
                                out_mult, out_shift>          add, sub (TFLite's AddElementwise)
    tgr.table = array<i8: 256 values>   relu, relu6, clip, leaky_relu, sigmoid, tanh, hard_swish
                                          (array<ui8: ...> for uint8 results); entry v - qmin is
                                          the output for the stored input v
    tgr.act_range = array<i32: lo, hi>  the clamp after requantization (narrowed by a fused
                                          relu/relu6 on conv family and fully_connected ops)
    tgr.pad_value = v : i32             tgr.pad: the stored value of its constant padding

See tigris.dialects.interpreter.int8_params for which op gets which. A multiplier is a Q0.31
value in [2**30, 2**31) with real = multiplier * 2**shift / 2**31 to within 2**-31 relative
(`quant_math.quantize_multiplier`); shift > 0 shifts left. Shifts lie in [-31, 30]: reals below
2**-32 flush to (0, 0), reals of 2**30 and more fail the pass; effective scales in [1e-6, 1e3)
have shifts in [-19, 10]. ADD's input multipliers are below one (shifts <= 0), its left shift 20.

Data-movement ops whose result keeps the input's parameters (and pools that pick stored values)
get no attribute: they only move bytes. Quantize/dequantize convert with their float scale and
are left alone. A quantized runtime op without an int8 kernel (softmax, div, ...) or with scales
that cannot be represented fails the pass, naming the node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseArrayBase, IntegerAttr, IntegerType, ModuleOp, Signedness, TensorType, i8, i32,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.transforms.rewriting import fail

if TYPE_CHECKING:
    from tigris.dialects.interpreter.int8_params import Int8Params

ATTRIBUTES = (
    "tgr.multipliers", "tgr.shifts", "tgr.add_params", "tgr.table", "tgr.act_range", "tgr.pad_value",
)
"""Every attribute this pass may write (`param_attributes`): `tgr.` + an `Int8Params` field."""

_UI8 = IntegerType(8, Signedness.UNSIGNED)


def _i32s(values: object) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, [int(v) for v in np.asarray(values).reshape(-1)])


def param_attributes(params: Int8Params) -> dict[str, Attribute]:
    """The attributes spelling out `params` (absent fields: no attribute)."""
    attrs: dict[str, Attribute] = {}
    for name in ("multipliers", "shifts", "add_params", "act_range"):
        value = getattr(params, name)
        if value is not None:
            attrs[f"tgr.{name}"] = _i32s(value)
    if params.table is not None:
        element = i8 if params.table.dtype == np.int8 else _UI8
        attrs["tgr.table"] = DenseArrayBase.from_list(element, [int(v) for v in params.table])
    if params.pad_value is not None:
        attrs["tgr.pad_value"] = IntegerAttr(params.pad_value, i32)
    return attrs


def _has_quant_values(module: ModuleOp) -> bool:
    """Whether any op reads or writes a `!tgr.quant` tensor. A float module has nothing to compute,
    and this check spares it importing the interpreter, whose package pulls in xdsl.interpreters
    (0.45 s, a fifth of a float compile)."""
    return any(
        isinstance(t, TensorType) and isinstance(t.element_type, QuantType)
        for op in module.walk()
        for t in (*op.operand_types, *op.result_types)
    )


@dataclass(frozen=True)
class ComputeQuantScalesPass(ModulePass):
    name = "compute-quant-scales"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not _has_quant_values(op):
            return
        from tigris.dialects.interpreter.int8_params import has_int8_kernel, int8_params
        from tigris.dialects.interpreter.values import CONVERSIONS, quantized_types

        for node in op.walk():
            if not quantized_types(node) or node.name in CONVERSIONS or node.get_trait(RuntimeOp) is None:
                continue
            if not has_int8_kernel(node):
                raise fail(node, "no int8 kernel for this op: quantized tensors are not supported by it")
            try:
                params = int8_params(node)
            except (InterpretationError, ValueError) as e:
                raise fail(node, str(e)) from None
            for name in ATTRIBUTES:
                node.attributes.pop(name, None)
            node.attributes.update(param_attributes(params))
