"""An example TiGrIS plugin: the `ext` dialect with two ops the core does not have.

`ext.thresholded_relu` is ONNX ThresholdedRelu, y = x if x > alpha else 0, on float32;
`ext.lp_pool` is ONNX LpPool (2-D, p 1 or 2, float32), a windowed op. The compiler imports
both ONNX ops as `onnx.generic` (it has no typed op and no runtime op for them); this package
adds them, end to end, without editing TiGrIS:

- `dialect.py`: the ops, with the traits the planner and the emitter read (a pointwise tile
  category; a spatial one with its window, the band geometry the runtime tiles it by; runtime
  op types 130 and 131) and the record fields their kernels read;
- `patterns.py`: `onnx.generic` ThresholdedRelu / LpPool -> `ext.thresholded_relu` /
  `ext.lp_pool`, run by TiGrIS's `convert-plugin-ops` pass in tigris-normalize;
- `interpreter.py`: their numpy implementations for `tigris-opt --interpret`;
- `kernels/ext_kernels.c`: their C kernels, `ext_kernel`, a `tigris_kernel_fn` that `tigris run`
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
    from tigris_ext_example.patterns import ConvertLpPool, ConvertThresholdedRelu

    return [ConvertThresholdedRelu(), ConvertLpPool()]


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
