"""Records to model objects, checking every field: ops, tile plans, stages.

Besides ranges, the checks the runtime relies on without re-checking: an op writes no
constant, names its weight/bias among its inputs, has sane windows and requantization scales;
every op runs in exactly one stage; with LZ4, a stage that reads a block weight decompresses that
block (only one block is in fast_reserved at a time); a stage run in reduction tiles ends with
its accumulating op, whose input rows the tiles cut and which writes every output of the stage;
a stage in 2-D tiles runs alone, only ops whose kernels compute windows, and writes rank-4 maps
of out_h rows and out_w columns.
"""

from __future__ import annotations

from tigris.emit.tgrs.enums import ACCUMULATING_OPS, FEATURE_BLOCK_OPS, TILEABLE_2D_OPS, WINDOW_OPS, BandGeometry, CoordMode, GeluMode, OpType, PadMode, ResizeMode
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


def _check_reduction(t: TilePlan, what: str, ops: list[Op]) -> None:
    """Reduction tiles: an accumulating op, a lone stage (no chain), an accumulator the peak
    includes; a plan without reduce_op keeps no accumulator."""
    r, acc = t.reduce_op, t.acc_bytes
    if t.tile_c == 0 and t.num_tiles_c != 1:
        raise bad(f"{what} num_tiles_c", f"{t.num_tiles_c} without tile_c: a plan without channel blocks has 1")
    if r is None:
        if t.row_cache and not 0 < acc <= t.peak:
            raise bad(f"{what} acc_bytes", f"{acc}: row caches keep 1..peak ({t.peak}) bytes of slots")
        if acc != 0 and not t.row_cache:
            raise bad(f"{what} acc_bytes", f"{acc} without reduce_op: only reduction tiles and row caches keep one")
        if t.tile_c != 0 and (t.tile_h, t.num_tiles, t.out_h, t.halo, t.chain, t.tile_w) != (1, 1, 1, 0, -1, 0):
            raise bad(f"{what} tile_c", f"{t.tile_c} without reduce_op is output-feature blocks: one row, no halo, "
                      "chain or column tiles (tile_h 1, num_tiles 1, out_h 1, halo 0, chain -1, tile_w 0)")  # fmt: skip
        return
    if r >= len(ops):
        raise bad(f"{what} reduce_op", f"index {r} >= num_ops {len(ops)}")
    if ops[r].op_type not in ACCUMULATING_OPS | FEATURE_BLOCK_OPS:
        name = OpType(ops[r].op_type).name
        raise bad(f"{what} reduce_op", f"op {r} is {name}, which cannot accumulate over tiles")
    if t.chain != -1:
        raise bad(f"{what} chain", f"{t.chain}: reduction tiles run a lone stage, chain must be -1")
    if not 0 < acc <= t.peak:
        raise bad(f"{what} acc_bytes", f"{acc}: reduction tiles keep 1..peak ({t.peak}) accumulator bytes")


def _covers(size: int, num: int, total: int) -> bool:
    """`num` tiles of `size` cover `total` exactly: every index once, no tile empty."""
    return size >= 1 and num >= 1 and (num - 1) * size < total <= num * size


def _check_cols(t: TilePlan, what: str) -> None:
    """2-D tiles (tile_w > 0): a lone stage of output tiles, the column tiles covering out_w;
    full-width plans keep the W fields at 1, 0, 0."""
    if t.tile_w == 0:
        for name, want in (("num_tiles_w", 1), ("halo_w", 0), ("out_w", 0)):
            if getattr(t, name) != want:
                raise bad(f"{what} {name}", f"{getattr(t, name)} without tile_w: full-width plans have {want}")
        return
    if t.chain != -1:
        raise bad(f"{what} chain", f"{t.chain}: 2-D tiles run a lone stage, chain must be -1")
    if t.reduce_op is not None and (t.tile_h, t.halo_w) != (1, 0):
        raise bad(f"{what} tile_h", f"{t.tile_h} (halo_w {t.halo_w}): reduction tiles cut along W are one row "
                  "tall with no column halo (tile_h 1, halo_w 0)")  # fmt: skip
    if not _covers(t.tile_w, t.num_tiles_w, t.out_w):
        raise bad(
            f"{what} out_w", f"{t.num_tiles_w} tiles of {t.tile_w} columns do not cover exactly {t.out_w} columns"
        )


