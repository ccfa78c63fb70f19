"""Run the windowed kernels (conv, depthwise, conv1d, max / average pool) on 2-D tiles.

A 2-D tile holds a tensor as a window of rows [h0, h1) x columns [w0, w1) (run_ops --window,
runtime/tests/run_ops.c), and a windowed kernel must compute exactly the resident window of its
output from the input pixels its taps hit, addressed by full-tensor coordinates, giving the bytes
of the whole-tensor run; an input pixel it needs that is not resident is TIGRIS_KERNEL_ERR_BAND.

One run_ops call checks many windows: the one-op plan is rewritten with the op repeated, copy i
reading its own copy of the input (held as its input window) and writing its own copy of the
output (held as its output window), the weights shared. Copy 0 runs whole, so every window is
compared with the whole run of the same build. Both builds run, under ASan + UBSan: the fast
one and the reference-only one (-DTIGRIS_KERNELS_REFERENCE_ONLY, the fast loops' oracle).
"""

from __future__ import annotations

import dataclasses
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import runtime_ops
from tigris.emit.tgrs import read_plan, write_plan
from tigris.emit.tgrs.enums import DType
from tigris.emit.tgrs.model import Op, PlanFile, Tensor
from tigris.tools import runtime_build
from tigris.tools.runtime_binding import NUMPY_DTYPES

Range = tuple[int, int]
Window = tuple[int, int, int, int]
"""Rows [h0, h1) x columns [w0, w1) in full-tensor coordinates (rank 3: columns (0, 1))."""

Tile = tuple[Window, Window]
"""The input window and the output window of one copy of the op."""

MAX_COPIES = 31
"""Copies of the op per run: two windowed tensors each, within TIGRIS_MAX_BANDS (64)."""


def reference_binary(sanitize: bool = False, extra_flags: Sequence[str] = ()) -> Path:
    """run_ops with the reference loops only (-DTIGRIS_KERNELS_REFERENCE_ONLY): the oracle."""
    sources = [*runtime_build.library_sources(), runtime_build.RUNTIME_DIR / "tests" / "run_ops.c"]
    return runtime_build.build("run_ops_ref_asan" if sanitize else "run_ops_ref", sources, sanitize=sanitize,
                               extra_flags=["-DTIGRIS_KERNELS_REFERENCE_ONLY", *extra_flags])  # fmt: skip


def builds() -> dict[str, Path]:
    """The fast and the reference-only run_ops, both under ASan + UBSan."""
    return {"fast": runtime_ops.run_ops_binary(sanitize=True), "reference": reference_binary(sanitize=True)}


# -- geometry -----------------------------------------------------------------------------------


def axis_reads(out: Range, kernel: int, stride: int, dilation: int, pad: int, size: int) -> Range | None:
    """The input positions outputs [out) along one axis read inside [0, size): the hull of their
    in-image taps (what the kernel needs resident); None if they read only padding."""
    taps = [o * stride - pad + k * dilation for o in range(*out) for k in range(kernel)]
    inside = [i for i in taps if 0 <= i < size]
    return (min(inside), max(inside) + 1) if inside else None


def needed_axes(op: Op, x_shape: Sequence[int], out: Window) -> tuple[Range | None, Range | None]:
    """axis_reads along H and W for the output window `out` of `op` (rank 3: W is (0, 1))."""
    rows = axis_reads(out[:2], op.kernel_h, op.stride_h, op.dilation_h, op.pad_top, x_shape[2])
    if len(x_shape) == 3:
        return rows, (0, 1)
    return rows, axis_reads(out[2:], op.kernel_w, op.stride_w, op.dilation_w, op.pad_left, x_shape[3])


def input_window(op: Op, x_shape: Sequence[int], out: Window) -> Window:
    """The smallest input window for output window `out`; an axis read only in its padding gets
    (0, 1), as a tile must hold something."""
    rows, cols = needed_axes(op, x_shape, out)
    return (*(rows or (0, 1)), *(cols or (0, 1)))


