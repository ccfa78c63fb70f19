"""`tigris-opt --interpret`: run `@main` with the reference interpreter, print the outputs.

Inputs come from `.npy` files in the ONNX model's own layout and dtype (float for
quantized inputs too: they are quantized with the input's `!tgr.quant` parameters,
as the host does); without files, a fixed-seed random input is used.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import DiagnosticException

from tigris.dialects.tgr.attributes import QuantType


class InterpretError(DiagnosticException):
    pass


def _main(module: ModuleOp) -> FuncOp:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == "main":
            return op
    raise InterpretError("--interpret needs a func.func @main")


def quantize(x: np.ndarray, qtype: QuantType) -> np.ndarray:
    """As the host does: onnxruntime's QuantizeLinear (`quant.arith.quantize`)."""
    from tigris.dialects.quant.arith import quantize as quantize_values
    from tigris.dialects.tgr.weight import numpy_dtype

    dtype = numpy_dtype(qtype.storage)
    info = np.iinfo(dtype)
    return quantize_values(x, qtype.scale_values[0], qtype.zero_point_values[0], int(info.min), int(info.max)).astype(dtype)


def dequantize(q: np.ndarray, qtype: QuantType) -> np.ndarray:
    from tigris.dialects.quant.arith import dequantize as dequantize_values

    return dequantize_values(q, qtype.scale_values[0], qtype.zero_point_values[0])


def load_inputs(func: FuncOp, paths: Sequence[str]) -> list[np.ndarray]:
    types = list(func.function_type.inputs.data)
    if paths and len(paths) != len(types):
        raise InterpretError(f"@main takes {len(types)} inputs, --input gave {len(paths)}")
    rng = np.random.default_rng(0)
    inputs: list[np.ndarray] = []
    for index, type_ in enumerate(types):
        assert isinstance(type_, TensorType)
        shape = tuple(type_.get_shape())
        if paths:
            try:
                array = np.load(paths[index])
            except (OSError, ValueError) as e:
                raise InterpretError(f"cannot read input '{paths[index]}': {e}") from None
            if array.shape != shape:
                raise InterpretError(f"input '{paths[index]}' has shape {array.shape}, @main takes {shape}")
        else:
            array = rng.standard_normal(shape).astype(np.float32)
        element = type_.element_type
        if isinstance(element, QuantType) and array.dtype.kind == "f":
            array = quantize(array, element)
        inputs.append(array)
    return inputs


def interpret_and_report(module: ModuleOp, paths: Sequence[str]) -> str:
    from tigris.dialects.interpreter import run_module

    func = _main(module)
    outputs = run_module(module, load_inputs(func, paths))
    lines = ["// --interpret outputs"]
    for index, (value, type_) in enumerate(zip(outputs, func.function_type.outputs.data)):
        lines.append(f"// output {index}: shape {list(value.shape)} {value.dtype}")
        assert isinstance(type_, TensorType)
        if isinstance(type_.element_type, QuantType):
            value = dequantize(value, type_.element_type)
            lines.append("//   (dequantized)")
        flat = np.array2string(value.reshape(-1)[:16], precision=6, max_line_width=200)
        lines.append(f"//   {flat}{' ...' if value.size > 16 else ''}")
    return "\n".join(lines) + "\n"
