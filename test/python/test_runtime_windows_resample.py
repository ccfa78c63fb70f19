"""Resize and pad on 2-D tiles: the rule, the kernels on windows and the runtime's twin.

A 2-D tile holds a map as a window of rows x columns. Resize (integer scales, nearest and
linear, every coordinate mode) and pad (constant, reflect, edge; negative pads crop) map
columns by the rule they map rows by (`RowMap`, one rule per axis): the input range of an
output range is the hull of the input indices its pixels read, clamped, never empty. Here:

- the rule: along H and W, for every output range of every case, `RowMap.input_range` is the
  hull of the reads of an independent per-index model of the kernels (`reads`: onnxruntime's
  float32 coordinates, numpy's pad), and `rows_needed` bounds every band of a size;
- the kernels: each op, float32 and int8 (int8 has neither linear nor align_corners resize),
  run by run_ops with its input held as the window the rule gives for an output window and its
  output held as that window, gives exactly that window of its whole-tensor run (the golden,
  the same kernel on whole tensors), on many windows, edges and corners included, under ASan +
  UBSan, in the fast and the reference-only build; an input window one needed row or column
  short is refused (TIGRIS_KERNEL_ERR_BAND), never misread;
- the C twin: tigris_band_input_range / tigris_band_input_cols, on the records the emitter writes
  (band geometry PAD or RESIZE along H and W), give for every output range of every op the range
  the compiler's rule gives: for the cases and for random ops.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from kernel_windows import Window, assert_refused, builds, crop, run_tiles, windows_to_check  # test/support
from xdsl.parser import Parser

from tigris.dialects import make_context
from tigris.dialects.tgr.traits import RowMap
from tigris.emit.tgrs import Op, PlanFile, QuantParam, Stage, Tensor, write_plan
from tigris.emit.tgrs.enums import BandGeometry, CoordMode, DType, FileFlag, OpType, PadMode, ResizeMode
from tigris.emit.tgrs.op_records import op_record
from tigris.tools import runtime_build

C, H, W = 3, 5, 6
Q = QuantParam((0.05,), (-4,))
F32 = np.float32


class Case(NamedTuple):
    """A resize (scales along H, W; mode; coordinate mode) or a pad (pads top, left, bottom,
    right; mode) of a [1, channels, height, width] map (model order)."""

    kind: str
    scales: tuple[int, int] = (1, 1)
    mode: str = "constant"
    coord: str = "half_pixel"
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    height: int = H
    width: int = W
    channels: int = C

    @property
    def out_hw(self) -> tuple[int, int]:
        if self.kind == "resize":
            return (self.height * self.scales[0], self.width * self.scales[1])
        top, left, bottom, right = self.pads
        return (self.height + top + bottom, self.width + left + right)

    @property
    def int8_kernel(self) -> bool:
        """Whether the int8 kernel runs the case: it resizes nearest, replicating pixels."""
        return self.kind == "pad" or (self.mode == "nearest" and self.coord != "align_corners")


CASES = {
    "resize_nearest_2x2": Case("resize", (2, 2), "nearest"),
    "resize_nearest_3x2_asymmetric": Case("resize", (3, 2), "nearest", "asymmetric"),
    "resize_nearest_1x3_pytorch": Case("resize", (1, 3), "nearest", "pytorch_half_pixel"),
    "resize_nearest_2x3_align_corners": Case("resize", (2, 3), "nearest", "align_corners"),
    "resize_linear_2x2": Case("resize", (2, 2), "linear"),
    "resize_linear_1x2_asymmetric": Case("resize", (1, 2), "linear", "asymmetric"),
    "resize_linear_3x3_pytorch": Case("resize", (3, 3), "linear", "pytorch_half_pixel"),
    "resize_linear_4x3_align_corners": Case("resize", (4, 3), "linear", "align_corners"),
    "pad_constant": Case("pad", pads=(1, 2, 2, 1)),
    "pad_crop": Case("pad", pads=(-1, 3, 0, -2)),  # a negative pad crops
    "pad_reflect": Case("pad", mode="reflect", pads=(2, 3, 1, 4)),
    "pad_reflect_wide": Case("pad", mode="reflect", pads=(4, 7, 6, 2)),  # wider than the map: folds twice
    "pad_reflect_crop": Case("pad", mode="reflect", pads=(1, -2, -1, 5)),
    "pad_edge": Case("pad", mode="edge", pads=(3, 1, 0, 4)),
    "pad_edge_crop": Case("pad", mode="edge", pads=(-1, 2, 2, -2)),
}


# -- the rule and an independent model of the kernels' reads ------------------------------------


def tgr_op(case: Case):  # type: ignore[no-untyped-def]
    """The case as the compiler's `tgr` op (parsed, verified): its RowMap is the rule."""
    x = f"tensor<1x{case.channels}x{case.height}x{case.width}xf32>"
    y = f"tensor<1x{case.channels}x{case.out_hw[0]}x{case.out_hw[1]}xf32>"
    if case.kind == "resize":
        attrs = (f"scales = array<i64: 1, 1, {case.scales[0]}, {case.scales[1]}>, mode = \"{case.mode}\", "
                 f"coordinate_transformation_mode = \"{case.coord}\"")
    else:
        top, left, bottom, right = case.pads
        attrs = f"pads = array<i64: 0, 0, {top}, {left}, 0, 0, {bottom}, {right}>, mode = \"{case.mode}\""
    body = f"  %y = tgr.{case.kind} %x {{{attrs}}} : ({x}) -> {y}"
    text = f"func.func @main(%x: {x}) {{\n{body}\n  func.return\n}}"
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return next(op for op in module.walk() if op.name == f"tgr.{case.kind}")


