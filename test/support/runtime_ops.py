"""Run a `.tgrs` plan op by op with the C reference kernels (runtime/tests/run_ops.c).

No executor, no arenas: every tensor gets a buffer of its own, so a wrong number points at
a kernel. Inputs and outputs are in the user's ONNX terms (the model's declared layout);
this module does the host's conversions: channels-last for rank >= 3 activations, and each
input's and output's recorded `perm` (docs/tgrs-format.md, "Layouts").

`bands` holds tensors as row bands, as a tiled stage does (run_ops --band): a banded model
input is still passed whole (the driver copies the band), and a banded model output comes
back as its band rows only, in model order, without its `perm`.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

import tigris.tools.runtime_build as runtime_build
from tigris.emit.tgrs import read_plan
from tigris.emit.tgrs.enums import DType
from tigris.emit.tgrs.model import PlanFile
from tigris.tools.runtime_binding import NUMPY_DTYPES, user_shape
from tigris.transforms.normalize.model_layout import to_model_order, to_user_layout



class RunOpsError(RuntimeError):
    """run_ops refused the plan or a kernel returned an error (the driver's message)."""

    def __init__(self, returncode: int, message: str) -> None:
        super().__init__(message)
        self.returncode = returncode


def run_ops_binary(sanitize: bool = False, extra_flags: Sequence[str] = ()) -> Path:
    """The run_ops driver built from the runtime's sources (cached by tools/runtime_build.py)."""
    sources = [*runtime_build.library_sources(), runtime_build.RUNTIME_DIR / "tests" / "run_ops.c"]
    name = "run_ops_asan" if sanitize else "run_ops"
    return runtime_build.build(name, sources, sanitize=sanitize, extra_flags=extra_flags)


def to_runtime(x: np.ndarray) -> np.ndarray:
    """A model-order array in the runtime's layout: [N, C, d1..dk] -> [N, d1..dk, C] for rank >= 3."""
    return np.moveaxis(x, 1, -1) if x.ndim >= 3 else x


def from_runtime(x: np.ndarray) -> np.ndarray:
    """The inverse of `to_runtime`."""
    return np.moveaxis(x, -1, 1) if x.ndim >= 3 else x


def run_plan_ops(
    plan_bytes: bytes,
    inputs: Sequence[np.ndarray],
    *,
    sanitize: bool = False,
    bands: Mapping[int, tuple[int, int]] | None = None,
) -> list[np.ndarray]:
    """The model outputs of the plan for `inputs` (model-input order, ONNX layout)."""
    plan = read_plan(plan_bytes)
    bands = dict(bands or {})
    if len(inputs) != len(plan.inputs):
        raise ValueError(f"the plan has {len(plan.inputs)} inputs, got {len(inputs)}")
    data = bytearray()
    for index, array in zip(plan.inputs, inputs):
        tensor = plan.tensors[index]
        array = np.asarray(array, NUMPY_DTYPES[DType(tensor.dtype)])
        if array.shape != user_shape(tensor):
            raise ValueError(f"input '{tensor.name}' has shape {array.shape}, the plan {user_shape(tensor)}")
        array = to_model_order(array, tensor.perm)
        data += np.ascontiguousarray(to_runtime(array)).astype(array.dtype.newbyteorder("<")).tobytes()
    args = [arg for t, (h0, h1) in sorted(bands.items()) for arg in ("--band", str(t), str(h0), str(h1))]
    with tempfile.TemporaryDirectory(prefix="run_ops_") as tmp:
        folder = Path(tmp)
        (folder / "plan.tgrs").write_bytes(plan_bytes)
        (folder / "in.bin").write_bytes(bytes(data))
        cmd = [str(run_ops_binary(sanitize)), str(folder / "plan.tgrs"), str(folder / "in.bin"), str(folder / "out.bin"), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RunOpsError(proc.returncode, (proc.stderr or proc.stdout).strip())
        raw = (folder / "out.bin").read_bytes()
    return _outputs(plan, raw, bands)


def _outputs(plan: PlanFile, raw: bytes, bands: Mapping[int, tuple[int, int]]) -> list[np.ndarray]:
    outputs: list[np.ndarray] = []
    offset = 0
    for index in plan.outputs:
        tensor = plan.tensors[index]
        dtype = np.dtype(NUMPY_DTYPES[DType(tensor.dtype)]).newbyteorder("<")
        shape = list(tensor.shape)
        if index in bands:
            h0, h1 = bands[index]
            shape[2] = h1 - h0
        stored = to_runtime(np.empty(shape, np.uint8)).shape
        count = int(np.prod(stored, dtype=np.int64))
        array = np.frombuffer(raw, dtype, count, offset).reshape(stored)
        offset += count * dtype.itemsize
        model = from_runtime(array).astype(dtype.newbyteorder("="))
        if index not in bands:
            model = to_user_layout(model, tensor.perm)
        outputs.append(np.ascontiguousarray(model))
    if offset != len(raw):
        raise RunOpsError(0, f"run_ops wrote {len(raw)} bytes, the outputs are {offset}")
    return outputs


def random_inputs(plan: PlanFile, seed: int) -> list[np.ndarray]:
    """Random model inputs of a plan in the runtime layout (channels-last), in model-input order:
    int8 over its whole range, floats normal(0, 1.5)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in (plan.tensors[i] for i in plan.inputs):
        shape = to_runtime(np.empty(t.shape, np.uint8)).shape
        out.append(rng.integers(-128, 128, shape, dtype=np.int8) if t.dtype == DType.I8
                   else rng.normal(0, 1.5, shape).astype(np.float32))
    return out
