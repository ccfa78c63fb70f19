"""Run a `.tgrs` plan on this host with the C runtime (ctypes over a shared library).

The library is built from the runtime's own sources plus the host glue
(runtime/tools/tigris_host.c) and the installed plugins' kernels on first use
(tools/runtime_build.py). This module
does what a host application does around `tigris_run`: it converts the user's
inputs from the ONNX model's declared layout (float) to the plan's (channels-last,
quantized for int8 inputs) and the outputs back. A model input or output with a
recorded permutation (`perm`: the user's tensor is the model-order one transposed by
it) is converted through it; for a channels-last model that makes the conversion a
plain copy of the bytes.
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tigris.dialects.tgr.record_fields import channels_last_order
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import NONE16, DType, FileFlag
from tigris.emit.tgrs.model import PlanFile, QuantParam, Tensor
from tigris.tools.runtime_build import RUNTIME_DIR, build, library_sources
from tigris.transforms.normalize.model_layout import permuted_shape, to_model_order, to_user_layout

STAT_NAMES = (
    "stages_normal", "stages_tiled", "stages_chain", "total_tiles", "slow_overflow_count",
    "slow_overflow_bytes", "loads_bytes", "spills_bytes", "compactions", "slow_peak", "fast_peak",
    "row_cache_bytes", "recomputed_rows",
)  # fmt: skip
"""The order of tigris_host.h's TIGRIS_HOST_* figures."""

ERROR_FIELDS = ("exec_error", "error_stage", "error_op", "error_tensor", "kernel_error")
"""The TIGRIS_HOST_* slots after the figures: where a failed run stopped (tigris_exec_stats_t)."""

STATS_SLOTS = len(STAT_NAMES) + len(ERROR_FIELDS)
"""uint32 slots `tigris_host_run` writes into its `stats` argument: allocate exactly this many."""

NUMPY_DTYPES = {DType.F32: np.float32, DType.F16: np.float16, DType.I8: np.int8, DType.U8: np.uint8,
          DType.I16: np.int16, DType.I32: np.int32, DType.I64: np.int64, DType.BOOL: np.bool_}  # fmt: skip


class RunError(RuntimeError):
    """The plan or the inputs were refused, or the runtime reported an error (one line).
    `op` is the index of the op that failed, if one did."""

    def __init__(self, message: str, op: int | None = None) -> None:
        super().__init__(message)
        self.op = op


@dataclass
class RunResult:
    outputs: list[np.ndarray]
    stats: dict[str, int]


def plugin_build() -> tuple[list[Path], list[str]]:
    """The installed plugins' kernel sources, and the flags that compile them into the host
    glue (tigris_host.c tries each plugin's `runtime_kernel` before the reference kernels)."""
    from tigris.dialects.plugins import runtime_parts

    sources, kernels = runtime_parts()
    if not kernels:
        return [], []
    includes = dict.fromkeys(f"-I{source.parent}" for source in sources)
    listed = " ".join(f"X({kernel})" for kernel in kernels)
    return sources, [*includes, f"-DTIGRIS_HOST_KERNELS(X)={listed}"]


@functools.cache
def host_library() -> ctypes.CDLL:
    """The runtime as a shared library with the plugins' kernels (built and cached on first use)."""
    tools = RUNTIME_DIR / "tools"
    sources, flags = plugin_build()
    path = build(
        "tigris_host", [*library_sources(), *sources, tools / "tigris_host.c"], shared=True,
        extra_flags=[f"-I{tools}", *flags],
    )  # fmt: skip
    lib = ctypes.CDLL(str(path))
    u8p, u32, u32p = ctypes.c_char_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32)
    lib.tigris_host_run.argtypes = [u8p, u32, u8p, u32, ctypes.c_void_p, u32, u32, u32, u32p, ctypes.c_char_p, u32]
    lib.tigris_host_run.restype = ctypes.c_int
    lib.tigris_host_open.argtypes = [u8p, u32, u32, u32, ctypes.c_char_p, u32]
    lib.tigris_host_open.restype = ctypes.c_void_p
    lib.tigris_host_infer.argtypes = [ctypes.c_void_p, u8p, u32, ctypes.c_void_p, u32, u32p, ctypes.c_char_p, u32]
    lib.tigris_host_infer.restype = ctypes.c_int
    lib.tigris_host_close.argtypes = [ctypes.c_void_p]
    lib.tigris_host_close.restype = None
    for name in ("tigris_exec_error_str", "tigris_kernel_error_str"):
        getattr(lib, name).argtypes = [ctypes.c_int]
        getattr(lib, name).restype = ctypes.c_char_p
    return lib