def resize_reads(case: Case, axis: int, j: int) -> list[int]:
    """The input indices output j of a resize reads along `axis` (0: H, 1: W), computed as
    tigris_f32_resize does: onnxruntime's float32 source coordinate, nearest rounding half down
    (floor for asymmetric), linear both clamped neighbours (the kernel checks both even at weight
    0)."""
    k, size = case.scales[axis], (case.height, case.width)[axis]
    out = size * k
    if k == 1:
        return [j]
    x, s, half = F32(j), F32(k), F32(0.5)
    coords = {"asymmetric": x / s, "align_corners": x * F32(size - 1) / F32(out - 1)}
    c = coords.get(case.coord, (x + half) / s - half)
    if case.mode == "nearest":
        i = int(np.floor(c)) + (case.coord != "asymmetric" and c - np.floor(c) > half)
        return [min(max(i, 0), size - 1)]
    c = min(max(c, F32(0)), F32(size - 1))
    i0 = min(int(c), size - 1)
    return [i0, min(i0 + 1, size - 1)]


def pad_reads(case: Case, axis: int, j: int) -> list[int]:
    """The input index output j of a pad copies along `axis` (numpy's pad after cropping), none
    where the constant goes."""
    size = (case.height, case.width)[axis]
    begin, end = case.pads[axis], case.pads[axis + 2]
    first = max(0, -begin)
    kept = size - first - max(0, -end)
    t = j - max(0, begin)
    if 0 <= t < kept:
        return [first + t]
    if case.mode == "constant":
        return []
    if case.mode == "edge" or kept == 1:
        return [first + min(max(t, 0), kept - 1)]
    t %= 2 * (kept - 1)
    return [first + (t if t < kept else 2 * (kept - 1) - t)]


def reads(case: Case, axis: int, start: int, end: int) -> list[int]:
    """Every input index outputs [start, end) read along `axis`."""
    one = resize_reads if case.kind == "resize" else pad_reads
    return [i for j in range(start, end) for i in one(case, axis, j)]


def rule_window(case: Case, out: Window) -> Window:
    """The input window the compiler's rule gives for output window `out`."""
    op = tgr_op(case)
    row_map = RowMap.of(op)
    assert row_map is not None and row_map.along(op, 1)
    rows = row_map.input_range(op, out[0], out[1], case.height, 0)
    cols = row_map.input_range(op, out[2], out[3], case.width, 1)
    return (*rows, *cols)


def all_ranges(size: int) -> list[tuple[int, int]]:
    return [(s, e) for s in range(size) for e in range(s + 1, size + 1)]


@pytest.mark.parametrize("name", list(CASES))
def test_the_rule_is_the_hull_of_the_kernels_reads(name: str) -> None:
    case = CASES[name]
    op = tgr_op(case)
    row_map = RowMap.of(op)
    assert row_map is not None
    for axis in (0, 1):
        size, out = (case.height, case.width)[axis], case.out_hw[axis]
        most: dict[int, int] = {}
        for s, e in all_ranges(out):
            got = row_map.input_range(op, s, e, size, axis)
            read = reads(case, axis, s, e)
            if read:
                assert got == (min(read), max(read) + 1), (axis, s, e)
            else:  # all padding: one index, inside the input
                assert got[1] == got[0] + 1 and 0 <= got[0] < size, (axis, s, e)
            most[e - s] = max(most.get(e - s, 0), got[1] - got[0])
        for count, extent in most.items():  # the planner's band sizes hold every band
            assert extent <= row_map.rows_needed(op, count, size, axis), (axis, count)


# -- the kernels on windows ---------------------------------------------------------------------


