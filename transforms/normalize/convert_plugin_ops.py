"""convert-plugin-ops: installed plugins turn the `onnx` ops they support into their own ops.

Each plugin's `normalize_patterns` (`tigris.dialects.plugins`, docs/extending.md) run
together to a fixed point. The pass sits after the thirteen normalizations and before
`check-legal`, which then accepts the plugins' ops (they carry a `RuntimeOp` trait). With
no plugin installed, or none matching, the module is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tigris.dialects.plugins import normalize_patterns
from tigris.transforms.rewriting import apply_patterns


@dataclass(frozen=True)
class ConvertPluginOpsPass(ModulePass):
    name = "convert-plugin-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = normalize_patterns()
        if patterns:
            apply_patterns(op, *patterns)