def decode_tile_plans(data: bytes, ops: list[Op]) -> list[TilePlan]:
    out: list[TilePlan] = []
    records = TILE_PLAN.unpack_all(data)
    for i, rec in enumerate(records):
        what = f"tile plan {i}"
        TILE_PLAN.check(rec, what)
        t = TilePlan(**TILE_PLAN.model_kwargs(rec, TilePlan))  # type: ignore[arg-type]
        if t.tile_h < 1 or t.num_tiles < 1:
            raise bad(f"{what} tile_h", f"tile_h {t.tile_h} and num_tiles {t.num_tiles} must be >= 1")
        if not _covers(t.tile_h, t.num_tiles, t.out_h):
            raise bad(
                f"{what} out_h", f"{t.num_tiles} tiles of {t.tile_h} rows do not cover exactly {t.out_h} rows"
            )
        if not -1 <= t.chain < len(records):
            raise bad(
                f"{what} chain", f"{t.chain} is neither -1 nor a chain id < num_tile_plans {len(records)}"
            )
        _check_reduction(t, what, ops)
        _check_cols(t, what)
        if t.row_cache and (t.reduce_op is not None or t.tile_w != 0 or t.tile_c != 0):
            raise bad(f"{what} flags", "row caches run full-width output-row tiles only (no reduce_op, tile_w or tile_c)")
        out.append(t)
    return out


def _rows(tensor: Tensor) -> int:
    """Rows of a tensor as the runtime bands it (tigris_tensor_rows): H for rank >= 3, else 1."""
    return tensor.shape[2] if len(tensor.shape) >= 3 else 1


def _check_reduction_stage(
    stage: Stage, what: str, ops: list[Op], tensors: list[Tensor], tile_plans: list[TilePlan]
) -> None:
    """A stage run in reduction tiles ends with the accumulating op, whose input 0 has out_h rows
    (and, cut along W, is [N, C, out_h, out_w]: the tiles cut them; in channel blocks, the
    blocks cover its C channels), and that op writes every output of the stage."""
    k = stage.tile_plan
    assert k is not None
    t = tile_plans[k]
    r = t.reduce_op
    assert r is not None
    if not stage.ops or stage.ops[-1] != r:
        raise bad(f"{what} tile_plan", f"tile plan {k} accumulates with op {r}, not the stage's last op")
    if ops[r].op_type in FEATURE_BLOCK_OPS:
        _check_dense_reduction_stage(stage, what, ops, tensors, t)
        return
    rows = _rows(tensors[ops[r].inputs[0]])
    if rows != t.out_h:
        raise bad(f"tile plan {k} out_h", f"{t.out_h} != the {rows} rows of input 0 of op {r} ({what})")
    shape = tensors[ops[r].inputs[0]].shape
    if t.tile_w > 0 and (len(shape) != 4 or shape[3] != t.out_w):
        raise bad(f"tile plan {k} out_w", f"{t.out_w}: input 0 of op {r} has shape {list(shape)} ({what})")
    if t.tile_c > 0 and (len(shape) < 3 or not _covers(t.tile_c, t.num_tiles_c, shape[1])):
        raise bad(f"tile plan {k} num_tiles_c", f"{t.num_tiles_c} blocks of {t.tile_c} channels do not cover the "
                  f"channels of input 0 of op {r}, shape {list(shape)} ({what})")  # fmt: skip
    for j, o in enumerate(stage.outputs):
        if o not in ops[r].outputs:
            raise bad(f"{what} outputs[{j}]", f"tensor {o} is not written by op {r}, the reducing op")


