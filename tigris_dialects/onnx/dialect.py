"""The `onnx` dialect object: faithful ONNX, NCHW, ONNX names and defaults."""

from __future__ import annotations

from xdsl.ir import Dialect

from tigris.dialects.onnx import ops_binary as bi
from tigris.dialects.onnx import ops_elementwise as ew
from tigris.dialects.onnx import ops_nn as nn
from tigris.dialects.onnx import ops_quant as q
from tigris.dialects.onnx import ops_tensor as t
from tigris.dialects.onnx import ops_unary as un
from tigris.dialects.onnx.base import OnnxOp

ONNX_OPS: list[type[OnnxOp]] = [
    nn.ConvOp, nn.ConvTransposeOp, nn.BatchNormalizationOp, nn.InstanceNormalizationOp,
    nn.MaxPoolOp, nn.AveragePoolOp, nn.GlobalAveragePoolOp, nn.GlobalMaxPoolOp, nn.LRNOp,
    nn.GemmOp, nn.MatMulOp, nn.SoftmaxOp, nn.DropoutOp,
    nn.LogSoftmaxOp, nn.LayerNormalizationOp, t.ReduceSumOp, t.ReduceMinOp,
    ew.ReluOp, ew.SigmoidOp, ew.TanhOp, ew.HardSwishOp, ew.LeakyReluOp, ew.HardSigmoidOp,
    ew.SwishOp, ew.SiluOp, ew.ClipOp, ew.AddOp, ew.SubOp, ew.MulOp, ew.DivOp, ew.SumOp,
    ew.FloorOp, ew.CeilOp, ew.RoundOp, ew.EqualOp,
    t.ConcatOp, t.ReshapeOp, t.FlattenOp, t.SqueezeOp, t.UnsqueezeOp, t.TransposeOp, t.PadOp,
    t.ResizeOp, t.UpsampleOp, t.ConstantOp, t.ConstantOfShapeOp, t.ShapeOp, t.GatherOp,
    t.SliceOp, t.SplitOp, t.CastOp, t.IdentityOp, t.ReduceMeanOp, t.ReduceMaxOp,
    t.SizeOp, t.ExpandOp, t.TileOp, t.RangeOp, t.WhereOp,
    bi.PReluOp, bi.MaxOp, bi.MinOp, bi.MeanOp,
    *un.UNARY_OPS,
    q.QuantizeLinearOp, q.DequantizeLinearOp,
]  # fmt: skip
"""Typed ops, keyed by ONNX op type in `OPS_BY_TYPE`; `onnx.generic` takes the rest."""

OPS_BY_TYPE: dict[str, type[OnnxOp]] = {op.name.removeprefix("onnx."): op for op in ONNX_OPS}

ONNX = Dialect("onnx", [*ONNX_OPS, q.GenericOp], [])
