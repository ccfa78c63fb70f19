"""extract-resize-scales: Resize/Upsample -> `tgr.resize` with integer scale factors.

The factors come from the statically inferred shapes (output / input per axis), which
covers `scales` and `sizes` inputs alike; a factor that is not a whole number >= 1,
and modes the runtime lacks (cubic), are rejected naming the node."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tigris.dialects.onnx.ops_tensor import ResizeOp as OnnxResize
from tigris.dialects.onnx.ops_tensor import UpsampleOp
from tigris.dialects.shapes import shape_of
from tigris.dialects.tgr.ops_shape import ResizeOp
from tigris.transforms.rewriting import apply_patterns, carry_name, fail


class ExtractScales(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, OnnxResize | UpsampleOp):
            return
        x, y = shape_of(op.operands[0]), shape_of(op.results[0])
        scales: list[int] = []
        for axis, (a, b) in enumerate(zip(x, y)):
            if b % a or b < a:
                raise fail(op, f"scale {b / a:g} on axis {axis} is not a whole number >= 1 ({a} -> {b} rows)")
            scales.append(b // a)
        mode = op.mode.data
        if mode not in ("nearest", "linear", "bilinear"):
            raise fail(op, f"resize mode '{mode}' is not supported (nearest or linear)")
        props = {"scales": DenseArrayBase.from_list(i64, scales), "mode": StringAttr("linear" if mode == "bilinear" else mode)}
        if isinstance(op, OnnxResize):
            ctm = op.coordinate_transformation_mode.data
            if ctm == "tf_crop_and_resize":
                raise fail(op, "coordinate_transformation_mode 'tf_crop_and_resize' (an roi) is not supported")
            props["coordinate_transformation_mode"] = op.coordinate_transformation_mode
            if mode == "nearest" and not _replicates(ctm, op.nearest_mode.data, x, scales):
                raise fail(
                    op,
                    f"nearest_mode '{op.nearest_mode.data}' with coordinate_transformation_mode '{ctm}' "
                    "does not repeat pixels; the runtime's nearest resize does",
                )
        else:  # Upsample predates coordinate modes: it indexes as `asymmetric` + floor
            props["coordinate_transformation_mode"] = StringAttr("asymmetric")
        new = ResizeOp.build(operands=[op.operands[0]], result_types=[op.results[0].type], properties=props)
        rewriter.replace(op, carry_name(op, new))


def _replicates(ctm: str, nearest_mode: str, in_shape: tuple[int, ...], scales: list[int]) -> bool:
    """Whether ONNX's nearest mapping for these modes is pixel replication (out i <- in i // s)
    on every axis, checked with the reference kernel's own coordinate arithmetic."""
    from tigris.dialects.interpreter.kernels_resample import nearest_index, source_coordinates

    for size, scale in zip(in_shape, scales):
        out = size * scale
        picked = nearest_index(source_coordinates(ctm, out, size, float(scale)), nearest_mode, size)
        if not np.array_equal(picked, np.arange(out) // scale):
            return False
    return True


@dataclass(frozen=True)
class ExtractResizeScalesPass(ModulePass):
    name = "extract-resize-scales"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, ExtractScales())
