"""An example TiGrIS plugin: the `ext` dialect with one op the core does not have.

`ext.thresholded_relu` is ONNX ThresholdedRelu, y = x if x > alpha else 0, on float32. The
compiler imports the ONNX op as `onnx.generic` (it has no typed op and no runtime op for it);
this package adds one, end to end, without editing TiGrIS:

- `dialect.py`: the op, with the traits the planner and the emitter read (pointwise tile
  category, runtime op type 130) and the record fields its kernel reads;
- `patterns.py`: `onnx.generic` ThresholdedRelu -> `ext.thresholded_relu`,
  run by TiGrIS's `convert-plugin-ops` pass in tigris-normalize;
- `interpreter.py`: its numpy implementation for `tigris-opt --interpret`;
- `kernels/ext_kernels.c`: its C kernel, `ext_kernel`, a `tigris_kernel_fn` that `tigris run`
  compiles in and tries before the reference kernels.

`PLUGIN` is what the `tigris.plugins` entry point in pyproject.toml names. Every part is a
factory, so finding the plugin imports nothing but this module.
"""

from __future__ import annotations

from pathlib import Path

from tigris.dialects.plugins import TigrisPlugin


def _dialect():  # -> xdsl.ir.Dialect
    from tigris_ext_example.dialect import EXT

    return EXT


def _patterns():  # -> list[RewritePattern]
    from tigris_ext_example.patterns import ConvertThresholdedRelu

    return [ConvertThresholdedRelu()]


def _interpreter_functions():  # -> list[type[InterpreterFunctions]]
    from tigris_ext_example.interpreter import ExtFunctions

    return [ExtFunctions]


def _runtime_sources() -> list[Path]:
    return [Path(__file__).resolve().parent / "kernels" / "ext_kernels.c"]


PLUGIN = TigrisPlugin(
    dialects={"ext": _dialect},
    normalize_patterns=_patterns,
    interpreter_functions=_interpreter_functions,
    runtime_sources=_runtime_sources,
    runtime_kernel="ext_kernel",
)