def _check_dense_reduction_stage(stage: Stage, what: str, ops: list[Op], tensors: list[Tensor], t: TilePlan) -> None:
    """A dense op in reduction blocks: the stage is that one op (an output-feature block stage,
    `_check_feature_stage`), with channel blocks of its output features, and the tiles cut the K
    features of its input 0 [N, K]: out_h is K, no columns."""
    k = stage.tile_plan
    if t.tile_c == 0:
        raise bad(f"tile plan {k} tile_c", f"0: a dense op in reduction blocks runs blocks of output features ({what})")
    _check_feature_stage(stage, what, ops, tensors, t)
    shape = tensors[ops[stage.ops[0]].inputs[0]].shape
    if len(shape) != 2 or shape[1] != t.out_h or t.tile_w != 0:
        raise bad(f"tile plan {k} out_h", f"{t.out_h} (tile_w {t.tile_w}): the blocks cut the K features of input 0 "
                  f"of op {stage.ops[0]}, shape {list(shape)}, without columns ({what})")  # fmt: skip


def _check_feature_stage(stage: Stage, what: str, ops: list[Op], tensors: list[Tensor], t: TilePlan) -> None:
    """A stage in output-feature blocks: one op that runs in them (`FEATURE_BLOCK_OPS`) whose one
    output, the stage's one output, is [N, M] with the blocks covering its M features."""
    k = stage.tile_plan
    if len(stage.ops) != 1 or ops[stage.ops[0]].op_type not in FEATURE_BLOCK_OPS:
        raise bad(f"{what} ops", f"output-feature blocks (tile plan {k}) run one fully_connected op, not ops "
                  f"{list(stage.ops)}")  # fmt: skip
    op = ops[stage.ops[0]]
    if len(op.outputs) != 1 or list(stage.outputs) != list(op.outputs):
        raise bad(f"{what} outputs", f"{list(stage.outputs)}: a stage in output-feature blocks outputs its op's one "
                  f"output {list(op.outputs)}")  # fmt: skip
    shape = tensors[op.outputs[0]].shape
    if len(shape) != 2 or not _covers(t.tile_c, t.num_tiles_c, shape[1]):
        raise bad(f"tile plan {k} num_tiles_c", f"{t.num_tiles_c} blocks of {t.tile_c} features do not cover the "
                  f"output of op {stage.ops[0]}, shape {list(shape)} ({what})")  # fmt: skip


def _check_2d_stage(stage: Stage, what: str, ops: list[Op], tensors: list[Tensor], t: TilePlan) -> None:
    """A stage in 2-D tiles: ops whose kernels compute windows and that are cut along W (but the
    accumulating op of reduction tiles: it takes a window and writes whole outputs), outputs
    [N, C, out_h, out_w] (output tiles)."""
    k = stage.tile_plan
    for o in stage.ops:
        if o != t.reduce_op and ops[o].op_type not in TILEABLE_2D_OPS:
            name = OpType(ops[o].op_type).name
            raise bad(f"{what} ops", f"op {o} is {name}, which does not run on 2-D tiles (tile plan {k})")
        if o != t.reduce_op and ops[o].geometry_w == BandGeometry.NONE:
            raise bad(f"{what} ops", f"op {o} has geometry_w NONE: it is not cut along W (tile plan {k})")
    for j, o in enumerate(stage.outputs if t.reduce_op is None else ()):
        shape = tensors[o].shape
        if len(shape) != 4 or (shape[2], shape[3]) != (t.out_h, t.out_w):
            raise bad(
                f"{what} outputs[{j}]",
                f"tensor {o} has shape {list(shape)}, not [N, C, {t.out_h}, {t.out_w}] (out_h, out_w of tile plan {k})",
            )


def decode_stages(
    data: bytes, pools: Pools, ops: list[Op], tensors: list[Tensor], weights: list[Weight],
    tile_plans: list[TilePlan], num_blocks: int, staged: bool,
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
        if stage.tile_plan is not None and stage.tile_plan >= len(tile_plans):
            raise bad(f"{what} tile_plan", f"index {stage.tile_plan} >= num_tile_plans {len(tile_plans)}")
        if stage.tile_plan is not None and tile_plans[stage.tile_plan].reduce_op is not None:
            _check_reduction_stage(stage, what, ops, tensors, tile_plans)
        if stage.tile_plan is not None and tile_plans[stage.tile_plan].feature_blocks:
            _check_feature_stage(stage, what, ops, tensors, tile_plans[stage.tile_plan])
        if stage.tile_plan is not None and tile_plans[stage.tile_plan].tile_w > 0:
            _check_2d_stage(stage, what, ops, tensors, tile_plans[stage.tile_plan])
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
