"""The `tgr` dialect object: the runtime's op set, its attributes and its weight table."""

from __future__ import annotations

from xdsl.ir import Dialect

from tigris.dialects.tgr import ops_binary as bi
from tigris.dialects.tgr import ops_elementwise as ew
from tigris.dialects.tgr import ops_move as mv
from tigris.dialects.tgr import ops_reduce as rd
from tigris.dialects.tgr import ops_shape as sh
from tigris.dialects.tgr import ops_window as win
from tigris.dialects.tgr import ops_unary as un
from tigris.dialects.tgr.attributes import (
    DenseResourceAttr,
    LifetimeAttr,
    MemoryAttr,
    QuantType,
    StageAttr,
    StrategyAttr,
    TilePlanAttr,
    WeightBlockAttr,
)
from tigris.dialects.tgr.resources import WeightResources
from tigris.dialects.tgr.weight import WeightOp

TGR_OPS = [
    win.ConvOp, win.DepthwiseConvOp, win.Conv1dOp, win.ConvTransposeOp, win.FullyConnectedOp,
    win.MatMulOp, win.MaxPoolOp, win.AvgPoolOp, win.GlobalAvgPoolOp, win.GlobalMaxPoolOp,
    ew.ReluOp, ew.Relu6Op, ew.SigmoidOp, ew.TanhOp, ew.HardSwishOp, ew.QuantizeOp, ew.DequantizeOp, ew.LeakyReluOp, ew.ClipOp,
    ew.AddOp, ew.SubOp, ew.MulOp, ew.DivOp, ew.SoftmaxOp, ew.BatchNormOp, ew.InstanceNormOp,
    sh.ConcatOp, sh.PadOp, sh.ResizeOp, sh.FlattenOp, sh.ReshapeOp, sh.SqueezeOp,
    sh.UnsqueezeOp, sh.TransposeOp, sh.ReduceMeanOp,
    mv.SliceOp, mv.GatherOp, mv.TileOp,
    rd.ReduceSumOp, rd.ReduceMaxOp, rd.ReduceMinOp, rd.LogSoftmaxOp, rd.LrnOp, rd.LayerNormOp,
    bi.PReluOp, bi.MaxOp, bi.MinOp, bi.PowTensorOp,
    *un.UNARY_OPS,
    WeightOp,
]  # fmt: skip

TGR = Dialect(
    "tgr",
    TGR_OPS,
    [DenseResourceAttr, QuantType, LifetimeAttr, MemoryAttr, TilePlanAttr, StrategyAttr, StageAttr, WeightBlockAttr],
    [WeightResources()],
)


def weight_resources() -> WeightResources:
    interface = TGR.get_interface(WeightResources)
    assert interface is not None
    return interface
