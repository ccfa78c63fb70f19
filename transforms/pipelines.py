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
    "convert-onnx-to-tgr",
    # the thirteen passes of spec/pipeline.md section 2, in its order
    "fold-constants",
    "fold-qdq",
    "fold-batchnorm",
    "decompose-silu",
    "relabel-depthwise-conv",
    "relabel-conv1d",
    "clip-to-relu6",
    "reduce-mean-to-gap",
    "fold-shape-ops",
    "extract-resize-scales",
    "normalize-concat-axis",
    "trim-output-transpose",
    "fuse-activations",
    "check-legal",
)

PIPELINES: dict[str, tuple[str, ...]] = {"tigris-normalize": NORMALIZE}


def run_passes(names: tuple[str, ...], ctx: Context, module: ModuleOp) -> None:
    from tigris.transforms import get_all_passes

    registry = get_all_passes()
    for name in names:
        registry[name]()().apply(ctx, module)
        module.verify()


@dataclass(frozen=True)
class TigrisNormalizePass(ModulePass):
    """convert-onnx-to-tgr, the thirteen normalizations, then check-legal."""

    name = "tigris-normalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_passes(NORMALIZE, ctx, op)


@dataclass(frozen=True)
class TigrisCompilePass(ModulePass):
    """tigris-normalize, tigris-plan{budget align}, layout-nhwc, compute-quant-scales,
    group-weights{compress}: a module ready for the `.tgrs` emitter."""

    name = "tigris-compile"
    budget: int = 0
    align: int = 32
    compress: str = "none"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tigris.transforms.lower.compute_quant_scales import ComputeQuantScalesPass
        from tigris.transforms.lower.group_weights import GroupWeightsPass
        from tigris.transforms.lower.layout_nhwc import LayoutNhwcPass
        from tigris.transforms.plan.passes import TigrisPlanPass

        run_passes(NORMALIZE, ctx, op)
        for pass_ in (
            TigrisPlanPass(self.budget, self.align),
            LayoutNhwcPass(),
            ComputeQuantScalesPass(),
            GroupWeightsPass(self.compress),  # type: ignore[arg-type]
        ):
            pass_.apply(ctx, op)
            op.verify()
        from xdsl.dialects.builtin import IntegerAttr, i64

        from tigris.transforms.plan.graph import main_func

        main_func(op).attributes["tgr.budget"] = IntegerAttr(self.budget, i64)  # for the emitter's band peaks
