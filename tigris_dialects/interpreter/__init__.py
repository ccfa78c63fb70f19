"""Reference interpreter for the `onnx` and `tgr` dialects (numpy values, float32 like onnxruntime).

    from tigris.dialects.interpreter import run_module
    outputs = run_module(module, [x])          # calls func.func @main

It is the middle leg of the three-way oracle (onnxruntime on the .onnx file, this
interpreter on the IR after any pass, the C runtime on the emitted plan).
Ops on `!tgr.quant` tensors run the int8 kernels of `tgr_int8`: onnxruntime's QDQ meaning, with
the formulas and compile-time numbers of `tigris.dialects.quant` (shared with the compiler and
the device) and the exact integer accumulators of `kernels_int8`.
"""

from tigris.dialects.interpreter.onnx_functions import OnnxFunctions
from tigris.dialects.interpreter.run import OpRecorder, make_interpreter, run_module
from tigris.dialects.interpreter.tgr_functions import TgrFunctions

__all__ = ["OnnxFunctions", "TgrFunctions", "OpRecorder", "make_interpreter", "run_module"]
