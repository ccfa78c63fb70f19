"""Records to model objects, checking every field: ops, tile plans, stages.

Besides ranges, the checks the runtime relies on without re-checking: an op writes no
constant, names its weight/bias among its inputs, has sane windows and requantization scales;
every op runs in exactly one stage; with LZ4, a stage that reads a block weight decompresses that
block (only one block is in fast_reserved at a time).
"""

from __future__ import annotations

from tigris.emit.tgrs.enums import WINDOW_OPS, CoordMode, GeluMode, OpType, PadMode, ResizeMode
from tigris.emit.tgrs.model import Op, Stage, Tensor, TilePlan, Weight
from tigris.emit.tgrs.pools import Pools, bad, float32s, positive_scale
from tigris.emit.tgrs.records import OP, STAGE, TILE_PLAN

_CONV_OPS = frozenset({OpType.CONV, OpType.DEPTHWISE, OpType.CONV1D, OpType.CONV_TRANSPOSE})


def _check_modes(op: Op, what: str) -> None:
    """`mode`/`coord_mode` mean something for resize, pad and gelu only; elsewhere they are 0."""
    if op.op_type == OpType.RESIZE:
        legal = (ResizeMode, CoordMode)
    elif op.op_type == OpType.PAD:
        legal = (PadMode, None)
    elif op.op_type == OpType.GELU:
        legal = (GeluMode, None)
    else:
        legal = (None, None)
    for name, enum in zip(("mode", "coord_mode"), legal):
        value = getattr(op, name)
        if (enum is None and value != 0) or (enum is not None and value not in enum._value2member_map_):
            raise bad(f"{what} {name}", f"{value} is not valid for {op.op_type.name}")


def _check_op(op: Op, what: str, tensors: list[Tensor], num_tables: int) -> None:
    if op.op_type == OpType.UNKNOWN:
        raise bad(f"{what} op_type", "UNKNOWN (255) is not a runtime op")
    if not op.inputs or not op.outputs:
        raise bad(f"{what} num_inputs", "an op has at least one input and one output")
    for i, t in enumerate(op.outputs):
        if tensors[t].weight is not None:
            raise bad(f"{what} outputs[{i}]", f"tensor {t} is a constant")
    for role in ("weight", "bias"):
        t = getattr(op, role)
        if t is None:
            continue
        if t >= len(tensors):
            raise bad(f"{what} {role}", f"index {t} >= num_tensors {len(tensors)}")
        if tensors[t].weight is None or t not in op.inputs:
            raise bad(f"{what} {role}", f"tensor {t} is not a constant among the op's inputs")
    if op.table is not None and op.table >= num_tables:
        raise bad(f"{what} table", f"index {op.table} >= num_tables {num_tables}")
    if op.op_type in WINDOW_OPS:
        for name in ("kernel_h", "kernel_w", "stride_h", "stride_w", "dilation_h", "dilation_w"):
            if getattr(op, name) < 1:
                raise bad(f"{what} {name}", f"must be >= 1 for {op.op_type.name}")
    if op.op_type in _CONV_OPS and op.group < 1:
        raise bad(f"{what} group", "must be >= 1")
    _check_modes(op, what)
    if op.act_min > op.act_max:
        raise bad(f"{what} act_min", f"{op.act_min} > act_max {op.act_max}")
    for c, scale in enumerate(op.requant_scales):
        if not positive_scale(scale):
            raise bad(f"{what} scales", f"entry {c}: {scale} is not a positive finite float32")


def decode_ops(data: bytes, pools: Pools, tensors: list[Tensor], num_tables: int) -> list[Op]:
    out: list[Op] = []
    n = len(tensors)
    for i, rec in enumerate(OP.unpack_all(data)):
        what = f"op {i}"
        OP.check(rec, what)
        kw = OP.model_kwargs(rec, Op, frozenset({"name", "inputs", "outputs", "params"}))
        name = pools.string(int(rec["name"]), f"{what} name")
        what = f"op {i} ({name})"
        inputs = pools.indices(int(rec["inputs"]), int(rec["num_inputs"]), f"{what} inputs", n, "num_tensors")
        outputs = pools.indices(
            int(rec["outputs"]), int(rec["num_outputs"]), f"{what} outputs", n, "num_tensors"
        )
        params = pools.shapes(int(rec["params"]), int(rec["num_params"]), f"{what} params")
        m = int(rec["num_scales"])
        words = pools.quants(int(rec["scales"]), m, f"{what} scales")
        op = Op(
            name=name,
            inputs=inputs,
            outputs=outputs,
            params=params,
            requant_scales=float32s(words),
            **kw,
        )  # type: ignore[arg-type]
        _check_op(op, what, tensors, num_tables)
        out.append(op)
    return out


