"""The ONNX package's backend test models, run the way a user runs them: `tigris compile` then
`tigris run` (both in-process through `tigris.tools.cli.main`, so the exit status, the stderr
lines and the output files are exactly the CLI's), compared with the outputs onnx ships.

Cases: every model of `onnx/backend/test/data/{pytorch-converted,pytorch-operator,simple}` with
its `test_data_set_*` folders, and the `light` models (`data/real/*/data.json` point at
`data/light/light_*.onnx`), whose inputs onnx does not ship: its backend runner makes them with
`generate_dummy_data(seed=0, random=False)` (onnx/backend/test/runner/__init__.py), reproduced
in `dummy_input`, and compares with `light_*_output_0.pb`.

An outcome is one of PASS (every output within tolerance), ERROR (compile or run refused the
model with exactly one `error:` line, exit status 1), WRONG (it ran, the numbers or shapes are
off) or CRASH (a traceback escaped, a second `error:` line, or an exit status that is neither).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

DATA_DIR = Path(onnx.__file__).resolve().parent / "backend" / "test" / "data"
KINDS = ("pytorch-converted", "pytorch-operator", "simple", "light")
BUDGET = "256M"
"""One untiled stage for every model here (the largest, vgg19, needs about 26 MB); the
conformance suite checks op semantics, the end-to-end matrix checks tiling."""
ATOL = 1e-4
"""The issue's bar: within 1e-4 of the shipped outputs (a case's own rtol/atol when larger)."""

PASS, ERROR, WRONG, CRASH = "pass", "error", "wrong", "crash"


@dataclass(frozen=True)
class Case:
    kind: str
    name: str
    model: Path
    rtol: float
    atol: float
    expected: tuple[Path, ...] = ()
    """light models only: the shipped outputs (the others keep theirs in test_data_set_*)."""

    @property
    def id(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class Outcome:
    status: str
    detail: str
    """ERROR: the error line (without `error: `); WRONG: what differs; CRASH: the traceback."""
    compile_seconds: float = 0.0
    run_seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    """The `warning:` lines `tigris compile` printed."""


def cases() -> list[Case]:
    """Every case of the four kinds, sorted by id."""
    found: list[Case] = []
    for kind in KINDS[:3]:
        for folder in sorted((DATA_DIR / kind).iterdir()):
            if (folder / "model.onnx").is_file():
                rtol, atol = _tolerances(folder / "data.json")
                found.append(Case(kind, folder.name, folder / "model.onnx", rtol, atol))
    for folder in sorted((DATA_DIR / "real").iterdir()):
        meta = json.loads((folder / "data.json").read_text())
        model = DATA_DIR.parent.parent.parent.parent / meta["url"]  # url is relative to onnx's parent
        outputs = tuple(sorted(model.parent.glob(f"{model.stem}_output_*.pb")))
        found.append(Case("light", folder.name, model, meta.get("rtol", 1e-3), meta.get("atol", 1e-7), outputs))
    return sorted(found, key=lambda c: c.id)


def _tolerances(path: Path) -> tuple[float, float]:
    """onnx's loader defaults (rtol 1e-3, atol 1e-7) unless the case's data.json says otherwise."""
    if not path.is_file():
        return 1e-3, 1e-7
    meta = json.loads(path.read_text())
    return meta.get("rtol", 1e-3), meta.get("atol", 1e-7)


def dummy_input(value: onnx.ValueInfoProto) -> np.ndarray:
    """onnx's `Runner.generate_dummy_data(x, seed=0, random=False)`: a float tensor of the
    input's shape (a symbolic dim counts as 1) holding arange(n) / n."""
    shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in value.type.tensor_type.shape.dim)
    n = int(np.prod(shape))
    return (np.arange(n).reshape(shape) / n).astype(np.float32)


def data_sets(case: Case) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    """(inputs, expected outputs) per data set, in the model's input and output order."""
    if case.kind == "light":
        model = onnx.load(str(case.model), load_external_data=False)
        initializers = {t.name for t in model.graph.initializer}
        inputs = [dummy_input(v) for v in model.graph.input if v.name not in initializers]
        return [(inputs, [_tensor(p) for p in case.expected])]
    sets = []
    for folder in sorted(case.model.parent.glob("test_data_set_*")):
        inputs = [_tensor(p) for p in sorted(folder.glob("input_*.pb"), key=_index)]
        outputs = [_tensor(p) for p in sorted(folder.glob("output_*.pb"), key=_index)]
        sets.append((inputs, outputs))
    return sets


def _index(path: Path) -> int:
    return int(path.stem.rsplit("_", 1)[1])


def _tensor(path: Path) -> np.ndarray:
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return numpy_helper.to_array(tensor)


def run_cli(argv: list[str]) -> tuple[int | None, str, str]:
    """`tigris ARGV` in-process: (exit status or None if an exception escaped, stderr, traceback)."""
    from tigris.tools.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(argv)
        except BaseException:  # noqa: BLE001 - anything escaping the CLI is what we report
            return None, err.getvalue(), traceback.format_exc()
    return status, err.getvalue(), ""


def _refusal(status: int | None, stderr: str, trace: str) -> Outcome | None:
    """None when the step succeeded; else ERROR (one `error:` line, status 1) or CRASH."""
    if status == 0:
        return None
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    if status == 1 and len(errors) == 1 and not trace:
        return Outcome(ERROR, errors[0].removeprefix("error: "))
    return Outcome(CRASH, trace or f"exit status {status}, stderr:\n{stderr}")


