"""compute-quant-scales writes exactly what the int8 kernels use, and represents each scale exactly
enough.

1. On every int8 zoo model (tigris-normalize, layout-nhwc, compute-quant-scales) the interpreter
   runs with the integer kernels of kernels_int8 watched: every multiplier, shift, ADD parameter,
   table and clamp range a kernel is called with equals the op's `tgr.*` attribute, and an op
   without attributes calls none (it only moves stored values).
2. 10,000 random effective scales s_x * s_w[c] / s_y against exact rational arithmetic: the
   multiplier/shift is the nearest Q0.31 value to the double the pass computes (TFLite's Prepare
   computes it so), within 2**-31 relative of the exact scale up to that double's own rounding.
   (test_interpreter_quant_math checks `quantize_multiplier` alone on 10,000 reals; this extends it
   through the pass.)
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
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, i8, i32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from tigris.dialects.interpreter import kernels_int8 as k8
from tigris.dialects.interpreter import make_interpreter
from tigris.dialects.interpreter.int8_params import qparams
from tigris.dialects.onnx.importer import import_model_file
from tigris.dialects.tgr.attributes import QuantType
from tigris.dialects.tgr.ops_shape import ConcatOp
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
    """Record, per op, the parameters of each outermost integer-kernel call (kernels call each
    other: add, mul, mean and rescale end in requantize)."""
    calls: dict[Operation, list[Call]] = defaultdict(list)
    depth = [0]

    def spy(name: str, params: Callable[..., dict[str, Any]]) -> None:
        original = getattr(k8, name)

        def run(*args: Any, **kwargs: Any) -> Any:
            if depth[0] == 0:
                assert current.op is not None
                calls[current.op].append((name, params(*args, **kwargs)))
            depth[0] += 1
            try:
                return original(*args, **kwargs)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(k8, name, run)

    spy("requantize", lambda acc, m, s, zp, lo, hi, axis=1: {"m": m, "s": s, "range": (lo, hi)})
    spy("rescale", lambda x, in_zp, m, s, zp, lo, hi: {"m": m, "s": s, "range": (lo, hi)})
    spy("mul", lambda x1, z1, x2, z2, m, s, zp, lo, hi: {"m": m, "s": s, "range": (lo, hi)})
    spy("mean", lambda x, z, axes, keep, m, s, zp, lo, hi: {"m": m, "s": s, "range": (lo, hi)})
    spy("add", lambda x1, z1, x2, z2, p, zp, lo, hi, subtract=False: {"add": p, "range": (lo, hi)})
    spy("lookup", lambda x, table, qmin: {"table": table})
    yield calls


def ints_of(op: Operation, name: str) -> list[int] | None:
    attr = op.attributes.get(name)
    if attr is None:
        return None
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    assert isinstance(attr, DenseArrayBase)
    return [int(v) for v in attr.get_values()]


def flat(values: Any) -> list[int]:
    return [int(v) for v in np.asarray(values).reshape(-1)]


def check_op(op: Operation, calls: list[Call]) -> None:
    """The kernel calls of one op against its attributes."""
    mults, shifts = ints_of(op, "tgr.multipliers"), ints_of(op, "tgr.shifts")
    act_range = ints_of(op, "tgr.act_range")
    add, table = ints_of(op, "tgr.add_params"), ints_of(op, "tgr.table")
    if add is not None:
        ((kind, p),) = calls
        (m1, s1), (m2, s2), (mo, so) = p["add"]
        assert kind == "add" and [20, m1, s1, m2, s2, mo, so] == add and list(p["range"]) == act_range
    elif table is not None:
        ((kind, p),) = calls
        assert kind == "lookup" and flat(p["table"]) == table
    elif isinstance(op, ConcatOp):
        assert mults is not None and shifts is not None
        yq = qparams(op.output)
        moved = [i for i, v in enumerate(op.operands) if qparams(v) != yq]
        for i, (kind, p) in zip(moved, calls, strict=True):
            assert kind == "rescale" and flat(p["m"]) == [mults[i]] and flat(p["s"]) == [shifts[i]]
            assert list(p["range"]) == act_range
    elif mults is not None:
        ((kind, p),) = calls
        assert flat(p["m"]) == mults and flat(p["s"]) == shifts and list(p["range"]) == act_range
    else:
        assert not calls, f"{op.name} calls integer kernels but has no parameters: {calls}"


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


# -- exactness over 10,000 random scales -----------------------------------------------------------

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


def test_multipliers_represent_10000_random_scales_exactly_enough() -> None:
    module, triples = conv_module(np.random.default_rng(2024))
    run_passes(("compute-quant-scales",), Context(), module)
    convs = [op for op in module.walk() if isinstance(op, ConvOp)]
    worst, shift_range = Fraction(0), (100, -100)
    count = 0
    for conv, (sx, sws, sy) in zip(convs, triples, strict=True):
        mults, shifts = ints_of(conv, "tgr.multipliers"), ints_of(conv, "tgr.shifts")
        assert mults is not None and shifts is not None
        for sw, m, s in zip(sws, mults, shifts, strict=True):
            exact = Fraction(sx) * Fraction(sw) / Fraction(sy)
            computed = Fraction(sx * np.float64(sw) / sy)  # the double the pass (and TFLite) derives
            represented = Fraction(m) * Fraction(2) ** s / 2**31
            assert 2**30 <= m < 2**31
            # the nearest Q0.31 value to the double (ties away from zero) ...
            assert m == math.floor(computed * 2 ** (31 - s) + Fraction(1, 2))
            assert abs(represented - computed) <= computed / 2**31
            # ... which is within 2**-52 of the exact ratio (two double roundings)
            assert abs(computed - exact) <= exact * 2 * Fraction(1, 2**53)
            worst = max(worst, abs(represented - exact) / exact)
            shift_range = (min(shift_range[0], s), max(shift_range[1], s))
            count += 1
    assert count == 10_000
    assert worst <= Fraction(1, 2**31) + Fraction(1, 2**52)
    # effective scales here lie in [1e-8, 1e2]: shifts well inside quant_math's [-31, 30]
    assert -31 <= shift_range[0] and shift_range[1] <= 30
    print(f"\nworst relative error {float(worst):.3e} (2**-31 = {2**-31:.3e}); shifts {shift_range}")


def test_the_watch_catches_a_wrong_multiplier(
    model_zoo: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison above is not vacuous: one multiplier off by one is caught."""
    module = import_model_file(model_zoo["conv1d_int8"])
    run_passes((*NORMALIZE, "layout-nhwc", "compute-quant-scales"), Context(), module)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    conv = next(op for op in func.walk() if "tgr.multipliers" in op.attributes)
    mults = ints_of(conv, "tgr.multipliers")
    assert mults is not None
    conv.attributes["tgr.multipliers"] = DenseArrayBase.from_list(i32, [mults[0] + 1, *mults[1:]])
    type_ = func.function_type.inputs.data[0]
    x = np.zeros(tuple(type_.get_shape()), np.int8)
    current = CurrentOp()
    with watched_kernels(monkeypatch, current) as calls:
        make_interpreter(module, [current]).call_op("main", (x,))
    with pytest.raises(AssertionError):
        check_op(conv, calls[conv])