class HostSession:
    """A plan loaded once (bytes copied, CRC checked) with its arenas, then run per input by
    `infer`: what a firmware does (load at boot, infer per input), so a benchmark can time
    inference apart from loading. Inputs and outputs are runtime-layout bytes (`input_bytes`);
    `run_plan` is the one-shot path `tigris run` takes. Use as a context manager (or `close`)."""

    def __init__(self, data: bytes, *, fast: int = 0, slow: int = 0, plan: PlanFile | None = None) -> None:
        """`plan`: `read_plan(data)` when the caller has it already (a timed open then measures
        the C side alone)."""
        self.plan = read_plan(data) if plan is None else plan
        self._lib = host_library()
        err = ctypes.create_string_buffer(512)
        self._handle = self._lib.tigris_host_open(data, len(data), fast, slow, err, len(err))
        if not self._handle:
            raise RunError(err.value.decode(errors="replace"))
        self.output_bytes = sum(self.plan.tensors[t].nbytes for t in self.plan.outputs)

    def infer(self, in_bytes: bytes, out: ctypes.Array | None = None) -> ctypes.Array:
        """Run once on `in_bytes`; the model outputs' bytes, concatenated, in `out` (a buffer
        of `output_bytes`, allocated when None) and returned. A failed run raises RunError."""
        if not self._handle:
            raise RunError("the session is closed")
        out = ctypes.create_string_buffer(self.output_bytes) if out is None else out
        stats = (ctypes.c_uint32 * STATS_SLOTS)()
        err = ctypes.create_string_buffer(512)
        if self._lib.tigris_host_infer(self._handle, in_bytes, len(in_bytes), out, len(out), stats, err, len(err)):
            where = dict(zip(ERROR_FIELDS, stats[len(STAT_NAMES) :]))
            raise run_failure(self.plan, where, err.value.decode(errors="replace"))
        return out

    def close(self) -> None:
        if self._handle:
            self._lib.tigris_host_close(self._handle)
            self._handle = None

    def __enter__(self) -> HostSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def op_kind(op_type: int) -> str:
    """The IR op a runtime op type comes from (`tgr.conv`, or a plugin's op), found by its
    `RuntimeOp` trait, for messages; `op type N` if no loaded dialect has it."""
    from tigris.dialects import get_all_dialects
    from tigris.dialects.tgr.traits import RuntimeOp

    for factory in get_all_dialects().values():
        for op in factory().operations:
            trait = op.get_trait(RuntimeOp)
            if trait is not None and trait.op_type == op_type:
                return op.name
    return f"op type {op_type}"


def run_failure(plan: PlanFile, where: dict[str, int], message: str) -> RunError:
    """The error of a failed `tigris_host_run`: `op 12 'conv_3' (tgr.conv): <the kernel's
    reason>` when an op failed (`where` holds ERROR_FIELDS), else the host's message."""
    if where["error_op"] == NONE16 or where["error_op"] >= len(plan.ops):
        return RunError(message)
    lib = host_library()
    code = ctypes.c_int32(where["exec_error"]).value
    kernel = ctypes.c_int32(where["kernel_error"]).value
    reason = lib.tigris_kernel_error_str(kernel) if kernel != 0 else lib.tigris_exec_error_str(code)
    op = plan.ops[where["error_op"]]
    text = f"op {where['error_op']} '{op.name}' ({op_kind(op.op_type)}): {reason.decode(errors='replace')}"
    return RunError(text, where["error_op"])


def channels_last(shape: Sequence[int]) -> list[int]:
    """The axis order a tensor of recorded `shape` is stored in: [N, d1.., C] for rank >= 3."""
    return channels_last_order(len(shape))


def user_shape(tensor: Tensor) -> tuple[int, ...]:
    """The shape the ONNX model declares for a model input or output: the recorded (model
    order) shape, permuted by the tensor's `perm` if it has one."""
    return tuple(permuted_shape(tensor.shape, tensor.perm)) if tensor.perm is not None else tuple(tensor.shape)


def to_runtime(x: np.ndarray, tensor: Tensor, quant: QuantParam | None) -> bytes:
    dtype = DType(tensor.dtype)
    if tuple(x.shape) != user_shape(tensor):
        raise RunError(f"input '{tensor.name}' has shape {tuple(x.shape)}, the plan takes {user_shape(tensor)}")
    if quant is not None and dtype in (DType.I8, DType.U8) and np.issubdtype(x.dtype, np.floating):
        from tigris.dialects.quant.arith import quantize

        info = np.iinfo(NUMPY_DTYPES[dtype])
        x = quantize(x, quant.scales[0], quant.zero_points[0], int(info.min), int(info.max))
    x = to_model_order(x, tensor.perm)
    with np.errstate(over="ignore"):  # float64 beyond float32's range is +-inf there, as the model computes
        x = x.astype(NUMPY_DTYPES[dtype])
    return np.ascontiguousarray(np.transpose(x, channels_last(tensor.shape))).tobytes()


