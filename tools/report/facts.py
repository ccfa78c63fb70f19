"""Facts about the normalized model itself (not its plan): names, shapes, dtypes, weights.

They are read after `tigris-normalize`, so the dtype is what the runtime will see:
`fold-qdq` has turned every quantized activation into `!tgr.quant<i8, ...>`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import ReturnOp
from xdsl.ir import Attribute, SSAValue

from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_elementwise import DequantizeOp, QuantizeOp
from tigris.dialects.tgr.weight import WeightOp, numpy_dtype
from tigris.transforms.plan.graph import main_func, tensor_bytes


@dataclass(frozen=True)
class Quantization:
    """Per-tensor (`axis` -1, one scale) or per-axis parameters of a `!tgr.quant` tensor."""

    axis: int
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]
    dtype: str  # numpy name of the stored element: float32, int8, ...
    nbytes: int
    quant: Quantization | None = None


def dtype_name(element: Attribute) -> str:
    """`!tgr.quant<i8, ...>` is int8 (its storage), f32 is float32."""
    return numpy_dtype(element).name


def _info(value: SSAValue, attrs: DictionaryAttr | None) -> TensorInfo:
    type_ = value.type
    assert isinstance(type_, TensorType)
    named = attrs.data.get("tgr.name") if attrs is not None else None
    name = named.data if isinstance(named, StringAttr) else value.name_hint or "?"
    element = type_.element_type
    quant = None
    if isinstance(element, QuantType):
        quant = Quantization(element.axis.data, element.scale_values, element.zero_point_values)
    return TensorInfo(name, tuple(type_.get_shape()), dtype_name(element), tensor_bytes(type_, f"'{name}'"), quant)


def model_inputs(module: ModuleOp) -> list[TensorInfo]:
    func = main_func(module)
    attrs = func.arg_attrs.data if func.arg_attrs else ()
    return [_info(arg, attrs[i] if i < len(attrs) else None) for i, arg in enumerate(func.body.block.args)]


def model_outputs(module: ModuleOp) -> list[TensorInfo]:
    func = main_func(module)
    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp)
    attrs = func.res_attrs.data if func.res_attrs else ()
    return [_info(v, attrs[i] if i < len(attrs) else None) for i, v in enumerate(ret.arguments)]


def model_dtype(module: ModuleOp) -> str:
    """The dtype the model computes in (weights excluded: int8 models keep int32 biases);
    `mixed (a+b)` when it computes some ops in float and others quantized. The float side of a
    model-boundary conversion is not computing: an int8 model whose float input only feeds a
    quantize and whose float output only comes from a dequantize (what onnxruntime's quantizer
    writes) is int8; a float op between a dequantize and a quantize makes it mixed."""
    func = main_func(module)
    values = [a for a in func.body.block.args if any(not isinstance(u.operation, QuantizeOp) for u in a.uses)]
    for op in func.body.block.ops:
        if isinstance(op, WeightOp | ReturnOp):
            continue
        values += op.operands[:1] if isinstance(op, DequantizeOp) else op.results
    names = sorted({dtype_name(v.type.element_type) for v in values if isinstance(v.type, TensorType)})
    if not names:
        return "none"
    return names[0] if len(names) == 1 else f"mixed ({'+'.join(names)})"


def weights(module: ModuleOp) -> tuple[int, int]:
    """(count, bytes) of the `tgr.weight` tensors left after normalization: what goes to flash."""
    ops = [op for op in main_func(module).body.block.ops if isinstance(op, WeightOp)]
    total = 0
    for op in ops:
        type_ = op.results[0].type
        assert isinstance(type_, TensorType)
        total += tensor_bytes(type_, "a weight")
    return len(ops), total
