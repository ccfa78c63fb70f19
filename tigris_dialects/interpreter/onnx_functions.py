"""`OnnxFunctions`: the interpreter implementations of every `onnx` op, in one registrable class.

The implementations live in four mixins (one per op family, to keep files short);
`@register_impls` walks the MRO, so registering this class registers them all.
"""

from __future__ import annotations

from xdsl.interpreter import register_impls

from tigris.dialects.interpreter.onnx_binary import OnnxBinaryFunctions
from tigris.dialects.interpreter.onnx_data import OnnxDataFunctions
from tigris.dialects.interpreter.onnx_elementwise import OnnxElementwiseFunctions
from tigris.dialects.interpreter.onnx_nn import OnnxNNFunctions
from tigris.dialects.interpreter.onnx_reduce import OnnxReduceFunctions
from tigris.dialects.interpreter.onnx_tensor import OnnxTensorFunctions
from tigris.dialects.interpreter.tgr_unary import OnnxUnaryFunctions


@register_impls
class OnnxFunctions(
    OnnxNNFunctions, OnnxElementwiseFunctions, OnnxTensorFunctions, OnnxDataFunctions, OnnxBinaryFunctions,
    OnnxReduceFunctions, OnnxUnaryFunctions,
):
    """Float semantics of ONNX (as onnxruntime's CPU provider computes them), NCHW."""
