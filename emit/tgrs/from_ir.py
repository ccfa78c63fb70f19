"""`plan_file_from_module`: a module after `tigris-compile` as a `PlanFile` for `write_plan`.

Tensors are numbered as the planner numbers them (`build_plan_graph`: model inputs, then op
results in program order), so `#tgr.stage` inputs/outputs are used as they are; constants
follow, in IR order. Ops are the planner's steps, each written by `op_record`. The plan is
read as the passes stored it (`stored_plan`): nothing is planned or measured again here.
Anything the format cannot express raises `FromIrError` naming the op.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    Float16Type, Float32Type, IntegerType, ModuleOp, Signedness, StringAttr, TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tigris.dialects.tgr.attributes import QuantType, StageAttr
from tigris.dialects.tgr.plan_attrs import MissingPlanError, StoredPlan, stored_plan, weight_block
from tigris.dialects.tgr.weight import WeightOp
from tigris.emit.tgrs.enums import DType, FileFlag, TileFlag, WeightLayout
from tigris.emit.tgrs.model import PlanFile, QuantParam, Stage, Tensor, TilePlan, Weight, WeightBlock
from tigris.emit.tgrs.op_records import FromIrError, fail, op_name, op_record
from tigris.transforms.normalize.model_layout import recorded_perms
from tigris.transforms.plan.graph import build_plan_graph, main_func
from tigris.transforms.plan.memory import align_up
from tigris.transforms.plan.passes import plan_align

__all__ = ["FromIrError", "plan_file_from_module"]

_DTYPES = {(8, False): DType.I8, (8, True): DType.U8, (16, False): DType.I16, (32, False): DType.I32,
           (64, False): DType.I64, (1, False): DType.BOOL, (1, True): DType.BOOL}  # fmt: skip
_LAYOUTS = {layout.name.lower(): layout for layout in WeightLayout}
"""The dialect's `weight_layout` names are the format's layout names, lower-case."""


def _dtype(element: Attribute, op: Operation) -> DType:
    if isinstance(element, QuantType):
        element = element.storage
    if isinstance(element, Float32Type):
        return DType.F32
    if isinstance(element, Float16Type):
        return DType.F16
    if isinstance(element, IntegerType):
        key = (element.width.data, element.signedness.data == Signedness.UNSIGNED)
        if key in _DTYPES:
            return _DTYPES[key]
    raise fail(op, f"element type {element} has no .tgrs dtype")


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


class _Builder:
    def __init__(self, module: ModuleOp) -> None:
        self.func = main_func(module)
        self.graph = build_plan_graph(module)
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
            raise fail(op, f"per-axis quantization along {axis} has {len(qp.scales)} scales for shape {shape}")
        if qp not in self.quant_ids:
            self.quant_ids[qp] = len(self.quant)
            self.quant.append(qp)
        return self.quant_ids[qp]

    def _tensor(self, value: SSAValue, name: str, owner: Operation, **extra: object) -> int:
        """Record `value` as the next tensor (an activation, or a constant with `weight=`)."""
        assert isinstance(value.type, TensorType)
        shape, element = _shape(value), value.type.element_type
        index = len(self.tensors)
        quant = self._quant_index(element, shape, owner)
        self.tensors.append(Tensor(name, _dtype(element, owner), shape, quant, **extra))  # type: ignore[arg-type]
        self.ids[value] = index
        return index

    def _weight_layout(self, weight: WeightOp) -> WeightLayout:
        layouts = set()
        for use in weight.output.uses:
            user = use.operation
            layout = user.properties.get("weight_layout")
            if isinstance(layout, StringAttr) and use.index == 1:
                if layout.data not in _LAYOUTS:
                    raise fail(user, f"weight_layout '{layout.data}' is not a .tgrs layout")
                layouts.add(_LAYOUTS[layout.data])
            else:
                layouts.add(WeightLayout.PLAIN)
        if len(layouts) > 1:
            raise fail(weight, f"used in several layouts ({', '.join(sorted(x.name for x in layouts))})")
        return layouts.pop() if layouts else WeightLayout.PLAIN

    def _constant(self, weight: WeightOp) -> None:
        data = weight.array().tobytes(order="C")  # same bytes group-weights measured
        if not data:
            raise fail(weight, "an empty constant cannot be stored")
        self.weights.append(Weight(data, self._weight_layout(weight), weight_block(weight)))
        self._tensor(weight.output, op_name(weight), weight, weight=len(self.weights) - 1)

    def _boundary_perms(self) -> dict[SSAValue, tuple[int, ...]]:
        """The `perm` of each model input and output that has one: the layout the ONNX model
        declares it in (`tgr.input_perm` / `tgr.output_perm`, model_layout.py)."""
        in_perms, out_perms = recorded_perms(self.func)
        returned = self._returned()
        perms = {value: tuple(perm) for value, perm in zip(returned, out_perms) if perm is not None}
        for arg, perm in zip(self.func.body.block.args, in_perms):
            if arg in returned and perms.get(arg) != (tuple(perm) if perm is not None else None):
                raise fail(self.func, f"input {arg.index} is also an output, in another layout (one perm per tensor)")
            if perm is not None:
                perms[arg] = tuple(perm)
        return perms

    def _returned(self) -> list[SSAValue]:
        ret = self.func.body.block.last_op
        return list(ret.operands) if ret is not None else []

    def build_tensors(self) -> tuple[list[int], list[int]]:
        """Every tensor, numbered as the planner does; returns the model inputs and outputs."""
        perms = self._boundary_perms()
        for t, arg in zip(self.graph.tensors, self.func.body.block.args):
            self._tensor(arg, t.name, self.func, perm=perms.get(arg))
        for step in self.graph.steps:
            assert step.op is not None
            for t, r in zip(step.outputs, step.op.results, strict=True):
                self._tensor(r, self.graph.tensors[t].name, step.op, perm=perms.get(r))
                assert self.ids[r] == t, "tensor numbering differs from the planner's"
        for op in self.func.body.block.ops:
            if isinstance(op, WeightOp):
                self._constant(op)
        inputs = [self.ids[a] for a in self.func.body.block.args]
        ret = self.func.body.block.last_op
        outputs = []
        for value in self._returned():
            if value not in self.ids:
                raise fail(ret, "returns a value that is not a tensor of the plan")  # type: ignore[arg-type]
            if isinstance(value.owner, WeightOp):
                raise fail(ret, "a constant model output cannot be expressed")  # type: ignore[arg-type]
            outputs.append(self.ids[value])
        return inputs, outputs

    # -- plan -----------------------------------------------------------------------
    def build_stages(self, stored: StoredPlan) -> tuple[list[Stage], list[TilePlan]]:
        """The stored stages; a chain's stages share one tile plan."""
        block_of_stage = stored.block_of_stage()
        stages: list[Stage] = []
        tiles: list[TilePlan] = []
        chain_tile: dict[int, int] = {}
        for attr in stored.stages:
            stages.append(Stage(
                tuple(range(attr.first_step.data, attr.last_step.data + 1)), attr.input_tensors,
                attr.output_tensors, attr.peak.data, self._tile_index(attr, tiles, chain_tile),
                block_of_stage.get(attr.index.data),
            ))  # fmt: skip
        return stages, tiles

    @staticmethod
    def _tile_index(attr: StageAttr, tiles: list[TilePlan], chain_tile: dict[int, int]) -> int | None:
        tp = attr.tile_plan
        if tp is None:
            return None
        chain = tp.chain.data
        if chain >= 0 and chain in chain_tile:
            return chain_tile[chain]
        reduce_op = attr.last_step.data if tp.reduces else None  # op records are numbered by step
        cache = tp.cache.data
        tiles.append(TilePlan(tp.tile_h.data, tp.num_tiles.data, tp.halo.data, tp.out_h.data, tp.peak.data, chain,
                              reduce_op, tp.acc.data or cache, tp.tile_w.data, tp.num_tiles_w.data, tp.halo_w.data,
                              tp.out_w.data, tp.tile_c.data, tp.num_tiles_c.data,
                              TileFlag.ROW_CACHE if cache else TileFlag(0)))  # fmt: skip
        if chain >= 0:
            chain_tile[chain] = len(tiles) - 1
        return len(tiles) - 1

    def check_reserve(self, stored: StoredPlan, budget: int | None) -> None:
        """fast_reserved is taken from every stage's arena: with the budget known (the argument
        or tigris-compile's `tgr.budget`), refuse a plan where it and a stage's peak overflow it."""
        budget = stored.budget if budget is None else budget
        if budget is None or not stored.fast_reserved:
            return
        align = plan_align(self.func)
        for index, peak in enumerate(stored.scheduled_peaks):
            if align_up(stored.fast_reserved, align) + peak > budget:
                raise FromIrError(
                    f"stage {index}: fast_reserved {stored.fast_reserved} (aligned to {align}) + its peak {peak} "
                    f"exceed the budget {budget}"
                )


def plan_file_from_module(module: ModuleOp, budget: int | None = None, *, xip: bool = False) -> PlanFile:
    """The `PlanFile` of a module after `tigris-compile` (raises `FromIrError`). `budget` is the
    arena the plan is for (default: `tgr.budget`): the LZ4 weight reserve must fit beside every stage."""
    b = _Builder(module)
    inputs, outputs = b.build_tensors()
    ops = []
    for step in b.graph.steps:
        assert step.op is not None
        ops.append(op_record(step.op, b.ids, b.tables))
    try:
        stored = stored_plan(b.func)
    except MissingPlanError as e:
        raise FromIrError(str(e)) from None
    b.check_reserve(stored, budget)
    stages, tiles = b.build_stages(stored)
    flags = FileFlag.XIP if xip else FileFlag(0)
    if any(t.quant is not None and t.weight is None for t in b.tensors):
        flags |= FileFlag.QUANTIZED
    name_attr = b.func.attributes.get("tgr.name")
    name = name_attr.data if isinstance(name_attr, StringAttr) else ""
    return PlanFile(name, b.tensors, ops, stages, tuple(inputs), tuple(outputs), tiles, b.weights,
                    [WeightBlock() for _ in stored.weight_blocks], b.quant, b.tables, flags)
