"""The meaning of int8 (`!tgr.quant`) values: onnxruntime's QDQ arithmetic, defined once.

    arith   the formulas on numpy arrays (dequantize, quantize, accumulator requantization, means,
            lookup tables, the float32 softmax): no xDSL, no IR
    params  which formula and which compile-time numbers each op gets, read from its types

Why this place. The reference interpreter runs these formulas on every int8 op, the lowering pass
`compute-quant-scales` attaches their compile-time numbers for the device, `fold-qdq` asks which
ops have int8 semantics, and the tests check them against onnxruntime. Lowering must not import
the interpreter (it drags in `xdsl.interpreters`, and layering forbids transforms reaching into a
tool of the dialects), so the arithmetic lives here: beside the dialects whose types it gives a
meaning to (`params` reads `tgr` and `onnx` ops, so it cannot live inside either dialect), below
the interpreter and the transforms that import it. The C kernels (`runtime/src/kernels/i8_math.h`)
implement the same formulas and are tested bit for bit against the interpreter that uses these.
"""
