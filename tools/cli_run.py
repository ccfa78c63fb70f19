"""`tigris run`: execute a `.tgrs` plan on this host with the C runtime."""

from __future__ import annotations

import argparse

RUN_EPILOG = """inputs and outputs are .npy files in the ONNX model's own layout and dtype (NCHW for
most, NHWC for a channels-last TensorFlow model: the layout its ONNX inputs declare; float
for quantized models: the host quantizes inputs and dequantizes outputs).
Without --input, a fixed-seed random input is used; without --output, the outputs
are summarized (shape, range, top values).

examples:
  tigris run model.tgrs --input x.npy --output y.npy
  tigris run model.tgrs --stats                     # random input; stages, tiles, traffic
  tigris run model.tgrs -m 64K --input x.npy        # run in a 64 KiB fast arena
"""


def add_run_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    run = commands.add_parser(
        "run", help="run a .tgrs plan on this host with the C runtime",
        description="Load a .tgrs plan into the C runtime (built on first use with the system C "
        "compiler), run it once and write or summarize the outputs.",
        epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("plan", help="a .tgrs file (tigris compile)")
    run.add_argument("--input", action="append", default=[], metavar="X.npy", help="one per model input, in order")
    run.add_argument("--output", action="append", default=[], metavar="Y.npy", help="one per model output, in order")
    run.add_argument("-m", "--memory", metavar="FAST[+SLOW]", help="arena sizes (default: what the plan needs)")
    run.add_argument("--raw", action="store_true", help="keep int8 outputs quantized")
    run.add_argument("--stats", action="store_true", help="print the runtime's execution statistics")


def _inputs(args: argparse.Namespace, plan_inputs: list[tuple[str, tuple[int, ...]]]) -> list:
    import numpy as np

    from tigris.tools.budgets import BudgetError

    if not args.input:
        rng = np.random.default_rng(0)
        return [rng.standard_normal(shape).astype(np.float32) for _, shape in plan_inputs]
    if len(args.input) != len(plan_inputs):
        raise BudgetError(f"the plan takes {len(plan_inputs)} inputs, --input gave {len(args.input)}")
    arrays = []
    for path in args.input:
        try:
            arrays.append(np.load(path))
        except (OSError, ValueError) as e:
            raise BudgetError(f"cannot read input '{path}': {e}") from None
        if arrays[-1].dtype.kind not in "biuf":  # complex, strings, objects: no value to cast
            raise BudgetError(f"input '{path}' holds {arrays[-1].dtype} values: give a float or integer array")
    return arrays


def _summary(name: str, y) -> str:  # noqa: ANN001 - numpy array
    import numpy as np

    flat = np.asarray(y, dtype=np.float64).reshape(-1)
    top = np.argsort(-flat, kind="stable")[:5]
    tops = ", ".join(f"[{i}] {flat[i]:.6g}" for i in top)
    return f"{name} {'x'.join(map(str, y.shape))} {y.dtype}: min {flat.min():.6g} max {flat.max():.6g}; top {tops}"


def run_run(args: argparse.Namespace) -> str:
    import io

    import numpy as np

    from tigris.tools.budgets import BudgetError, parse_memory
    from tigris.tools.runtime_binding import RunError, run_plan, user_shape
    from tigris.tools.runtime_build import RuntimeBuildError
    from tigris.tools.user_paths import check_output, read_plan_path, write_output

    data, plan = read_plan_path(args.plan)
    fast, slow = parse_memory(args.memory, "-m") if args.memory else (0, None)
    if args.output and len(args.output) != len(plan.outputs):
        raise BudgetError(f"the plan has {len(plan.outputs)} outputs, --output gave {len(args.output)}")
    for path in args.output:
        check_output(path, "--output")
    inputs = _inputs(args, [(plan.tensors[t].name, user_shape(plan.tensors[t])) for t in plan.inputs])
    try:
        result = run_plan(data, inputs, fast=fast, slow=slow or 0, dequantize=not args.raw)
    except RunError as e:
        raise BudgetError(str(e)) from None
    except RuntimeBuildError as e:  # no C compiler, an unusable cache: the first line says which
        raise BudgetError(str(e).splitlines()[0]) from None
    lines = []
    for index, y in enumerate(result.outputs):
        name = plan.tensors[plan.outputs[index]].name
        if args.output:
            npy = io.BytesIO()
            np.save(npy, y)  # to a buffer: np.save(path) would append ".npy" to a path without it
            write_output(args.output[index], npy.getvalue(), "--output")
            lines.append(f"wrote {args.output[index]}: {name} {'x'.join(map(str, y.shape))} {y.dtype}")
        else:
            lines.append(_summary(name, y))
    if args.stats:
        lines += [f"{key} {value}" for key, value in result.stats.items()]
    return "\n".join(lines) + "\n"