def decode_tile_plans(data: bytes) -> list[TilePlan]:
    out: list[TilePlan] = []
    records = TILE_PLAN.unpack_all(data)
    for i, rec in enumerate(records):
        what = f"tile plan {i}"
        t = TilePlan(**TILE_PLAN.model_kwargs(rec, TilePlan))  # type: ignore[arg-type]
        if t.tile_h < 1 or t.num_tiles < 1:
            raise bad(f"{what} tile_h", f"tile_h {t.tile_h} and num_tiles {t.num_tiles} must be >= 1")
        if not (t.num_tiles - 1) * t.tile_h < t.out_h <= t.num_tiles * t.tile_h:
            raise bad(
                f"{what} out_h", f"{t.num_tiles} tiles of {t.tile_h} rows do not cover exactly {t.out_h} rows"
            )
        if not -1 <= t.chain < len(records):
            raise bad(
                f"{what} chain", f"{t.chain} is neither -1 nor a chain id < num_tile_plans {len(records)}"
            )
        out.append(t)
    return out


def decode_stages(
    data: bytes, pools: Pools, ops: list[Op], tensors: list[Tensor], weights: list[Weight],
    num_tile_plans: int, num_blocks: int, staged: bool,
) -> list[Stage]:  # fmt: skip
    """`staged`: blocks are LZ4, so a block weight is only readable while its block is staged."""
    out: list[Stage] = []
    stage_of: dict[int, int] = {}
    for i, rec in enumerate(STAGE.unpack_all(data)):
        what = f"stage {i}"
        STAGE.check(rec, what)
        kw = STAGE.model_kwargs(rec, Stage, frozenset({"ops", "inputs", "outputs"}))
        stage_ops = pools.indices(int(rec["ops"]), int(rec["num_ops"]), f"{what} ops", len(ops), "num_ops")
        lists = {}
        for key in ("inputs", "outputs"):
            lists[key] = pools.indices(
                int(rec[key]), int(rec[f"num_{key}"]), f"{what} {key}", len(tensors), "num_tensors"
            )
            for j, t in enumerate(lists[key]):
                if tensors[t].weight is not None:
                    raise bad(
                        f"{what} {key}[{j}]", f"tensor {t} is a constant: it is never loaded or spilled"
                    )
        stage = Stage(
            stage_ops,
            peak=int(rec["peak"]),
            tile_plan=kw["tile_plan"],
            weight_block=kw["weight_block"],
            **lists,
        )  # type: ignore[arg-type]
        if stage.tile_plan is not None and stage.tile_plan >= num_tile_plans:
            raise bad(f"{what} tile_plan", f"index {stage.tile_plan} >= num_tile_plans {num_tile_plans}")
        if stage.weight_block is not None and stage.weight_block >= num_blocks:
            raise bad(f"{what} weight_block", f"index {stage.weight_block} >= num_weight_blocks {num_blocks}")
        for o in stage_ops:
            if o in stage_of:
                raise bad(f"{what} ops", f"op {o} already runs in stage {stage_of[o]}")
            stage_of[o] = i
            for t in ops[o].inputs:
                w = tensors[t].weight
                block = weights[w].block if w is not None else None
                if staged and block is not None and block != stage.weight_block:
                    raise bad(
                        f"{what} weight_block",
                        f"op {o} reads tensor {t} from LZ4 weight block {block}, the stage stages {stage.weight_block}",
                    )
        out.append(stage)
    for o in range(len(ops)):
        if o not in stage_of:
            raise bad(f"op {o} ({ops[o].name})", "runs in no stage")
    return out
