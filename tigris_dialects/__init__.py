"""Our dialects (`onnx`, `tgr`) and the ONNX importer.

`get_all_dialects` is the one registry: `tigris-opt` and the `xdsl.universe` entry
point both read it, and each factory imports its dialect only when first needed. It
includes the dialects of installed plugins (`plugins.py`, docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing this package must stay cheap: the `.tgrs` reader needs only tgr/runtime_enums
    from xdsl.context import Context
    from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def get_onnx() -> Dialect:
        from tigris.dialects.onnx.dialect import ONNX

        return ONNX

    def get_tgr() -> Dialect:
        from tigris.dialects.tgr.dialect import TGR

        return TGR

    from tigris.dialects.plugins import plugin_dialects

    core = {"onnx": get_onnx, "tgr": get_tgr}
    return {**core, **plugin_dialects(core)}


def make_context() -> Context:
    """A Context knowing xDSL's dialects (registered, loaded on first use) and ours: for scripts
    and tests that parse or print IR.

    `tgr` is loaded up front: the printer finds resource tables (weights) only among loaded
    dialects, and a module built in Python never made the parser load it."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    ctx = Context()
    for name, factory in [*xdsl_dialects().items(), *get_all_dialects().items()]:
        ctx.register_dialect(name, factory)
    ctx.load_registered_dialect("tgr")
    return ctx