def run_case(case: Case, workdir: Path) -> Outcome:
    """Compile the case's model, run every data set through the plan, compare."""
    plan = workdir / f"{case.name}.tgrs"
    start = time.perf_counter()
    status, stderr, trace = run_cli(["compile", str(case.model), "-m", BUDGET, "-o", str(plan)])
    compiled = time.perf_counter()
    warnings = tuple(line for line in stderr.splitlines() if line.startswith("warning: "))
    refused = _refusal(status, stderr, trace)
    if refused is not None:
        return Outcome(refused.status, refused.detail, compiled - start, 0.0, warnings)
    for index, (inputs, expected) in enumerate(data_sets(case)):
        argv = ["run", str(plan)]
        for i, x in enumerate(inputs):
            np.save(workdir / f"in{index}_{i}.npy", x)
            argv += ["--input", str(workdir / f"in{index}_{i}.npy")]
        for i in range(len(expected)):
            argv += ["--output", str(workdir / f"out{index}_{i}.npy")]
        refused = _refusal(*run_cli(argv))
        if refused is not None:
            return Outcome(refused.status, refused.detail, compiled - start, time.perf_counter() - compiled, warnings)
        got = [np.load(workdir / f"out{index}_{i}.npy") for i in range(len(expected))]
        wrong = mismatch(got, expected, case)
        if wrong:
            return Outcome(WRONG, f"data set {index}: {wrong}", compiled - start, time.perf_counter() - compiled,
                           warnings)  # fmt: skip
    return Outcome(PASS, "", compiled - start, time.perf_counter() - compiled, warnings)


def float_kinds(case: Case) -> set[str]:
    """'float64' / 'float16' if the model's inputs, outputs or initializers hold them (what the
    compiler's one warning line names)."""
    model = onnx.load(str(case.model), load_external_data=False)
    graph = model.graph
    types = {v.type.tensor_type.elem_type for v in [*graph.input, *graph.output]}
    types |= {t.data_type for t in graph.initializer}
    return {name for number, name in ((11, "float64"), (10, "float16")) if number in types}


def mismatch(got: list[np.ndarray], expected: list[np.ndarray], case: Case) -> str:
    """'' when every output matches: same shape, integers and booleans exactly, floats within
    max(1e-4, the case's atol) + the case's rtol * |expected|.

    A float64 model is computed in float32 (the compiler says so on stderr), so its expected
    outputs are compared as float32 values: pytorch-operator's float64 data is partly
    uninitialized memory (1e-316, 1e+199), whose float32 form is 0 or inf."""
    for i, (y, want) in enumerate(zip(got, expected, strict=True)):
        if want.dtype == np.float64 and y.dtype == np.float32:
            with np.errstate(over="ignore"):
                want = want.astype(np.float32)
        if y.shape != want.shape:
            return f"output {i} has shape {y.shape}, expected {want.shape}"
        if want.dtype.kind in "biu":
            if y.dtype.kind not in "biu" or not np.array_equal(y, want):
                return f"output {i} ({y.dtype}) differs from the expected {want.dtype} values"
            continue
        y64, want64 = y.astype(np.float64), want.astype(np.float64)
        same = (y64 == want64) | (np.isnan(y64) & np.isnan(want64))  # equal infinities, NaN for NaN
        with np.errstate(invalid="ignore"):
            err = np.where(same, 0.0, np.abs(y64 - want64))
        bound = max(ATOL, case.atol) + case.rtol * np.where(np.isfinite(want64), np.abs(want64), 0.0)
        if not np.all(err <= bound):  # a NaN error (NaN or inf on one side only) fails too
            return f"output {i} is off by up to {float(np.nanmax(err)):.3g} (bound {float(bound.max()):.3g})"
    return ""


def main() -> None:
    """`python test/support/onnx_conformance.py [SUBSTRING...]`: every case (or those whose id
    contains a SUBSTRING), one line each, then the counts and the refusals grouped by reason."""
    import sys
    import tempfile
    from collections import defaultdict

    chosen = [c for c in cases() if not sys.argv[1:] or any(s in c.id for s in sys.argv[1:])]
    by_status: dict[str, list[str]] = defaultdict(list)
    by_reason: dict[str, list[str]] = defaultdict(list)
    total = time.perf_counter()
    for case in chosen:
        with tempfile.TemporaryDirectory() as folder:
            outcome = run_case(case, Path(folder))
        detail = outcome.detail.strip().splitlines()[-1] if outcome.detail else ""
        print(f"{case.id:70} {outcome.status:6} {outcome.compile_seconds:6.2f}s {outcome.run_seconds:6.2f}s {detail}")
        by_status[outcome.status].append(case.id)
        if outcome.status == ERROR:
            by_reason[re.sub(r"'[^']*'", "'...'", detail)].append(case.name)
    print(f"\n{len(chosen)} cases in {time.perf_counter() - total:.1f}s: "
          + ", ".join(f"{len(ids)} {status}" for status, ids in sorted(by_status.items())))
    for reason, names in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        print(f"{len(names):3}  {reason}: {', '.join(names)}")


if __name__ == "__main__":
    main()
