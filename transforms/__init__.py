"""Passes: normalization (`normalize/`), planning (`plan/`), lowering (`lower/`).

`get_all_passes` is the one registry, read by `tigris-opt` and by the
`xdsl.universe` entry point; each factory imports its pass lazily. It includes the
passes of installed plugins (`tigris.dialects.plugins`, docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing the package stays cheap: `tigris run` uses numpy helpers under it
    from xdsl.passes import ModulePass

_PASSES: dict[str, tuple[str, str]] = {
    # name: (module under tigris.transforms, class)
    "convert-onnx-to-tgr": ("normalize.convert_onnx_to_tgr", "ConvertOnnxToTgrPass"),
    "fold-constants": ("normalize.fold_constants", "FoldConstantsPass"),
    "fold-layout-transposes": ("normalize.fold_layout_transposes", "FoldLayoutTransposesPass"),
    "fold-qdq": ("normalize.fold_qdq", "FoldQdqPass"),
    "fold-batchnorm": ("normalize.fold_batchnorm", "FoldBatchNormPass"),
    "decompose-silu": ("normalize.decompose_silu", "DecomposeSiluPass"),
    "relabel-depthwise-conv": ("normalize.relabel_conv", "RelabelDepthwiseConvPass"),
    "relabel-conv1d": ("normalize.relabel_conv", "RelabelConv1dPass"),
    "clip-to-relu6": ("normalize.clip_to_relu6", "ClipToRelu6Pass"),
    "reduce-mean-to-gap": ("normalize.reduce_mean_to_gap", "ReduceMeanToGapPass"),
    "fold-shape-ops": ("normalize.fold_shape_ops", "FoldShapeOpsPass"),
    "fold-channel-shuffle": ("normalize.fold_channel_shuffle", "FoldChannelShufflePass"),
    "extract-resize-scales": ("normalize.extract_resize_scales", "ExtractResizeScalesPass"),
    "normalize-concat-axis": ("normalize.normalize_concat_axis", "NormalizeConcatAxisPass"),
    "trim-output-transpose": ("normalize.trim_output_transpose", "TrimOutputTransposePass"),
    "fuse-activations": ("normalize.fuse_activations", "FuseActivationsPass"),
    "materialize-outputs": ("normalize.materialize_outputs", "MaterializeOutputsPass"),
    "convert-plugin-ops": ("normalize.convert_plugin_ops", "ConvertPluginOpsPass"),
    "check-legal": ("normalize.check_legal", "CheckLegalPass"),
    "tigris-normalize": ("pipelines", "TigrisNormalizePass"),
    "annotate-lifetimes": ("plan.passes", "AnnotateLifetimesPass"),
    "memory-timeline": ("plan.passes", "MemoryTimelinePass"),
    "partition-temporal": ("plan.passes", "PartitionTemporalPass"),
    "partition-spatial": ("plan.passes", "PartitionSpatialPass"),
    "tile-chains": ("plan.passes", "TileChainsPass"),
    "tigris-plan": ("plan.passes", "TigrisPlanPass"),
    "layout-nhwc": ("lower.layout_nhwc", "LayoutNhwcPass"),
    "compute-quant-scales": ("lower.compute_quant_scales", "ComputeQuantScalesPass"),
    "group-weights": ("lower.group_weights", "GroupWeightsPass"),
    "tigris-compile": ("pipelines", "TigrisCompilePass"),
}


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(f"tigris.transforms.{module}"), cls)

    return load


def get_all_passes(*, plugins: bool = True) -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass by name; `plugins=False`: TiGrIS's own only."""
    core = {name: _lazy(module, cls) for name, (module, cls) in _PASSES.items()}
    if not plugins:
        return core
    from tigris.dialects.plugins import plugin_passes

    return {**core, **plugin_passes(core)}
