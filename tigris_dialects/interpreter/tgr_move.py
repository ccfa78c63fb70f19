"""`tgr.slice`, `tgr.gather`, `tgr.tile` (float, NCHW; any element type).

Each moves stored values, so the same numpy selection serves every dtype; with `!tgr.quant`
tensors the int8 kernel is that selection on the stored integers, requantized to the result's
parameters when they differ (tgr_int8's `_moved`, as for tgr.transpose).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl
from xdsl.ir import Operation

from tigris.dialects.interpreter import tgr_int8 as q8
from tigris.dialects.interpreter.tgr_int8 import int8_kernel
from tigris.dialects.interpreter.values import fail, int_prop, ints, out, reject_quantized, result_shape
from tigris.dialects.tgr import ops_move as mv


def sliced(op: Operation, x: np.ndarray) -> np.ndarray:
    """x[start_a :: step_a] on every axis a, as many elements as the result holds."""
    starts, steps = ints(op, "starts") or [], ints(op, "steps") or []
    picks = tuple(np.arange(n) * step + start for n, start, step in zip(result_shape(op), starts, steps))
    return x[np.ix_(*picks)] if picks else x


def gathered(op: Operation, x: np.ndarray, indices: np.ndarray | None) -> np.ndarray:
    """numpy's take along `axis`; run-time indices may be negative and must lie in [-dim, dim)."""
    axis = int_prop(op, "axis", 0) or 0
    axis %= x.ndim
    if indices is None:
        y = result_shape(op)
        shape = y[axis : axis + len(y) - x.ndim + 1]
        indices = np.asarray(ints(op, "indices") or [], np.int64).reshape(shape)
    indices = np.asarray(indices).astype(np.int64)
    if np.any((indices < -x.shape[axis]) | (indices >= x.shape[axis])):
        raise fail(op, f"an index leaves axis {axis} of size {x.shape[axis]}")
    return np.take(x, indices, axis=axis)


def tiled(op: Operation, x: np.ndarray) -> np.ndarray:
    return np.tile(x, ints(op, "repeats") or [])


def _int8(select: Callable[[Operation, np.ndarray], np.ndarray]) -> q8.Kernel:
    """The int8 kernel of a data-movement op: the selection on stored values, then requantized."""

    def kernel(op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        q8._params(op)
        return q8._moved(op, select(op, np.asarray(args[0])))

    return kernel


class TgrMoveFunctions(InterpreterFunctions):
    @impl(mv.SliceOp)
    @int8_kernel(_int8(sliced))
    def run_slice(self, interpreter: Interpreter, op: mv.SliceOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        reject_quantized(op)
        return out(op, sliced(op, np.asarray(args[0])))

    @impl(mv.GatherOp)
    @int8_kernel(_int8(lambda op, x: gathered(op, x, None)))
    def run_gather(self, interpreter: Interpreter, op: mv.GatherOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        reject_quantized(op)
        return out(op, gathered(op, np.asarray(args[0]), np.asarray(args[1]) if len(args) > 1 else None))

    @impl(mv.TileOp)
    @int8_kernel(_int8(tiled))
    def run_tile(self, interpreter: Interpreter, op: mv.TileOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        reject_quantized(op)
        return out(op, tiled(op, np.asarray(args[0])))
