"""compute-quant-scales writes exactly what the int8 kernels use, and rounds each scale correctly.

1. On every int8 zoo model (tigris-normalize, layout-nhwc, compute-quant-scales) the interpreter
   runs with the two places its int8 kernels take compile-time numbers watched
   (`arith.requantize_accumulator`: dense ops' scales and clamp; `kernels_int8.lookup`: tables):
   every scale, clamp and table a kernel is called with equals the op's `tgr.*` attribute, and an
   op without those attributes calls neither.
2. 10,000 random effective scales s_x * s_w[c] / s_y against exact rational arithmetic: each
   `tgr.requant_scales` entry is the float32 nearest to the exact ratio (within half a float32
   step; the float64 evaluation before the rounding adds at most 2**-52 relative).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, f32, i8
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from tigris.dialects.interpreter import kernels_int8 as k8
from tigris.dialects.interpreter import make_interpreter
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.quant import arith
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_window import ConvOp
from tigris.dialects.tgr.weight import make_weight, numpy_dtype
from tigris.transforms.lower.compute_quant_scales import ATTRIBUTES
from tigris.transforms.pipelines import NORMALIZE, run_passes
from zoo import FLOAT_MODELS  # test/models, on sys.path via conftest

MODELS = list(FLOAT_MODELS)

Call = tuple[str, dict[str, Any]]


class CurrentOp(Interpreter.Listener):
    def __init__(self) -> None:
        self.op: Operation | None = None

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        self.op = op


@contextmanager
def watched_kernels(
    monkeypatch: pytest.MonkeyPatch, current: CurrentOp
) -> Iterator[dict[Operation, list[Call]]]:
    """Record, per op, the compile-time numbers each int8 kernel call receives."""
    calls: dict[Operation, list[Call]] = defaultdict(list)

    def spy(module: Any, name: str, params: Callable[..., dict[str, Any]]) -> None:
        original = getattr(module, name)

        def run(*args: Any, **kwargs: Any) -> Any:
            assert current.op is not None
            calls[current.op].append((name, params(*args, **kwargs)))
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, run)

    spy(arith, "requantize_accumulator", lambda acc, scales, zp, lo, hi: {"scales": scales, "range": (lo, hi)})
    spy(k8, "lookup", lambda x, table, qmin: {"table": table})
    yield calls


def values_of(op: Operation, name: str) -> list[float] | None:
    attr = op.attributes.get(name)
    if attr is None:
        return None
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    assert isinstance(attr, DenseArrayBase)
    return [float(v) for v in attr.get_values()]


def flat(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values).reshape(-1)]


def check_op(op: Operation, calls: list[Call]) -> None:
    """The kernel calls of one op against its attributes."""
    scales, act_range = values_of(op, "tgr.requant_scales"), values_of(op, "tgr.act_range")
    table = values_of(op, "tgr.table")
    if scales is not None:
        ((kind, p),) = calls
        assert kind == "requantize_accumulator" and flat(p["scales"]) == scales and list(p["range"]) == act_range
    elif table is not None:
        ((kind, p),) = calls
        assert kind == "lookup" and flat(p["table"]) == table
    else:
        assert not calls, f"{op.name} uses compile-time numbers but has no attribute: {calls}"


@pytest.mark.parametrize("name", MODELS)
def test_attributes_are_what_the_int8_kernels_use(
    name: str, model_zoo: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = import_model_file(model_zoo[f"{name}_int8"])
    run_passes((*NORMALIZE, "layout-nhwc", "compute-quant-scales"), Context(), module)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    rng = np.random.default_rng(0)
    inputs = []
    for type_ in func.function_type.inputs.data:
        info = np.iinfo(numpy_dtype(type_.element_type))
        inputs.append(
            rng.integers(info.min, info.max, tuple(type_.get_shape()), endpoint=True).astype(info.dtype)
        )
    current = CurrentOp()
    with watched_kernels(monkeypatch, current) as calls:
        make_interpreter(module, [current]).call_op("main", tuple(inputs))
    annotated = [op for op in func.walk() if any(a in op.attributes for a in ATTRIBUTES)]
    assert annotated and set(calls) <= set(annotated)
    for op in func.walk():
        check_op(op, calls.get(op, []))
    kinds = {op.name for op in annotated}
    print(f"\n{name}_int8: {len(annotated)} ops with parameters ({', '.join(sorted(kinds))})")


# -- rounding of 10,000 random scales -------------------------------------------------------------

CHANNELS = 100
OPS = 100


def conv_module(rng: np.random.Generator) -> tuple[ModuleOp, list[tuple[float, list[float], float]]]:
    """OPS functions, each a 1x1 int8 conv with CHANNELS per-channel weight scales; float32 scales
    (as ONNX stores them), log-uniform: s_x in [1e-3, 1], s_w in [1e-5, 1e-1], s_y in [1e-3, 1]."""

    def scales(low: float, high: float, n: int) -> list[float]:
        return [float(np.float32(s)) for s in np.exp(rng.uniform(math.log(low), math.log(high), n))]

    funcs, triples = [], []
    for index in range(OPS):
        (sx,), sw, (sy,) = scales(1e-3, 1.0, 1), scales(1e-5, 1e-1, CHANNELS), scales(1e-3, 1.0, 1)
        x_t = TensorType(QuantType.get(i8, [sx], [0]), [1, 1, 1, 1])
        y_t = TensorType(QuantType.get(i8, [sy], [0]), [1, CHANNELS, 1, 1])
        w_t = TensorType(QuantType.get(i8, sw, [0] * CHANNELS, axis=0), [CHANNELS, 1, 1, 1])
        func = FuncOp(f"conv{index}", ([x_t], [y_t]))
        weight = make_weight(np.zeros((CHANNELS, 1, 1, 1), np.int8), w_t, f"w{index}")
        conv = ConvOp.build(operands=[func.body.block.args[0], weight.output, []], result_types=[y_t])
        func.body.block.add_ops([weight, conv, ReturnOp(conv.output)])
        funcs.append(func)
        triples.append((sx, sw, sy))
    return ModuleOp(funcs), triples


def test_requant_scales_are_the_nearest_float32_of_10000_random_ratios() -> None:
    module, triples = conv_module(np.random.default_rng(2024))
    run_passes(("compute-quant-scales",), Context(), module)
    convs = [op for op in module.walk() if isinstance(op, ConvOp)]
    worst, count = Fraction(0), 0
    for conv, (sx, sws, sy) in zip(convs, triples, strict=True):
        scales = values_of(conv, "tgr.requant_scales")
        assert scales is not None
        for sw, s in zip(sws, scales, strict=True):
            exact = Fraction(sx) * Fraction(sw) / Fraction(sy)
            assert float(np.float32(s)) == s  # a float32 value
            ulp = Fraction(float(np.spacing(np.float32(s))))
            error = abs(Fraction(s) - exact)
            assert error <= ulp * (Fraction(1, 2) + Fraction(1, 2**28))
            worst = max(worst, error / ulp)
            count += 1
    assert count == 10_000
    print(f"\nworst error {float(worst):.6f} float32 steps (the nearest float32 is within 0.5)")


def test_the_watch_catches_a_wrong_scale(
    model_zoo: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison above is not vacuous: one scale one float32 step off is caught."""
    module = import_model_file(model_zoo["conv1d_int8"])
    run_passes((*NORMALIZE, "layout-nhwc", "compute-quant-scales"), Context(), module)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    conv = next(op for op in func.walk() if "tgr.requant_scales" in op.attributes)
    scales = values_of(conv, "tgr.requant_scales")
    assert scales is not None
    bumped = float(np.nextafter(np.float32(scales[0]), np.float32(1)))
    conv.attributes["tgr.requant_scales"] = DenseArrayBase.from_list(f32, [bumped, *scales[1:]])
    type_ = func.function_type.inputs.data[0]
    x = np.zeros(tuple(type_.get_shape()), np.int8)
    current = CurrentOp()
    with watched_kernels(monkeypatch, current) as calls:
        make_interpreter(module, [current]).call_op("main", (x,))
    with pytest.raises(AssertionError):
        check_op(conv, calls[conv])
