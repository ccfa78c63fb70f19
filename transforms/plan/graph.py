"""`PlanGraph`: what the planner needs to know about `@main`, read once from the IR.

Steps are the non-weight ops in program order (weights live in flash). Every fact
about an op comes from its traits (`TileCategory`, `SpatialWindow`), never from its
name, so ops of other dialects plan the same way once they declare them.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field, replace
from functools import cached_property

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects.tgr.traits import AccumulatesRows, RowMap, SpatialWindow, TileCategory, TileKind, Window
from tigris.dialects.tgr.weight import WeightOp, numpy_dtype


@dataclass
class PlanTensor:
    index: int
    name: str
    shape: tuple[int, ...]
    nbytes: int
    producer: int  # step, or -1 for a model input
    consumers: list[int] = field(default_factory=list)
    is_output: bool = False

    @cached_property
    def height(self) -> int:
        """Rows along H (axis 2 of NCHW; L for [N, C, L]); 1 for vectors. Computed once: the
        planner asks it of every tensor of every band it sizes (a tensor's shape is fixed)."""
        return self.shape[2] if len(self.shape) >= 3 else 1

    @cached_property
    def row_bytes(self) -> int:
        return self.nbytes // self.height if self.height else self.nbytes


@dataclass
class PlanStep:
    index: int
    op: Operation | None
    name: str
    kind: TileKind
    window: Window | None
    inputs: list[int]
    outputs: list[int]
    row_map: RowMap | None = None  # pad/resize: how output rows map to input rows
    macs: int = 0
    acc_bytes: int | None = None  # ops that can reduce over tiles: their accumulator (AccumulatesRows)
    window_w: Window | None = None  # the window along W (2-D tiles)
    kind_w: TileKind = TileKind.STRUCTURAL  # the category when 2-D tiles cut W (`TileCategory.of`)

    @property
    def windows(self) -> tuple[Window | None, Window | None]:
        """The windows along H and W (`geometry.Axis` order)."""
        return (self.window, self.window_w)


@dataclass
class PlanGraph:
    steps: list[PlanStep]
    tensors: list[PlanTensor]
    memo: dict[object, object] = field(default_factory=dict, repr=False, compare=False)
    """Results of pure functions of the graph that the planner asks for again and again (a
    stage's tile extents per tile size: `bands.distinct_extents`), keyed by the function's
    arguments; the graph is never changed once built. `build_plan_graph` hands a rebuilt graph
    of an unchanged function the same memo (`_MEMOS`)."""

    @property
    def last_step(self) -> int:
        return len(self.steps) - 1

    def touched(self, first: int, last: int) -> set[int]:
        """Tensors that steps first..last read or write (what a stage can hold in the arena)."""
        found: set[int] = set()
        for step in self.steps[first : last + 1]:
            found.update(step.inputs)
            found.update(step.outputs)
        return found


def main_func(module: ModuleOp) -> FuncOp:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == "main" and not op.is_declaration:
            return op
    raise PassFailedException("planning needs a func.func @main with a body")


def tensor_bytes(type_: Attribute, what: str) -> int:
    """Bytes of a static tensor; anything else cannot be placed in an arena."""
    if not isinstance(type_, TensorType) or any(d < 0 for d in type_.get_shape()):
        raise PassFailedException(f"{what} has type {type_}; planning needs statically shaped tensors")
    return math.prod(type_.get_shape()) * numpy_dtype(type_.element_type).itemsize


def build_plan_graph(module: ModuleOp) -> PlanGraph:
    func = main_func(module)
    tensors: list[PlanTensor] = []
    ids: dict[SSAValue, int] = {}

    def add(value: SSAValue, producer: int, name: str) -> int:
        size = tensor_bytes(value.type, f"'{name}'")
        assert isinstance(value.type, TensorType)
        t = PlanTensor(len(tensors), name, tuple(value.type.get_shape()), size, producer)
        tensors.append(t)
        ids[value] = t.index
        return t.index

    for i, arg in enumerate(func.body.block.args):
        add(arg, -1, arg.name_hint or f"input{i}")
    steps: list[PlanStep] = []
    for op in func.body.block.ops:
        if isinstance(op, WeightOp):
            continue
        if isinstance(op, ReturnOp):
            for value in op.arguments:
                if value in ids:
                    tensors[ids[value]].is_output = True
            continue
        index = len(steps)
        inputs = sorted({ids[v] for v in op.operands if v in ids})
        for t in inputs:
            tensors[t].consumers.append(index)
        name_attr = op.attributes.get("tgr.name")
        name = getattr(name_attr, "data", op.name)
        outputs = [add(r, index, r.name_hint or f"{name}.out{j}") for j, r in enumerate(op.results)]
        steps.append(
            PlanStep(index, op, name, TileCategory.of(op), SpatialWindow.of(op), inputs, outputs, RowMap.of(op),
                     _macs(op), AccumulatesRows.of(op), SpatialWindow.of(op, axis=1), TileCategory.of(op, 1))
        )
    graph = PlanGraph(steps, tensors)
    facts = _facts(graph)
    kept = _MEMOS.get(func)
    if kept is not None and kept[0] == facts:
        graph.memo = kept[1]
    else:
        _MEMOS[func] = (facts, graph.memo)
    return graph


_MEMOS: weakref.WeakKeyDictionary[FuncOp, tuple[tuple[object, ...], dict[object, object]]] = (
    weakref.WeakKeyDictionary()
)
"""Per function, the memo of the last graph built from it and the facts it was computed from.
tigris-plan's passes each build the graph again (and tigris-compile's LZ4 reserve search plans
the same graph at the budgets the re-plan then asks for): an unchanged function gets the memo,
so no chain or tile plan is searched twice. The planner's own attributes are not facts."""

PLANNER_ATTRS = frozenset({"tgr.step", "tgr.lifetime", "tgr.stage"})
"""Attributes the planning passes write on ops: reading the graph again after them is the same graph."""


def _facts(graph: PlanGraph) -> tuple[object, ...]:
    """What a memoized planner result can depend on: every step and tensor as read, and each
    step op's name, properties, other attributes and operand types (row maps and tile kinds read
    them when asked). Holds no op, so the memo does not keep the function alive."""
    steps = []
    for step in graph.steps:
        op = step.op
        assert op is not None
        attrs = tuple((k, v) for k, v in op.attributes.items() if k not in PLANNER_ATTRS)
        steps.append((replace(step, op=None), op.name, tuple(op.properties.items()), attrs,
                      tuple(v.type for v in op.operands)))
    return (tuple(steps), tuple(replace(t) for t in graph.tensors))


def _macs(op: Operation) -> int:
    """Multiply-accumulates: for an op with a weight, weight elements per output channel times
    output elements (any weight layout: the weight holds out_channels x taps); else elements."""
    out = op.results[0].type if op.results else None
    if not isinstance(out, TensorType):
        return 0
    shape = out.get_shape()
    elements = math.prod(shape)
    weight = op.operands[1] if len(op.operands) > 1 else None
    if weight is not None and isinstance(weight.owner, WeightOp) and isinstance(weight.type, TensorType):
        channels = shape[1] if len(shape) > 1 else 1
        return elements * max(1, math.prod(weight.type.get_shape()) // max(1, channels))
    window = SpatialWindow.of(op)
    return elements * (window.kernel if window is not None else 1)
