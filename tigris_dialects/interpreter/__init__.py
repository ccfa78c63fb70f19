"""Reference interpreter for the `onnx` and `tgr` dialects (numpy values, float32 like onnxruntime).

    from tigris.dialects.interpreter import run_module
    outputs = run_module(module, [x])          # calls func.func @main

It is the middle leg of the three-way oracle (onnxruntime on the .onnx file, this
interpreter on the IR after any pass, the C runtime on the emitted plan).
Ops on `!tgr.quant` tensors run the int8 kernels of `tgr_int8`: onnxruntime's QDQ meaning, with
the formulas and compile-time numbers of `tigris.dialects.quant` (shared with the compiler and
the device) and the exact integer accumulators of `kernels_int8`.

The names below load on first use (PEP 562): the compiler imports leaf kernels such as
`kernels_resample` for their arithmetic, and importing this package must not drag in
`xdsl.interpreters` and every kernel module with them.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "OnnxFunctions": "onnx_functions",
    "TgrFunctions": "tgr_functions",
    "OpRecorder": "run",
    "make_interpreter": "run",
    "run_module": "run",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
