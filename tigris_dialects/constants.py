"""Reading compile-time constants, whichever op holds them.

Before `fold-constants` runs, a constant may still be an `onnx.Constant`; after it,
every constant is a `tgr.weight`. Passes ask here instead of matching op types.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr
from xdsl.ir import SSAValue

from tigris.dialects.onnx.ops_tensor import ConstantOp
from tigris.dialects.tgr.weight import WeightOp, weight_array


def constant_array(value: SSAValue | None) -> np.ndarray | None:
    """The value as numpy if it is a compile-time constant, else None."""
    if value is None:
        return None
    owner = value.owner
    if isinstance(owner, WeightOp):
        return owner.array()
    if isinstance(owner, ConstantOp):
        return onnx_constant_array(owner)
    return None


def onnx_constant_array(op: ConstantOp) -> np.ndarray:
    """The tensor an `onnx.Constant` produces, from whichever value_* attribute it has."""
    if op.value is not None:
        return weight_array(op.value)
    attr = next(op.properties[k] for k in ("value_float", "value_floats", "value_int", "value_ints") if k in op.properties)
    if isinstance(attr, FloatAttr):
        return np.array(attr.value.data, np.float32)
    if isinstance(attr, IntegerAttr):
        return np.array(attr.value.data, np.int64)
    assert isinstance(attr, DenseArrayBase)
    floats = "value_floats" in op.properties
    return np.array(list(attr.get_values()), np.float32 if floats else np.int64)


def constant_ints(value: SSAValue | None) -> list[int] | None:
    array = constant_array(value)
    return None if array is None else [int(v) for v in np.asarray(array).reshape(-1)]


def constant_scalar(value: SSAValue | None) -> float | None:
    array = constant_array(value)
    if array is None or array.size != 1:
        return None
    return float(np.asarray(array).reshape(-1)[0])