def narrowed(op: Op, x_shape: Sequence[int], out: Window) -> list[Window]:
    """The input windows one needed row or column short, on each side that can lose one."""
    rows, cols = needed_axes(op, x_shape, out)
    full = input_window(op, x_shape, out)
    found = []
    for axis, need in ((0, rows), (2, cols)):
        if need is None or need[1] - need[0] < 2:
            continue
        for side in (0, 1):
            w = list(full)
            w[axis + side] += 1 if side == 0 else -1
            found.append((w[0], w[1], w[2], w[3]))
    return found


EVERY_WINDOW_LIMIT = 150
"""Outputs with at most this many windows have every one checked; larger ones a sample."""


def windows_to_check(rows: int, cols: int, rng: np.random.Generator, sample: int = 60) -> list[Window]:
    """Output windows of a rows x cols output: all of them if there are at most
    EVERY_WINDOW_LIMIT, else 1x1 at the four corners, the first and last row and column, a band
    of whole rows, every tile of a random tile size (so every output pixel is computed alone
    once) and random windows, `sample` in all."""
    if rows * (rows + 1) * cols * (cols + 1) // 4 <= EVERY_WINDOW_LIMIT:
        return [(h0, h1, w0, w1) for h0 in range(rows) for h1 in range(h0 + 1, rows + 1)
                for w0 in range(cols) for w1 in range(w0 + 1, cols + 1)]  # fmt: skip
    found = [(0, 1, 0, 1), (0, 1, cols - 1, cols), (rows - 1, rows, 0, 1), (rows - 1, rows, cols - 1, cols),
             (0, 1, 0, cols), (rows - 1, rows, 0, cols), (0, rows, 0, 1), (0, rows, cols - 1, cols),
             (rows // 3, min(rows, rows // 3 + 2), 0, cols)]  # fmt: skip
    th, tw = int(rng.integers(1, rows + 1)), int(rng.integers(1, cols + 1))
    while -(-rows // th) * -(-cols // tw) > sample // 2:  # ceil divisions: the tiles per axis
        th, tw = min(rows, th + 1), min(cols, tw + 1)
    found += [(h, min(h + th, rows), w, min(w + tw, cols))
              for h in range(0, rows, th) for w in range(0, cols, tw)]  # fmt: skip
    while len(set(found)) < sample:
        h0, w0 = int(rng.integers(0, rows)), int(rng.integers(0, cols))
        found.append((h0, int(rng.integers(h0 + 1, rows + 1)), w0, int(rng.integers(w0 + 1, cols + 1))))
    return list(dict.fromkeys(found))


def crop(y: np.ndarray, window: Window) -> np.ndarray:
    """The pixels of a model-order [N, C, H(, W)] array inside `window`."""
    h0, h1, w0, w1 = window
    return y[:, :, h0:h1, w0:w1] if y.ndim == 4 else y[:, :, h0:h1]


@dataclass(frozen=True)
class WindowOp:
    """A random op for the window tests: an NCHW input and the ONNX attributes of a Conv
    (`kind` "conv": `group` 1 or 2; "depthwise": group = channels, out_ch = channels x a depth
    multiplier), a MaxPool ("max") or an AveragePool ("avg")."""

    kind: str
    shape: tuple[int, int, int, int]
    out_ch: int
    group: int
    attrs: dict[str, object]


def _pool_length(size: int, span: int, stride: int, pads: int, pad_begin: int, ceil_mode: bool) -> int | None:
    """The output length along one axis (None: no window fits, or ceil mode's two readings, the
    ONNX formula and the one that drops a last window starting in the end padding, disagree)."""
    room = size + pads - span
    if room < 0:
        return None
    floor, ceil = room // stride + 1, -(-room // stride) + 1
    if not ceil_mode:
        return floor
    return None if (ceil - 1) * stride >= size + pad_begin else ceil


def random_window_op(rng: np.random.Generator, kind: str) -> WindowOp:
    """Channels that are not multiples of the kernels' blocking, H and W in 1..13, kernels 1, 3,
    5, strides 1 and 2, dilations 1 and 2 (not for average pools: AveragePool has none before
    opset 19), asymmetric pads (a conv's up to the kernel size, so some outputs read only
    padding; a pool's below it, as onnxruntime requires), ceil mode and count_include_pad."""
    channels = int(rng.choice([1, 3, 5, 7, 17, 19]))
    batch = int(rng.choice([1, 1, 2]))
    group = {"conv": int(rng.choice([1, 2])), "depthwise": channels}.get(kind, 1)
    if group == 2 and channels % 2:
        channels += 1
    out_ch = {"conv": int(rng.choice([1, 2, 5, 9])) * group, "depthwise": channels * int(rng.integers(1, 4))}
    pool = kind in ("max", "avg")
    while True:
        k = [int(v) for v in rng.choice([1, 3, 5], 2)]
        s = [int(v) for v in rng.choice([1, 2], 2)]
        d = [1, 1] if kind == "avg" else [int(v) for v in rng.choice([1, 2], 2)]
        pads = [int(rng.integers(0, k[i % 2] if pool else k[i % 2] + 1)) for i in range(4)]
        hw = [int(v) for v in rng.integers(1, 14, 2)]
        ceil_mode = pool and bool(rng.integers(0, 2))
        lengths = [_pool_length(hw[a], d[a] * (k[a] - 1) + 1, s[a], pads[a] + pads[a + 2], pads[a], ceil_mode)
                   for a in (0, 1)]  # fmt: skip
        if None not in lengths:
            break
    attrs: dict[str, object] = dict(kernel_shape=k, strides=s, pads=pads)
    if kind != "avg":
        attrs["dilations"] = d
    if pool:
        attrs["ceil_mode"] = int(ceil_mode)
    if kind == "avg":
        attrs["count_include_pad"] = int(rng.integers(0, 2))
    return WindowOp(kind, (batch, channels, hw[0], hw[1]), out_ch.get(kind, channels), group, attrs)


# -- running ------------------------------------------------------------------------------------


def the_op(plan: PlanFile) -> Op:
    """The op of a one-op plan."""
    assert len(plan.ops) == 1 and len(plan.stages) == 1, [op.op_type for op in plan.ops]
    return plan.ops[0]


def replicated(plan: PlanFile, copies: int) -> PlanFile:
    """The one-op plan with its op `copies` times, copy i reading input x_i and writing output
    y_i (copy 0: the original tensors), the weights shared; no model input or output keeps a
    `perm`, so every copy is in model order."""
    op = the_op(plan)
    x, y = op.inputs[0], op.outputs[0]
    tensors = [dataclasses.replace(t, perm=None) for t in plan.tensors]
    xs, ys = [x], [y]
    for i in range(1, copies):
        for source, found in ((x, xs), (y, ys)):
            found.append(len(tensors))
            tensors.append(dataclasses.replace(tensors[source], name=f"{tensors[source].name}_{i}"))
    ops = [dataclasses.replace(op, name=f"{op.name}_{i}", inputs=(xs[i], *op.inputs[1:]), outputs=(ys[i],))
           for i in range(copies)]  # fmt: skip
    stage = dataclasses.replace(plan.stages[0], ops=tuple(range(copies)), inputs=tuple(xs), outputs=tuple(ys))
    return dataclasses.replace(plan, tensors=tensors, ops=ops, stages=[stage], inputs=tuple(xs),
                               outputs=tuple(ys))  # fmt: skip


def run_tiles(plan: PlanFile, x: np.ndarray, tiles: Sequence[Tile | None], binary: Path) -> list[np.ndarray]:
    """The op of the one-op plan on input x (model order) once per tile, in one run_ops call:
    a tile's input and output held as its windows (None: both whole). The outputs in model
    order, each as its window. RunOpsError if run_ops or a kernel refuses."""
    big = replicated(plan, len(tiles))
    op = the_op(plan)
    dtype = np.dtype(NUMPY_DTYPES[DType(plan.tensors[op.inputs[0]].dtype)]).newbyteorder("<")
    stored = np.ascontiguousarray(runtime_ops.to_runtime(np.asarray(x, dtype))).tobytes()
    args = []
    for tile, xi, yi in zip(tiles, big.inputs, big.outputs, strict=True):
        for tensor, window in zip((xi, yi), tile or ()):
            args += ["--window", str(tensor), *map(str, window)]
    with tempfile.TemporaryDirectory(prefix="run_tiles_") as tmp:
        folder = Path(tmp)
        (folder / "plan.tgrs").write_bytes(write_plan(big))
        (folder / "in.bin").write_bytes(stored * len(tiles))
        cmd = [str(binary), *(str(folder / name) for name in ("plan.tgrs", "in.bin", "out.bin")), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise runtime_ops.RunOpsError(proc.returncode, (proc.stderr or proc.stdout).strip())
        raw = (folder / "out.bin").read_bytes()
    return _windows(big.tensors[op.outputs[0]], [t[1] if t else None for t in tiles], raw)


def _windows(y: Tensor, windows: Sequence[Window | None], raw: bytes) -> list[np.ndarray]:
    """Split run_ops' output bytes into the output windows, model order."""
    dtype = np.dtype(NUMPY_DTYPES[DType(y.dtype)]).newbyteorder("<")
    n, c, h = y.shape[:3]
    w = y.shape[3] if len(y.shape) == 4 else 1
    found, offset = [], 0
    for window in windows:
        h0, h1, w0, w1 = window or (0, h, 0, w)
        stored = (n, h1 - h0, w1 - w0, c) if len(y.shape) == 4 else (n, h1 - h0, c)
        count = int(np.prod(stored))
        found.append(runtime_ops.from_runtime(np.frombuffer(raw, dtype, count, offset).reshape(stored)))
        offset += count * dtype.itemsize
    assert offset == len(raw), f"run_ops wrote {len(raw)} bytes, the windows are {offset}"
    return found


def check_windows(plan_bytes: bytes, x: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    """Every window of windows_to_check, each computed alone from its input window, equals the
    same pixels of the whole run, byte for byte, in the fast and the reference build, and the two
    builds' whole runs are equal; for the window with the most ways to be short, each input
    window one needed row or column short is refused with TIGRIS_KERNEL_ERR_BAND by both builds.
    Returns the numbers of windows and of short input windows checked."""
    plan = read_plan(plan_bytes)
    op = the_op(plan)
    x_shape, y_shape = plan.tensors[op.inputs[0]].shape, plan.tensors[op.outputs[0]].shape
    out_windows = windows_to_check(y_shape[2], y_shape[3] if len(y_shape) == 4 else 1, rng)
    tiles = [(input_window(op, x_shape, w), w) for w in out_windows]
    target = max(out_windows, key=lambda w: len(narrowed(op, x_shape, w)))
    shorts = narrowed(op, x_shape, target)
    wholes = {}
    for name, binary in builds().items():
        for first in range(0, len(tiles), MAX_COPIES - 1):
            chunk = tiles[first : first + MAX_COPIES - 1]
            whole, *parts = run_tiles(plan, x, [None, *chunk], binary)
            wholes[name] = whole
            for (_, window), part in zip(chunk, parts, strict=True):
                assert part.tobytes() == np.ascontiguousarray(crop(whole, window)).tobytes(), (name, window)
        for short in shorts:
            assert_refused(plan, x, (short, target), binary)
    assert wholes["fast"].tobytes() == wholes["reference"].tobytes()
    return len(tiles), len(shorts)


def assert_refused(plan: PlanFile, x: np.ndarray, tile: Tile, binary: Path) -> None:
    """The op on `tile` fails with TIGRIS_KERNEL_ERR_BAND (a kernel error, not a crash)."""
    try:
        run_tiles(plan, x, [tile], binary)
    except runtime_ops.RunOpsError as e:
        assert e.returncode == 3 and "not resident" in str(e), (binary.name, tile, e)
    else:
        raise AssertionError(f"{binary.name}: {tile} was not refused")