def plan_of(case: Case, dtype: DType) -> PlanFile:
    """A one-op plan of the case (runtime params: [N, H, W, C] order)."""
    quant = 0 if dtype == DType.I8 else None
    shape = (1, case.channels, case.height, case.width)
    tensors = [Tensor("x", dtype, shape, quant=quant),
               Tensor("y", dtype, (1, case.channels, *case.out_hw), quant=quant)]
    if case.kind == "resize":
        op = Op(OpType.RESIZE, "resize", (0,), (1,), params=(1, *case.scales, 1),
                mode=int(ResizeMode[case.mode.upper()]), coord_mode=int(CoordMode[case.coord.upper()]))
    else:
        top, left, bottom, right = case.pads
        op = Op(OpType.PAD, "pad", (0,), (1,), params=(0, top, left, 0, 0, bottom, right, 0),
                mode=int(PadMode[case.mode.upper()]), pad_value=0.25 if dtype == DType.F32 else 0.0,
                pad_value_q=0 if dtype == DType.F32 else Q.zero_points[0])
    flags = FileFlag.QUANTIZED if dtype == DType.I8 else FileFlag(0)
    return PlanFile("resample", tensors, [op], [Stage((0,), (0,), (1,), peak=1 << 16)], (0,), (1,),
                    quant_params=[Q], flags=flags)


def short_windows(case: Case, target: Window) -> list[Window]:
    """The rule's input window for `target` one row or column short on each side that can lose
    one; none if the target reads nothing (all constant padding along an axis)."""
    full = rule_window(case, target)
    if not reads(case, 0, *target[:2]) or not reads(case, 1, *target[2:]):
        return []
    found = []
    for axis in (0, 2):
        if full[axis + 1] - full[axis] < 2:
            continue
        for side in (0, 1):
            w = list(full)
            w[axis + side] += 1 if side == 0 else -1
            found.append((w[0], w[1], w[2], w[3]))
    return found


PARAMS = [(name, dtype) for name, case in CASES.items() for dtype in (DType.F32, DType.I8)
          if dtype == DType.F32 or case.int8_kernel]  # fmt: skip


@pytest.mark.parametrize(("name", "dtype"), PARAMS, ids=[f"{n}-{d.name}" for n, d in PARAMS])
def test_resample_kernels_compute_exactly_the_window(name: str, dtype: DType) -> None:
    case = CASES[name]
    rng = np.random.default_rng(11)
    plan = plan_of(case, dtype)
    shape = (1, case.channels, case.height, case.width)
    x = (rng.integers(-128, 128, shape).astype(np.int8) if dtype == DType.I8
         else rng.standard_normal(shape).astype(np.float32))
    oh, ow = case.out_hw
    windows = windows_to_check(oh, ow, rng)
    edges = [(0, oh, 0, 1), (0, oh, ow - 1, ow), (0, 1, 0, ow), (oh - 1, oh, 0, ow), (0, oh, 0, ow)]
    windows = list(dict.fromkeys([*windows, *edges]))
    assert len(windows) >= 40
    tiles = [(rule_window(case, w), w) for w in windows]
    targets = [(1, oh - 1, 1, ow - 1), (0, 2, 0, 3), (oh - 2, oh, ow - 3, ow), (0, oh, ow - 2, ow)]
    shorts = [(short, target) for target in targets for short in short_windows(case, target)]
    assert len(shorts) >= 4
    wholes = {}
    for build, binary in builds().items():
        for first in range(0, len(tiles), 30):
            chunk = tiles[first : first + 30]
            whole, *parts = run_tiles(plan, x, [None, *chunk], binary)
            wholes[build] = whole
            for (_, window), part in zip(chunk, parts, strict=True):
                want = np.ascontiguousarray(crop(whole, window)).tobytes()
                assert part.tobytes() == want, (build, window)
        # every row and column the rule gives is read by some output pixel: one short is refused
        for tile in shorts:
            assert_refused(plan, x, tile, binary)
    assert wholes["fast"].tobytes() == wholes["reference"].tobytes()


# -- the C twin ---------------------------------------------------------------------------------

TWIN = r"""#include <stdio.h>
#include <stdlib.h>
#include "tigris.h"
#include "tigris_bands.h"
#include "tigris_loader.h"

/* For every op i of the plan: "i h s e lo hi" for every output row range [s, e), "i w s e lo
 * hi" for every column range. */
int main(int argc, char **argv) {
    static uint64_t buf[1 << 14];
    tigris_plan_t plan;
    uint16_t i, in, out;
    int32_t s, e, lo, hi, oh, ow;
    size_t len;
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (f == NULL) return 1;
    len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    if (tigris_plan_load((const uint8_t *)buf, (uint32_t)len, &plan) != TIGRIS_OK) return 2;
    for (i = 0; i < plan.header->num_ops; i++) {
        const tigris_op_t *op = &plan.ops[i];
        in = tigris_op_inputs(&plan, op)[0];
        out = tigris_op_outputs(&plan, op)[0];
        oh = tigris_tensor_shape(&plan, &plan.tensors[out])[2];
        ow = tigris_tensor_shape(&plan, &plan.tensors[out])[3];
        for (s = 0; s < oh; s++)
            for (e = s + 1; e <= oh; e++) {
                tigris_band_input_range(&plan, op, in, s, e, &lo, &hi);
                printf("%d h %d %d %d %d\n", (int)i, (int)s, (int)e, (int)lo, (int)hi);
            }
        for (s = 0; s < ow; s++)
            for (e = s + 1; e <= ow; e++) {
                tigris_band_input_cols(&plan, op, in, s, e, &lo, &hi);
                printf("%d w %d %d %d %d\n", (int)i, (int)s, (int)e, (int)lo, (int)hi);
            }
    }
    return 0;
}
"""


