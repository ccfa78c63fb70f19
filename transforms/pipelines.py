"""Named pipelines: the pass order is data, here and nowhere else.

`tigris-opt -p tigris-normalize` expands the name into its passes before xDSL
parses the pipeline, so `--print-between-passes` and `--time-passes` show every
pass; `TigrisNormalizePass` runs the same list for `xdsl-opt` and Python callers.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

NORMALIZE = (
    # the thirteen passes of spec/pipeline.md section 2, in its order; constants fold first
    # (the spec's "must run first"), before the conversion, which needs constant Gemm weights,
    # Clip bounds, Pad pads ... even when the model computes them (ConstantOfShape, Cast)
    "fold-constants",
    "convert-onnx-to-tgr",
    "fold-layout-transposes",  # ours: TensorFlow models' layout transposes; before fold-qdq crosses QDQ
    "fold-qdq",
    "fold-batchnorm",
    "decompose-silu",
    "relabel-depthwise-conv",
    "relabel-conv1d",
    "clip-to-relu6",
    "reduce-mean-to-gap",
    "fold-shape-ops",
    "fold-channel-shuffle",  # ours: a channel shuffle (reshape, transpose, reshape) -> one channel gather
    "extract-resize-scales",
    "normalize-concat-axis",
    "trim-output-transpose",
    "fuse-activations",
    "materialize-outputs",  # a copy for an output no op writes (an input, a constant, a repeat)
    "convert-plugin-ops",  # installed plugins' ops (docs/extending.md); nothing without plugins
    "check-legal",
)

PIPELINES: dict[str, tuple[str, ...]] = {"tigris-normalize": NORMALIZE}


def run_passes(names: tuple[str, ...], ctx: Context, module: ModuleOp, *, verify_each: bool = True) -> None:
    """Run the named passes in order. `verify_each` verifies the module after every pass, as
    xDSL's pass manager does: a pass that breaks the IR is caught where it happens (tests and
    `tigris-opt` keep it on). `tigris compile`/`analyze` turn it off and verify the module once
    after import and once before emission: verifying is a walk over every op, and after each
    of ~20 passes it was a third of a compile (bench/compile_time.py)."""
    from tigris.transforms import get_all_passes

    registry = get_all_passes()
    for name in names:
        registry[name]()().apply(ctx, module)
        if verify_each:
            module.verify()


@dataclass(frozen=True)
class TigrisNormalizePass(ModulePass):
    """convert-onnx-to-tgr, the thirteen normalizations (with fold-layout-transposes before
    fold-qdq), convert-plugin-ops, then check-legal."""

    name = "tigris-normalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_passes(NORMALIZE, ctx, op)


@dataclass(frozen=True)
class TigrisCompilePass(ModulePass):
    """tigris-normalize, tigris-plan{budget align}, layout-nhwc, compute-quant-scales,
    group-weights{compress budget}: a module ready for the `.tgrs` emitter. With compress=lz4 the
    plan is redone at the budget `choose_plan_budget` picks, leaving room for fast_reserved."""

    name = "tigris-compile"
    budget: int = 0
    align: int = 32
    compress: str = "none"
    max_recompute: int | float = 10.0
    """Percent of the model's MACs the planner's cuts may add in halo recompute (tigris-plan)."""
    cuts: str = "shortest"
    """How tigris-plan cuts stages: `shortest` (least slow-memory traffic, fused stages) or `greedy`
    (the spec's forward pass: one spatial op per tiled stage, chains between them)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(ctx, op)

    def run(self, ctx: Context, op: ModuleOp, *, verify_each: bool = True) -> None:
        """`apply` with the choice of `run_passes`: verify after every pass or leave it to the caller."""
        run_passes(NORMALIZE, ctx, op, verify_each=verify_each)
        self.plan_and_lower(ctx, op, verify_each=verify_each)

    def plan_and_lower(self, ctx: Context, op: ModuleOp, *, verify_each: bool = True) -> None:
        """Everything after tigris-normalize (tests reuse one normalized module across budgets);
        `verify_each` as for `run_passes`."""
        from tigris.transforms.plan.passes import TigrisPlanPass

        TigrisPlanPass(self.budget, self.align, cuts=self.cuts, max_recompute=self.max_recompute).apply(ctx, op)
        if verify_each:
            op.verify()
        self.lower(ctx, op, verify_each=verify_each)

    def lower(self, ctx: Context, op: ModuleOp, *, verify_each: bool = True) -> None:
        """Everything after tigris-plan, on a module tigris-plan annotated at this pass's budget
        and align (`tigris analyze` lowers the module it planned for its report rather than
        planning it again for the flash figure)."""
        from xdsl.dialects.builtin import IntegerAttr, i64

        from tigris.transforms.lower.compute_quant_scales import ComputeQuantScalesPass
        from tigris.transforms.lower.group_weights import GroupWeightsPass
        from tigris.transforms.lower.layout_nhwc import LayoutNhwcPass
        from tigris.transforms.lower.lz4_budget import choose_plan_budget
        from tigris.transforms.plan.graph import main_func
        from tigris.transforms.plan.passes import TigrisPlanPass

        def verify() -> None:
            if verify_each:
                op.verify()

        for pass_ in (LayoutNhwcPass(), ComputeQuantScalesPass()):
            pass_.apply(ctx, op)
            verify()
        if self.compress == "lz4" and (at := choose_plan_budget(op, self.budget, self.align)) != self.budget:
            # the weights are final: price them, then re-plan
            TigrisPlanPass(at, self.align, cuts=self.cuts, max_recompute=self.max_recompute).apply(ctx, op)
            verify()
        GroupWeightsPass(self.compress, self.budget).apply(ctx, op)  # type: ignore[arg-type]
        verify()
        main_func(op).attributes["tgr.budget"] = IntegerAttr(self.budget, i64)  # the emitter checks the arena
