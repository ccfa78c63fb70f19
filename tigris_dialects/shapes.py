"""Shape rules shared by the verifiers of both dialects (ONNX semantics)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException


def shape_of(value: SSAValue | Attribute) -> tuple[int, ...]:
    type_ = value.type if isinstance(value, SSAValue) else value
    if not isinstance(type_, TensorType):
        raise VerifyException(f"expected a tensor, got {type_}")
    return tuple(type_.get_shape())


def ints(op: Operation, name: str) -> list[int] | None:
    """An `array<i64: ...>` property as a list, or None when absent."""
    attr = op.properties.get(name)
    return [int(v) for v in attr.get_values()] if isinstance(attr, DenseArrayBase) else None


def window_output(
    size: int, kernel: int, stride: int, dilation: int, pad_begin: int, pad_end: int, ceil: bool = False
) -> int:
    """Output length of a sliding window (conv/pool) along one axis.

    With ceil_mode a last window that would start inside the end padding is dropped,
    as onnxruntime and the ONNX reference implementation do (ONNX shape inference
    keeps it; the pool verifiers catch the disagreement)."""
    span = size + pad_begin + pad_end - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil else span // stride) + 1
    if ceil and (out - 1) * stride >= size + pad_begin:
        out -= 1
    return out


def windowed_shape(
    op: Operation, in_shape: Sequence[int], kernel: Sequence[int], out_channels: int, ceil: bool = False
) -> tuple[int, ...]:
    """The NC(spatial) result shape of a conv/pool op from its kernel and properties."""
    rank = len(in_shape) - 2
    if len(kernel) != rank:
        raise VerifyException(f"kernel rank {len(kernel)} does not match input spatial rank {rank}")
    strides = ints(op, "strides") or [1] * rank
    dilations = ints(op, "dilations") or [1] * rank
    pads = ints(op, "pads") or [0] * (2 * rank)
    if len(strides) != rank or len(dilations) != rank or len(pads) != 2 * rank:
        raise VerifyException(f"strides/dilations need {rank} values and pads {2 * rank}")
    if min(strides + dilations, default=1) < 1 or min(pads, default=0) < 0:
        raise VerifyException("strides and dilations must be >= 1 and pads >= 0")
    spatial = [
        window_output(in_shape[2 + i], kernel[i], strides[i], dilations[i], pads[i], pads[rank + i], ceil)
        for i in range(rank)
    ]
    return (in_shape[0], out_channels, *spatial)


def broadcast(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Numpy/ONNX multidirectional broadcasting; raises on incompatible shapes."""
    out: list[int] = []
    for x, y in zip(reversed([1] * (len(b) - len(a)) + list(a)), reversed([1] * (len(a) - len(b)) + list(b))):
        if x != y and 1 not in (x, y):
            raise VerifyException(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        out.append(max(x, y) if 0 not in (x, y) else 0)
    return tuple(reversed(out))


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


def expect_shape(op: Operation, got: Sequence[int], want: Sequence[int]) -> None:
    if tuple(got) != tuple(want):
        raise VerifyException(f"{op.name}: result shape {tuple(got)} does not match expected {tuple(want)}")


def slice_indices(dim: int, start: int, end: int, step: int) -> range:
    """Indices ONNX Slice selects along one axis (negative starts/ends count from the end, then
    clamp): one rule for the importer's shapes, the conversion and the interpreter."""
    if step == 0:
        raise ValueError("slice step must not be 0")
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start = min(max(start, 0), dim)
        end = min(max(end, 0), dim)
    else:
        start = min(max(start, 0), dim - 1)
        end = min(max(end, -1), dim - 1)
    return range(start, end, step)