def twin_plan(cases: list[Case]) -> PlanFile:
    """One stage of the cases' ops side by side, each on its own input (float32), each record as
    the emitter writes it."""
    tensors, ops = [], []
    for i, case in enumerate(cases):
        one, op = plan_of(case, DType.F32), tgr_op(case)
        record = op_record(op, {op.operands[0]: 0, op.results[0]: 1}, [])
        geometry = BandGeometry.RESIZE if case.kind == "resize" else BandGeometry.PAD
        assert (record.geometry_h, record.geometry_w) == (geometry, geometry)
        tensors += [dataclasses.replace(t, name=f"{t.name}{i}") for t in one.tensors]
        ops.append(dataclasses.replace(record, name=f"op{i}", inputs=(2 * i,), outputs=(2 * i + 1,)))
    inputs, outputs = tuple(range(0, 2 * len(cases), 2)), tuple(range(1, 2 * len(cases), 2))
    stage = Stage(tuple(range(len(ops))), inputs, outputs, peak=1 << 16)
    return PlanFile("twin", tensors, ops, [stage], inputs, outputs)


def twin_lines(cases: list[Case], tmp_path: Path) -> list[str]:
    """The C twin's ranges for the cases' ops."""
    src = tmp_path / "twin.c"
    src.write_text(TWIN)
    exe = runtime_build.build("resample_twin", [*runtime_build.library_sources(), src],
                              extra_flags=(f"-I{runtime_build.RUNTIME_DIR / 'src'}",))
    (tmp_path / "plan.tgrs").write_bytes(write_plan(twin_plan(cases)))
    out = subprocess.run([str(exe), str(tmp_path / "plan.tgrs")], capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:-1]


def rule_lines(cases: list[Case]) -> list[str]:
    """The compiler's ranges for the cases' ops, as the twin prints them."""
    lines = []
    for i, case in enumerate(cases):
        op = tgr_op(case)
        row_map = RowMap.of(op)
        assert row_map is not None
        for axis, tag in ((0, "h"), (1, "w")):
            size = (case.height, case.width)[axis]
            lines += [f"{i} {tag} {s} {e} {lo} {hi}" for s, e in all_ranges(case.out_hw[axis])
                      for lo, hi in [row_map.input_range(op, s, e, size, axis)]]  # fmt: skip
    return lines


def test_runtime_band_geometry_is_the_compilers(tmp_path: Path) -> None:
    cases = list(CASES.values())
    assert twin_lines(cases, tmp_path) == rule_lines(cases)


def random_case(rng: np.random.Generator) -> Case:
    """A random resize (scales 1..4, every mode) or pad (pads -2..9 that keep at least one
    index, every mode) of a 2..9 x 2..9 map."""
    height, width = (int(v) for v in rng.integers(2, 10, 2))
    if rng.integers(0, 2):
        scales = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
        mode = str(rng.choice(["nearest", "linear"]))
        coord = str(rng.choice(["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]))
        return Case("resize", scales, mode, coord, height=height, width=width, channels=1)
    while True:
        pads = tuple(int(v) for v in rng.integers(-2, 10, 4))
        kept = (height - max(0, -pads[0]) - max(0, -pads[2]), width - max(0, -pads[1]) - max(0, -pads[3]))
        if min(kept) >= 1:
            break
    mode = str(rng.choice(["constant", "reflect", "edge"]))
    return Case("pad", mode=mode, pads=pads, height=height, width=width, channels=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(3))
def test_runtime_band_geometry_is_the_compilers_on_random_ops(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(seed)
    cases = [random_case(rng) for _ in range(40)]
    for case in cases:  # the rule is the hull of the reads for these too
        op = tgr_op(case)
        row_map = RowMap.of(op)
        assert row_map is not None
        for axis in (0, 1):
            size = (case.height, case.width)[axis]
            for s, e in all_ranges(case.out_hw[axis]):
                read = reads(case, axis, s, e)
                if read:
                    got = row_map.input_range(op, s, e, size, axis)
                    assert got == (min(read), max(read) + 1), (case, axis, s, e)
    assert twin_lines(cases, tmp_path) == rule_lines(cases)
