"""`plan_file_from_module`: a module after `tigris-compile` as a `PlanFile` for `write_plan`.

Tensors are numbered as the planner numbers them (`build_plan_graph`: model inputs, then op
results in program order), so `#tgr.stage` inputs/outputs are used as they are; constants
follow, in IR order. Ops are the planner's steps; each op's type is its `RuntimeOp` trait.
Anything the format cannot express raises `FromIrError` naming the op.
"""

from __future__ import annotations

import math
from dataclasses import fields

from xdsl.dialects.builtin import (
    ArrayAttr, DenseArrayBase, DictionaryAttr, Float16Type, Float32Type, FloatAttr, IntegerAttr,
    IntegerType, ModuleOp, Signedness, StringAttr, TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tigris.dialects.tgr.attributes import QuantType, StageAttr, TilePlanAttr
from tigris.dialects.tgr.ops_shape import FlattenOp, ReshapeOp
from tigris.dialects.tgr.ops_window import NK_HWC
from tigris.dialects.tgr.traits import RuntimeOp
from tigris.dialects.tgr.weight import WeightOp
from tigris.emit.tgrs.enums import (
    Activation, CoordMode, DType, FileFlag, OpFlag, OpType, PadMode, ResizeMode, WeightLayout,
)
from tigris.emit.tgrs.model import Op, PlanFile, QuantParam, Stage, Tensor, TilePlan, Weight, WeightBlock
from tigris.transforms.lower.layout_nhwc import STORED_ORDER_ATTR
from tigris.transforms.normalize.model_layout import INPUT_PERM, OUTPUT_PERM, recorded_perm
from tigris.transforms.lower.weight_reserve import plan_align, scheduled_peaks
from tigris.transforms.plan.graph import build_plan_graph, main_func
from tigris.transforms.plan.memory import align_up


class FromIrError(ValueError):
    """The module holds something the `.tgrs` format cannot express."""


def _name(op: Operation) -> str:
    attr = op.attributes.get("tgr.name")
    return attr.data if isinstance(attr, StringAttr) else op.name


def _fail(op: Operation, msg: str) -> FromIrError:
    return FromIrError(f"{op.name} '{_name(op)}': {msg}")


def _dtype(element: Attribute, op: Operation) -> DType:
    if isinstance(element, QuantType):
        element = element.storage
    if isinstance(element, Float32Type):
        return DType.F32
    if isinstance(element, Float16Type):
        return DType.F16
    if isinstance(element, IntegerType):
        width, unsigned = element.width.data, element.signedness.data == Signedness.UNSIGNED
        table = {(8, False): DType.I8, (8, True): DType.U8, (16, False): DType.I16, (32, False): DType.I32,
                 (64, False): DType.I64, (1, False): DType.BOOL, (1, True): DType.BOOL}
        if (width, unsigned) in table:
            return table[(width, unsigned)]
    raise _fail(op, f"element type {element} has no .tgrs dtype")


def _ints(op: Operation, name: str) -> list[int] | None:
    attr = op.properties.get(name)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    return None


def _int(op: Operation, name: str, default: int) -> int:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default


def _float(op: Operation, name: str, default: float) -> float:
    attr = op.properties.get(name)
    return attr.value.data if isinstance(attr, FloatAttr) else default


def _str(op: Operation, name: str) -> str | None:
    attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def _attr_ints(op: Operation, name: str) -> list[int] | None:
    attr = op.attributes.get(name)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    return None


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def _runtime_axis(axis: int, rank: int) -> int:
    """A model-order (NCHW) axis in the runtime's channels-last order."""
    axis %= rank if rank else 1
    if rank < 3:
        return axis
    return 0 if axis == 0 else rank - 1 if axis == 1 else axis - 1


def _to_runtime(values: list[int], rank: int) -> list[int]:
    """Per-axis values (one per model axis) reordered to channels-last."""
    if rank < 3:
        return list(values)
    order = [0, *range(2, rank), 1]
    return [values[a] for a in order]


def _stored_perm(rank: int) -> list[int]:
    return [0, *range(2, rank), 1] if rank >= 3 else list(range(rank))


_LAYOUTS = {layout.name.lower(): layout for layout in WeightLayout}
_RESHAPES = frozenset({OpType.RESHAPE, OpType.FLATTEN, OpType.SQUEEZE, OpType.UNSQUEEZE})
_ACTIVATIONS = {"none": Activation.NONE, "relu": Activation.RELU, "relu6": Activation.RELU6}
_COORD = {"half_pixel": CoordMode.HALF_PIXEL, "asymmetric": CoordMode.ASYMMETRIC,
          "align_corners": CoordMode.ALIGN_CORNERS, "pytorch_half_pixel": CoordMode.PYTORCH_HALF_PIXEL}


def _check_stored_order_input(op: Operation) -> None:
    """An "nk_hwc" fully_connected reads its flattened map in (h, w, c) order: every reshape up to
    the rank-4 map must copy the stored bytes (`tgr.stored_order`, set by layout-nhwc)."""
    source = op.operands[0]
    while isinstance(source.owner, FlattenOp | ReshapeOp) and len(_shape(source)) != 4:
        if STORED_ORDER_ATTR not in source.owner.attributes:
            raise _fail(op, f'weight_layout "{NK_HWC}" reads a flatten that is not {STORED_ORDER_ATTR}')
        source = source.owner.input


_INDEX_FIELDS = frozenset({"op_type", "name", "inputs", "outputs", "weight", "bias", "table"})
_OP_FIELDS = frozenset(f.name for f in fields(Op)) - _INDEX_FIELDS  # what runtime_fields() may set


def _runtime_fields(op: Operation) -> dict[str, object]:
    """The record fields an op sets itself with a `runtime_fields()` method: how an extension
    op (docs/extending.md) passes its parameters (`params`, `alpha`, ...) to its kernel."""
    method = getattr(op, "runtime_fields", None)
    if method is None:
        return {}
    own = dict(method())
    unknown = sorted(set(own) - _OP_FIELDS)
    if unknown:
        raise _fail(op, f"runtime_fields() sets '{unknown[0]}', which is not a tigris_op_t field it may set")
    return own


class _Builder:
    def __init__(self, module: ModuleOp, budget: int | None) -> None:
        self.module = module
        self.func = main_func(module)
        self.graph = build_plan_graph(module)
        self.budget = budget
        self.tensors: list[Tensor] = []
        self.quant: list[QuantParam] = []
        self.quant_ids: dict[QuantParam, int] = {}
        self.tables: list[bytes] = []
        self.weights: list[Weight] = []
        self.ids: dict[SSAValue, int] = {}

    # -- tensors --------------------------------------------------------------------
    def _quant_index(self, element: Attribute, shape: tuple[int, ...], op: Operation) -> int | None:
        if not isinstance(element, QuantType):
            return None
        axis = element.axis.data
        qp = QuantParam(tuple(element.scale_values), tuple(element.zero_point_values), axis)
        if axis >= 0 and shape[axis] != len(qp.scales):
            raise _fail(op, f"per-axis quantization along {axis} has {len(qp.scales)} scales for shape {shape}")
        if qp not in self.quant_ids:
            self.quant_ids[qp] = len(self.quant)
            self.quant.append(qp)
        return self.quant_ids[qp]

    def _activation(self, value: SSAValue, name: str, owner: Operation, perm: tuple[int, ...] | None) -> int:
        assert isinstance(value.type, TensorType)
        shape = _shape(value)
        element = value.type.element_type
        index = len(self.tensors)
        self.tensors.append(
            Tensor(name, _dtype(element, owner), shape, self._quant_index(element, shape, owner), perm=perm)
        )
        self.ids[value] = index
        return index

    def _weight_layout(self, weight: WeightOp) -> WeightLayout:
        layouts = set()
        for use in weight.output.uses:
            user = use.operation
            layout = _str(user, "weight_layout")
            if layout is not None and use.index == 1:
                if layout not in _LAYOUTS:
                    raise _fail(user, f"weight_layout '{layout}' is not a .tgrs layout")
                layouts.add(_LAYOUTS[layout])
            else:
                layouts.add(WeightLayout.PLAIN)
        if len(layouts) > 1:
            raise _fail(weight, f"used in several layouts ({', '.join(sorted(x.name for x in layouts))})")
        return layouts.pop() if layouts else WeightLayout.PLAIN

    def _constant(self, weight: WeightOp) -> int:
        value = weight.output
        assert isinstance(value.type, TensorType)
        shape = _shape(value)
        element = value.type.element_type
        block_attr = weight.attributes.get("tgr.block")
        block = block_attr.value.data if isinstance(block_attr, IntegerAttr) else None
        data = weight.array().tobytes(order="C")  # same bytes group-weights measured
        if not data:
            raise _fail(weight, "an empty constant cannot be stored")
        self.weights.append(Weight(data, self._weight_layout(weight), block))
        index = len(self.tensors)
        self.tensors.append(
            Tensor(_name(weight), _dtype(element, weight), shape, self._quant_index(element, shape, weight),
                   weight=len(self.weights) - 1)
        )
        self.ids[value] = index
        return index

    def build_tensors(self) -> tuple[list[int], list[int]]:
        res_attrs = self.func.res_attrs.data if self.func.res_attrs else ()
        args = self.func.body.block.args
        arg_attrs = self.func.arg_attrs.data if self.func.arg_attrs else [None] * len(args)
        ret = self.func.body.block.last_op
        out_perm: dict[SSAValue, tuple[int, ...]] = {}
        outputs_values = list(ret.operands) if ret is not None else []
        for value, attrs in zip(outputs_values, res_attrs):
            if (perm := recorded_perm(attrs, OUTPUT_PERM)) is not None:
                out_perm[value] = tuple(perm)
        for t, arg, attrs in zip(self.graph.tensors, args, arg_attrs):
            perm = recorded_perm(attrs, INPUT_PERM)
            in_perm = tuple(perm) if perm is not None else None
            if arg in outputs_values and out_perm.get(arg) != in_perm:
                raise _fail(self.func, f"input '{t.name}' is also an output, in another layout (one perm per tensor)")
            self._activation(arg, t.name, self.func, in_perm if in_perm is not None else out_perm.get(arg))
        for step in self.graph.steps:
            assert step.op is not None
            for t, r in zip(step.outputs, step.op.results, strict=True):
                self._activation(r, self.graph.tensors[t].name, step.op, out_perm.get(r))
                assert self.ids[r] == t, "tensor numbering differs from the planner's"
        for op in self.func.body.block.ops:
            if isinstance(op, WeightOp):
                self._constant(op)
        inputs = [self.ids[a] for a in self.func.body.block.args]
        outputs = []
        for value in outputs_values:
            if value not in self.ids:
                raise _fail(ret, "returns a value that is not a tensor of the plan")
            if isinstance(value.owner, WeightOp):
                raise _fail(ret, "a constant model output cannot be expressed")
            outputs.append(self.ids[value])
        return inputs, outputs

    # -- ops ------------------------------------------------------------------------
    def _zp(self, value: SSAValue) -> int:
        element = value.type.element_type if isinstance(value.type, TensorType) else None
        if isinstance(element, QuantType) and element.axis.data < 0:
            return int(element.zero_point_values[0])
        return 0

    def build_op(self, op: Operation) -> Op:
        trait = op.get_trait(RuntimeOp)
        if trait is None:
            raise _fail(op, "has no RuntimeOp trait: no runtime op type")
        try:
            op_type = OpType(trait.op_type)
        except ValueError:
            raise _fail(op, f"runtime op type {trait.op_type} is not a .tgrs op type") from None
        f: dict[str, object] = {}
        inputs = tuple(self.ids[v] for v in op.operands)
        outputs = tuple(self.ids[r] for r in op.results)
        # weight / bias roles
        for role in ("weight", "bias"):
            value = getattr(op, role, None)
            if isinstance(value, SSAValue) and value in self.ids and isinstance(value.owner, WeightOp):
                f[role] = self.ids[value]
        act = _str(op, "fused_activation")
        if act is not None:
            f["activation"] = _ACTIVATIONS[act]
        in_shape = _shape(op.operands[0]) if op.operands else ()
        rank = len(in_shape)
        # window
        strides, dilations, pads = _ints(op, "strides"), _ints(op, "dilations"), _ints(op, "pads")
        kernel = _ints(op, "kernel_shape")
        if kernel is None and "weight" in f:
            wshape = self.tensors[f["weight"]].shape  # type: ignore[index]
            layout = _str(op, "weight_layout")
            kernel = {"ohwi": list(wshape[1:3]), "hwc": list(wshape[0:2]), "oki": list(wshape[1:2])}.get(
                layout or "", list(wshape[2:]) if len(wshape) > 2 else None)
        if op_type in (OpType.CONV, OpType.DEPTHWISE, OpType.CONV1D, OpType.CONV_TRANSPOSE,
                       OpType.MAX_POOL, OpType.AVG_POOL):
            spatial = max(1, rank - 2)
            kernel = kernel or [1] * spatial
            strides = strides or [1] * spatial
            dilations = dilations or [1] * spatial
            pads = pads or [0] * (2 * spatial)
            if spatial > 2:
                raise _fail(op, f"{spatial} spatial dims: the format has H and W only")
            f.update(kernel_h=kernel[0], stride_h=strides[0], dilation_h=dilations[0],
                     pad_top=pads[0], pad_bottom=pads[spatial])
            if spatial == 2:
                f.update(kernel_w=kernel[1], stride_w=strides[1], dilation_w=dilations[1],
                         pad_left=pads[1], pad_right=pads[3])
            if any(p < 0 for p in pads):
                raise _fail(op, f"negative pads {pads}")
        if op_type == OpType.DEPTHWISE:
            f["group"] = _shape(op.results[0])[1] // max(1, in_shape[1])
        elif op_type in (OpType.CONV, OpType.CONV1D, OpType.CONV_TRANSPOSE):
            f["group"] = _int(op, "group", 1)
        if op_type == OpType.CONV_TRANSPOSE:
            f["params"] = tuple(_ints(op, "output_padding") or ())
        flags = OpFlag(0)
        if _int(op, "ceil_mode", 0):
            flags |= OpFlag.CEIL_MODE
        if _int(op, "count_include_pad", 0):
            flags |= OpFlag.COUNT_INCLUDE_PAD
        if op_type == OpType.REDUCE_MEAN and _int(op, "keepdims", 1):
            flags |= OpFlag.KEEPDIMS
        if op_type in _RESHAPES and STORED_ORDER_ATTR in op.attributes:
            flags |= OpFlag.STORED_ORDER
        if op_type == OpType.FULLY_CONN and _str(op, "weight_layout") == NK_HWC:
            _check_stored_order_input(op)
        f["flags"] = flags
        # per-type parameters
        if op_type == OpType.CONCAT:
            out_rank = len(_shape(op.results[0]))
            axis = _int(op, "axis", 0)
            f["axis"] = axis % out_rank if _str(op, "layout") == "nhwc" else _runtime_axis(axis, out_rank)
        elif op_type == OpType.SOFTMAX:
            f["axis"] = _runtime_axis(_int(op, "axis", -1), rank)
        elif op_type == OpType.FLATTEN:
            f["axis"] = _int(op, "axis", 1)
        elif op_type == OpType.CLIP:
            f["clip_min"] = _float(op, "min", -math.inf)
            f["clip_max"] = _float(op, "max", math.inf)
        elif op_type == OpType.LEAKY_RELU:
            f["alpha"] = _float(op, "alpha", 0.01)
        elif op_type in (OpType.BATCH_NORM, OpType.INST_NORM):
            f["epsilon"] = _float(op, "epsilon", 1e-5)
        elif op_type == OpType.PAD:
            p = _ints(op, "pads") or [0] * (2 * rank)
            f["params"] = (*_to_runtime(p[:rank], rank), *_to_runtime(p[rank:], rank))
            mode = _str(op, "mode") or "constant"
            if mode.upper() not in PadMode.__members__:
                raise _fail(op, f"pad mode '{mode}'")
            f["mode"] = PadMode[mode.upper()]
            f["pad_value"] = _float(op, "value", 0.0)
        elif op_type == OpType.RESIZE:
            scales = _ints(op, "scales")
            if scales is None:
                raise _fail(op, "needs integer scales (extract-resize-scales)")
            f["params"] = tuple(_to_runtime(scales, rank))
            mode = _str(op, "mode") or "nearest"
            if mode.upper() not in ResizeMode.__members__:
                raise _fail(op, f"resize mode '{mode}'")
            f["mode"] = ResizeMode[mode.upper()]
            coord = _str(op, "coordinate_transformation_mode") or "half_pixel"
            if coord not in _COORD:
                raise _fail(op, f"coordinate_transformation_mode '{coord}'")
            f["coord_mode"] = _COORD[coord]
        elif op_type == OpType.RESHAPE:
            f["params"] = _shape(op.results[0])
        elif op_type in (OpType.SQUEEZE, OpType.UNSQUEEZE):
            f["params"] = tuple(_ints(op, "axes") or ())
        elif op_type == OpType.TRANSPOSE:
            perm = _ints(op, "perm") or list(reversed(range(rank)))
            out_rank = len(_shape(op.results[0]))
            l_in, l_out = _stored_perm(rank), _stored_perm(out_rank)
            inv_in = [l_in.index(i) for i in range(rank)]
            f["params"] = tuple(inv_in[perm[l_out[i]]] for i in range(out_rank))
        elif op_type == OpType.REDUCE_MEAN:
            axes = _ints(op, "axes") or []  # none: reduces nothing, as the verifier and interpreter read it
            f["params"] = tuple(sorted(_runtime_axis(a, rank) for a in axes))
        # int8 parameters (compute-quant-scales)
        mults, shifts = _attr_ints(op, "tgr.multipliers"), _attr_ints(op, "tgr.shifts")
        if (mults is None) != (shifts is None) or (mults is not None and len(mults) != len(shifts or ())):
            raise _fail(op, "tgr.multipliers and tgr.shifts differ")
        if mults is not None:
            f["multipliers"], f["shifts"] = tuple(mults), tuple(shifts or ())
        add = _attr_ints(op, "tgr.add_params")
        if add is not None:
            if len(add) != 7:
                raise _fail(op, f"tgr.add_params has {len(add)} values, not 7")
            f.update(left_shift=add[0], input_multiplier=add[1], input_shift=add[2], input2_multiplier=add[3],
                     input2_shift=add[4], output_multiplier=add[5], output_shift=add[6])
        act_range = _attr_ints(op, "tgr.act_range")
        if act_range is not None:
            f["act_min"], f["act_max"] = act_range
        table = op.attributes.get("tgr.table")
        if isinstance(table, DenseArrayBase):
            values = [int(v) for v in table.get_values()]
            if len(values) != 256:
                raise _fail(op, f"tgr.table has {len(values)} entries, not 256")
            f["table"] = len(self.tables)
            self.tables.append(bytes(v & 0xFF for v in values))
        pad_q = op.attributes.get("tgr.pad_value")
        if isinstance(pad_q, IntegerAttr):
            f["pad_value_q"] = pad_q.value.data
        if op.operands and op.results:
            f["input_zp"] = self._zp(op.operands[0])
            f["output_zp"] = self._zp(op.results[0])
            if len(op.operands) > 1 and "weight" not in f:
                f["input2_zp"] = self._zp(op.operands[1])
        f.update(_runtime_fields(op))
        return Op(op_type, _name(op), inputs, outputs, **f)  # type: ignore[arg-type]

    # -- plan -----------------------------------------------------------------------
    def build_stages(self) -> tuple[list[Stage], list[TilePlan]]:
        stages_attr = self.func.attributes.get("tgr.stages")
        if not isinstance(stages_attr, ArrayAttr):
            raise FromIrError("@main has no tgr.stages: run tigris-compile (or tigris-plan) first")
        blocks_attr = self.func.attributes.get("tgr.weight_blocks")
        block_of_stage: dict[int, int] = {}
        if isinstance(blocks_attr, ArrayAttr):
            for b, entry in enumerate(blocks_attr.data):
                assert isinstance(entry, DictionaryAttr)
                block_of_stage[entry.data["stage"].value.data] = b  # type: ignore[union-attr]
        peaks = scheduled_peaks(self.func, self.graph)
        self._check_reserve(peaks)
        stages: list[Stage] = []
        tiles: list[TilePlan] = []
        chain_tile: dict[int, int] = {}
        for attr, peak in zip(stages_attr.data, peaks, strict=True):
            assert isinstance(attr, StageAttr)
            tile_index = None
            if isinstance(attr.tile, TilePlanAttr):
                tp = attr.tile
                chain = tp.chain.data
                if chain >= 0 and chain in chain_tile:
                    tile_index = chain_tile[chain]
                else:
                    tile_index = len(tiles)
                    tiles.append(TilePlan(tp.tile_h.data, tp.num_tiles.data, tp.halo.data, tp.out_h.data, peak, chain))
                    if chain >= 0:
                        chain_tile[chain] = tile_index
            stages.append(Stage(
                tuple(range(attr.first_step.data, attr.last_step.data + 1)),
                tuple(int(v) for v in attr.inputs.get_values()),
                tuple(int(v) for v in attr.outputs.get_values()),
                attr.peak.data, tile_index, block_of_stage.get(attr.index.data),
            ))
        return stages, tiles

    def _check_reserve(self, peaks: list[int]) -> None:
        """fast_reserved is taken from every stage's arena: with the budget known (the argument
        or tigris-compile's `tgr.budget`), refuse a plan where it and a stage's peak overflow it."""
        budget = self.budget
        if budget is None:
            attr = self.func.attributes.get("tgr.budget")
            budget = attr.value.data if isinstance(attr, IntegerAttr) else None
        reserved = fast_reserved(self.module)
        if budget is None or not reserved:
            return
        align = plan_align(self.func)
        for index, peak in enumerate(peaks):
            if align_up(reserved, align) + peak > budget:
                raise FromIrError(
                    f"stage {index}: fast_reserved {reserved} (aligned to {align}) + its peak {peak} "
                    f"exceed the budget {budget}"
                )


def plan_file_from_module(module: ModuleOp, budget: int | None = None, *, xip: bool = False) -> PlanFile:
    """The `PlanFile` of a module after `tigris-compile` (raises `FromIrError`). `budget` is the
    arena the plan is for (default: `tgr.budget`): the LZ4 weight reserve must fit beside every stage."""
    b = _Builder(module, budget)
    inputs, outputs = b.build_tensors()
    ops = []
    for step in b.graph.steps:
        assert step.op is not None
        ops.append(b.build_op(step.op))
    stages, tiles = b.build_stages()
    blocks_attr = b.func.attributes.get("tgr.weight_blocks")
    blocks = [WeightBlock() for _ in blocks_attr.data] if isinstance(blocks_attr, ArrayAttr) else []
    flags = FileFlag(0)
    if xip:
        flags |= FileFlag.XIP
    if any(t.quant is not None and t.weight is None for t in b.tensors):
        flags |= FileFlag.QUANTIZED
    name_attr = b.func.attributes.get("tgr.name")
    name = name_attr.data if isinstance(name_attr, StringAttr) else ""
    return PlanFile(name, b.tensors, ops, stages, tuple(inputs), tuple(outputs), tiles, b.weights, blocks,
                    b.quant, b.tables, flags)


def fast_reserved(module: ModuleOp) -> int:
    attr = main_func(module).attributes.get("tgr.fast_reserved")
    return attr.value.data if isinstance(attr, IntegerAttr) else 0
