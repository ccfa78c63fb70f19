"""Running a module: `run_module` calls `@main` on numpy inputs; `OpRecorder` keeps every op's outputs.

Floating-point exceptions are IEEE (inf/nan, no warnings) during a run, as in
onnxruntime; outside a run numpy's settings are untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from tigris.dialects.interpreter.onnx_functions import OnnxFunctions
from tigris.dialects.interpreter.tgr_functions import TgrFunctions
from tigris.dialects.plugins import interpreter_functions as plugin_interpreter_functions
from tigris.dialects.tgr.weight import numpy_dtype


class OpRecorder(Interpreter.Listener):
    """Records (op, outputs) for every interpreted op, in execution order, for debugging."""

    def __init__(self) -> None:
        self.records: list[tuple[Operation, tuple[np.ndarray, ...]]] = []

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        self.records.append((op, tuple(np.array(r, copy=True) for r in results)))

    def by_name(self) -> dict[str, tuple[np.ndarray, ...]]:
        """Outputs keyed by the op's `tgr.name` (its ONNX node name), else `<op name>#<index>`."""
        named: dict[str, tuple[np.ndarray, ...]] = {}
        for index, (op, values) in enumerate(self.records):
            name = op.attributes.get("tgr.name")
            named[name.data if isinstance(name, StringAttr) else f"{op.name}#{index}"] = values
        return named


def make_interpreter(module: ModuleOp, listeners: Sequence[Interpreter.Listener] = ()) -> Interpreter:
    """An interpreter with func, `onnx`, `tgr` and the installed plugins' implementations registered."""
    interpreter = Interpreter(module, listeners=tuple(listeners))
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(OnnxFunctions())
    interpreter.register_implementations(TgrFunctions())
    for functions in plugin_interpreter_functions():
        interpreter.register_implementations(functions())
    return interpreter


def _entry(module: ModuleOp, name: str) -> FuncOp:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    raise InterpretationError(f"the module has no func.func @{name}")


def run_module(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    *,
    entry: str = "main",
    recorder: OpRecorder | None = None,
) -> list[np.ndarray]:
    """Run `@entry` (default `@main`) on `inputs` and return its results as numpy arrays.

    Inputs are checked against the function's argument shapes and converted to its
    element types; pass an `OpRecorder` to keep every intermediate result."""
    func = _entry(module, entry)
    arg_types = func.function_type.inputs.data
    if len(inputs) != len(arg_types):
        raise InterpretationError(f"@{entry} takes {len(arg_types)} inputs, got {len(inputs)}")
    args: list[np.ndarray] = []
    for index, (value, type_) in enumerate(zip(inputs, arg_types)):
        array = np.asarray(value)
        if isinstance(type_, TensorType):
            if array.shape != tuple(type_.get_shape()):
                raise InterpretationError(
                    f"input {index} of @{entry} has shape {array.shape}, the function takes {type_}"
                )
            array = array.astype(numpy_dtype(type_.element_type), copy=False)
        args.append(array)
    interpreter = make_interpreter(module, [recorder] if recorder is not None else [])
    with np.errstate(all="ignore"):
        results = interpreter.call_op(entry, tuple(args))
    return [np.asarray(r) for r in results]