def from_runtime(data: bytes, tensor: Tensor, quant: QuantParam | None, dequantize: bool) -> np.ndarray:
    stored = [tensor.shape[a] for a in channels_last(tensor.shape)]
    x = np.frombuffer(data, dtype=NUMPY_DTYPES[DType(tensor.dtype)]).reshape(stored)
    x = np.transpose(x, np.argsort(channels_last(tensor.shape)))
    if dequantize and quant is not None and DType(tensor.dtype) in (DType.I8, DType.U8):
        from tigris.dialects.quant.arith import dequantize as dequantize_values

        x = dequantize_values(x, quant.scales[0], quant.zero_points[0])
    return np.ascontiguousarray(to_user_layout(x, tensor.perm))


def _quant(plan: PlanFile, tensor: Tensor) -> QuantParam | None:
    return None if tensor.quant is None else plan.quant_params[tensor.quant]


def input_bytes(plan: PlanFile, inputs: Sequence[np.ndarray]) -> bytes:
    """The model inputs as `tigris_host_run` takes them: in order, each in the runtime layout."""
    if len(inputs) != len(plan.inputs):
        raise RunError(f"the plan takes {len(plan.inputs)} inputs, got {len(inputs)}")
    return b"".join(
        to_runtime(np.asarray(x), plan.tensors[t], _quant(plan, plan.tensors[t])) for x, t in zip(inputs, plan.inputs)
    )


def tile_arena(plan: PlanFile, align: int = 32) -> tuple[int, int]:
    """(bytes, stage): the smallest fast arena the plan's tiles run in, and the stage that
    needs it (-1: no tiles). The runtime refuses a smaller arena (TIGRIS_EXEC_ERR_TILE);
    untiled stages degrade to slow memory instead, so they set no minimum."""
    lz4 = FileFlag.LZ4 in FileFlag(plan.flags)
    reserved = max((b.raw_size for b in plan.weight_blocks), default=0) if lz4 else 0
    need, where = 0, -1
    for index, stage in enumerate(plan.stages):
        if stage.tile_plan is not None and plan.tile_plans[stage.tile_plan].peak > need:
            need, where = plan.tile_plans[stage.tile_plan].peak, index
    return (-(-reserved // align) * align + need if where >= 0 else 0), where


def run_plan(
    data: bytes, inputs: Sequence[np.ndarray], *, fast: int = 0, slow: int = 0, dequantize: bool = True
) -> RunResult:
    """Run the plan once. Inputs in the ONNX model's layout (float inputs of an int8
    plan are quantized as the host would); outputs likewise (int8 outputs are
    dequantized unless `dequantize` is False). `fast`/`slow` 0: what the plan needs."""
    from tigris.tools.budgets import MAX_SIZE

    for what, size in (("fast arena", fast), ("slow buffer", slow)):
        if not 0 <= size <= MAX_SIZE:  # the C call takes uint32_t sizes: no silent wrap
            raise RunError(f"a {what} of {size} bytes: the runtime addresses at most {MAX_SIZE}")
    plan = read_plan(data)
    need, stage = tile_arena(plan)
    if fast and fast < need:
        raise RunError(f"stage {stage}'s tiles need a fast arena of {need} bytes, got {fast}")
    in_bytes = input_bytes(plan, inputs)
    out_tensors = [plan.tensors[t] for t in plan.outputs]
    out_sizes = [math.prod(t.shape) * DType(t.dtype).size for t in out_tensors]
    out_buf = ctypes.create_string_buffer(sum(out_sizes))
    stats = (ctypes.c_uint32 * STATS_SLOTS)()
    err = ctypes.create_string_buffer(512)
    rc = host_library().tigris_host_run(
        data, len(data), in_bytes, len(in_bytes), out_buf, len(out_buf), fast, slow, stats, err, len(err)
    )
    if rc != 0:
        where = dict(zip(ERROR_FIELDS, stats[len(STAT_NAMES) :]))
        raise run_failure(plan, where, err.value.decode(errors="replace"))
    outputs, pos = [], 0
    for tensor, size in zip(out_tensors, out_sizes):
        outputs.append(from_runtime(out_buf.raw[pos : pos + size], tensor, _quant(plan, tensor), dequantize))
        pos += size
    return RunResult(outputs, dict(zip(STAT_NAMES, stats)))
