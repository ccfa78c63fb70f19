"""`TgrFunctions`: the interpreter implementations of every `tgr` op, in one registrable class."""

from __future__ import annotations

from xdsl.interpreter import register_impls

from tigris.dialects.interpreter.tgr_binary import TgrBinaryFunctions
from tigris.dialects.interpreter.tgr_misc import TgrMiscFunctions
from tigris.dialects.interpreter.tgr_move import TgrMoveFunctions
from tigris.dialects.interpreter.tgr_reduce import TgrReduceFunctions
from tigris.dialects.interpreter.tgr_unary import TgrUnaryFunctions
from tigris.dialects.interpreter.tgr_window import TgrWindowFunctions


@register_impls
class TgrFunctions(TgrWindowFunctions, TgrMiscFunctions, TgrBinaryFunctions, TgrMoveFunctions, TgrReduceFunctions,
                  TgrUnaryFunctions):
    """NCHW semantics of the runtime's op set: float kernels, and the int8 kernels (onnxruntime's QDQ
    meaning) for ops on `!tgr.quant` tensors (tgr_int8.py; ops without one raise InterpretationError)."""
