"""fold-qdq: QuantizeLinear/DequantizeLinear pairs -> quantized element types.

A QDQ model computes `Q(op(DQ(a), DQ(w), DQ(b)))`. After this pass the op reads and
writes int8 tensors whose types carry their parameters (`!tgr.quant<i8, s:zp>`), so
later passes never look for Q/DQ nodes again. Each pattern does one step:

1. `TypeQuantizedValues`: every Q result becomes `tensor<..x!tgr.quant<i8, s:zp>>`.
   The retyping comes first so the others work in any order.
2. `QuantizeModelInputs`: a model input consumed only by a Q becomes that quantized
   tensor: the host quantizes, and the signature records how.
3. `FoldQdqAroundOp`: a `tgr` op whose operands all come from DQs and whose results
   all feed Qs becomes the quantized op, if it has int8 semantics. int8 weights stay
   int8 (per-tensor or per-channel), int32 biases keep their input_scale * weight_scale,
   and a float bias is quantized to int32 at that scale.
4. `DropQuantizeOfQuantized` removes the Qs a folded op now feeds int8 directly.
5. `DequantizeModelOutputs`: a model output that is DQ(int8) returns the int8 tensor.
6. `LowerRemainingQdq` (after the others reach a fixed point): see its docstring. This is
   mixed precision: an op without an int8 kernel (batch_norm, instance_norm, linear resize,
   ...) runs in float between tgr.dequantize and tgr.quantize, so no QDQ model is refused
   for lack of an int8 kernel.

Scale and zero-point constants shared by several Q/DQ nodes are erased by the
driver only when their last user is gone (the "deferred cleanup" of the spec).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, IntegerType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tigris.dialects.constants import constant_array
from tigris.dialects.onnx.ops_quant import DequantizeLinearOp, QuantizeLinearOp
from tigris.dialects.onnx.ops_tensor import ConstantOp
from tigris.dialects.quant.params import folds_to_int8
from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_elementwise import DequantizeOp, QuantizeOp
from tigris.dialects.tgr.weight import WeightOp, make_weight
from tigris.transforms.rewriting import apply_patterns, carry_name, fail, node_name

_I32 = IntegerType(32)
_NOT_COMPUTE = (QuantizeLinearOp, DequantizeLinearOp, WeightOp, ConstantOp)


def quant_type_of(op: QuantizeLinearOp | DequantizeLinearOp, storage: Attribute) -> QuantType | None:
    """The quantized element type a Q/DQ node describes, if its parameters are constant."""
    scale = constant_array(op.scale)
    zero = constant_array(op.zero_point) if op.zero_point is not None else np.zeros_like(scale)
    if scale is None or zero is None or not isinstance(storage, IntegerType):
        return None
    scales, zeros = np.asarray(scale, np.float64).reshape(-1), np.asarray(zero).reshape(-1)
    if op.block_size.value.data != 0:
        return None  # blocked quantization has no per-tensor/per-axis form
    if scales.size == 1:
        return QuantType.get(storage, [float(scales[0])], [int(zeros[0])])
    rank = len(shape_of(op.x))
    return QuantType.get(storage, scales.tolist(), zeros.tolist(), op.axis.value.data % rank)


def _with_element(value: SSAValue, element: Attribute) -> TensorType:
    assert isinstance(value.type, TensorType)
    return TensorType(element, value.type.get_shape())


class TypeQuantizedValues(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeLinearOp, rewriter: PatternRewriter) -> None:
        assert isinstance(op.y.type, TensorType)
        storage = op.y.type.element_type
        if isinstance(storage, QuantType):
            return
        qtype = quant_type_of(op, storage)
        if qtype is None:
            raise fail(op, "QuantizeLinear needs constant scale and zero point (per-tensor or per-axis)")
        rewriter.replace_value_with_new_type(op.y, _with_element(op.y, qtype))


class QuantizeModelInputs(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeLinearOp, rewriter: PatternRewriter) -> None:
        arg = op.x
        if not isinstance(arg, BlockArgument) or not isinstance(op.y.type, TensorType):
            return
        func = arg.block.parent_op()
        if not isinstance(func, FuncOp) or any(not isinstance(u.operation, QuantizeLinearOp) for u in arg.uses):
            return
        if any(u.operation.results[0].type != op.y.type for u in arg.uses):
            return  # two different quantizations of one input: keep the float input
        new_arg = rewriter.replace_value_with_new_type(arg, op.y.type)
        for use in list(new_arg.uses):
            quantize = use.operation
            rewriter.replace(quantize, [], [new_arg])
        _update_signature(func)


class DequantizeModelOutputs(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeLinearOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.x.type, TensorType) or not isinstance(op.x.type.element_type, QuantType):
            return
        if not op.y.uses or any(not isinstance(u.operation, ReturnOp) for u in op.y.uses):
            return
        func = op.parent_op()
        rewriter.replace(op, [], [op.x])
        if isinstance(func, FuncOp):
            _update_signature(func)


def _update_signature(func: FuncOp) -> None:
    block: Block = func.body.block
    ret = block.last_op
    assert isinstance(ret, ReturnOp)
    func.function_type = FunctionType.from_lists([a.type for a in block.args], [v.type for v in ret.arguments])


class FoldQdqAroundOp(RewritePattern):
    """Rebuilds a compute op between DQs and Qs on the int8 values, if its int8 form has int8
    semantics (`quant.params.folds_to_int8`: a `tgr` op with an int8 kernel for these types, or
    an `onnx` op whose own pass comes after this one and keeps int8 semantics: Resize nearest,
    Swish, reshapes, ...); an `onnx` op's constant parameter inputs (Resize scales) pass through.
    An op without int8 semantics keeps its DQs and Qs, which `LowerRemainingQdq` turns into
    tgr.dequantize / tgr.quantize: it runs in float, as the QDQ model means it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, _NOT_COMPUTE) or not op.results or op.dialect_name() not in ("tgr", "onnx"):
            return
        result_types = _quantized_results(op)
        if result_types is None:
            return
        new_ops: list[Operation] = []
        operands: list[SSAValue] = []
        for index, value in enumerate(op.operands):
            folded = self._operand(op, index, value, operands, new_ops)
            if folded is None:
                return
            operands.append(folded)
        new = type(op).create(
            operands=operands,
            result_types=list(result_types),
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        if not folds_to_int8(new):  # no int8 kernel: stays float (LowerRemainingQdq converts around it)
            new.drop_all_references()
            return
        rewriter.replace(op, [*new_ops, carry_name(op, new)])  # the Qs now read int8: see DropQuantizeOfQuantized

    def _operand(
        self, op: Operation, index: int, value: SSAValue, done: list[SSAValue], new_ops: list[Operation]
    ) -> SSAValue | None:
        producer = value.owner
        if isinstance(producer, DequantizeLinearOp):
            source = producer.x
            assert isinstance(source.type, TensorType)
            if isinstance(source.type.element_type, QuantType):
                return source  # an int8 activation
            data = constant_array(source)
            qtype = quant_type_of(producer, source.type.element_type)
            if data is None or qtype is None:
                return None
            owner = source.owner
            weight = make_weight(data, _with_element(source, qtype), node_name(owner) if isinstance(owner, Operation) else "w")
            new_ops.append(weight)
            return weight.output
        if constant_array(value) is None:
            return None
        if op.dialect_name() == "onnx" and index > 0:
            return value  # a parameter input such as Resize's scales
        if index == 2 and len(done) == 2:
            return self._quantized_bias(op, value, done, new_ops)
        return None

    @staticmethod
    def _quantized_bias(op: Operation, value: SSAValue, done: list[SSAValue], new_ops: list[Operation]) -> SSAValue | None:
        """A float bias beside int8 input and weight: int32 at input_scale * weight_scale."""
        in_q, w_q = (_element(v) for v in done)
        if not isinstance(in_q, QuantType) or not isinstance(w_q, QuantType):
            return None
        bias = np.asarray(constant_array(value), np.float64)
        scales = in_q.scale_values[0] * np.asarray(w_q.scale_values)
        scales = np.broadcast_to(scales, bias.shape)
        quantized = np.clip(np.round(bias / scales), -(2**31), 2**31 - 1).astype(np.int32)
        axis = 0 if len(w_q.scale_values) > 1 else -1
        qtype = QuantType.get(_I32, scales.tolist() if axis == 0 else [float(scales[0])], [0] * (bias.size if axis == 0 else 1), axis)
        weight = make_weight(quantized, _with_element(value, qtype), f"{node_name(op)}.bias")
        new_ops.append(weight)
        return weight.output


def _element(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def _quantized_results(op: Operation) -> list[TensorType] | None:
    """Each result's quantized type, if every use of it is a QuantizeLinear agreeing on it."""
    types: list[TensorType] = []
    for result in op.results:
        uses = list(result.uses)
        if not uses or any(not isinstance(u.operation, QuantizeLinearOp) for u in uses):
            return None
        found = {u.operation.results[0].type for u in uses}
        if len(found) != 1:
            return None
        (type_,) = found
        if not isinstance(type_, TensorType) or not isinstance(type_.element_type, QuantType):
            return None
        types.append(type_)
    return types


class DropQuantizeOfQuantized(RewritePattern):
    """Q(x) or Q(DQ(x)) where x already has the Q's quantized type: the op between them
    was folded (or was an Identity/Dropout that fold-constants removed)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeLinearOp, rewriter: PatternRewriter) -> None:
        source = op.x
        if isinstance(source.owner, DequantizeLinearOp) and source.owner.x.type == op.y.type:
            source = source.owner.x
        if source.type == op.y.type:
            rewriter.replace(op, [], [source])


class LowerRemainingQdq(RewritePattern):
    """What folding could not absorb: a float op between int8 ones keeps explicit
    conversions (`tgr.dequantize`/`tgr.quantize`), and a weight read in float is
    dequantized at compile time."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, DequantizeLinearOp):
            if isinstance(_element(op.x), QuantType):
                new: Operation = DequantizeOp.build(operands=[op.x], result_types=[op.y.type])
                rewriter.replace(op, carry_name(op, new))
                return
            data = constant_array(op.x)
            qtype = quant_type_of(op, _element(op.x))
            if data is None or qtype is None:
                raise fail(op, "DequantizeLinear needs a constant or quantized input and constant parameters")
            scales, zeros = _broadcast_params(qtype, data.ndim)
            real = ((data.astype(np.float64) - zeros) * scales).astype(np.float32)
            rewriter.replace(op, carry_name(op, make_weight(real, op.y.type, node_name(op))))  # type: ignore[arg-type]
        elif isinstance(op, QuantizeLinearOp) and not isinstance(_element(op.x), QuantType):
            rewriter.replace(op, carry_name(op, QuantizeOp.build(operands=[op.x], result_types=[op.y.type])))


def _broadcast_params(qtype: QuantType, rank: int) -> tuple[np.ndarray, np.ndarray]:
    scales, zeros = np.asarray(qtype.scale_values), np.asarray(qtype.zero_point_values, np.float64)
    if qtype.axis.data < 0:
        return scales, zeros
    shape = [1] * rank
    shape[qtype.axis.data] = scales.size
    return scales.reshape(shape), zeros.reshape(shape)


@dataclass(frozen=True)
class FoldQdqPass(ModulePass):
    name = "fold-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, TypeQuantizedValues())
        apply_patterns(
            op, QuantizeModelInputs(), FoldQdqAroundOp(), DropQuantizeOfQuantized(), DequantizeModelOutputs()
        )
        apply_patterns(op, LowerRemainingQdq())
