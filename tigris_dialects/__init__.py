"""Our dialects (`onnx`, `tgr`) and the ONNX importer.

`get_all_dialects` is the one registry: `tigris-opt` and the `xdsl.universe` entry
point both read it, and each factory imports its dialect only when first needed. It
includes the dialects of installed plugins (`plugins.py`, docs/extending.md).
"""

from collections.abc import Callable

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


def make_context():  # -> xdsl.context.Context (imported lazily: keeps start-up cheap)
    """A Context knowing xDSL's dialects and ours: for scripts and tests that parse or print IR.

    `tgr` is loaded up front: the printer finds resource tables (weights) only among loaded
    dialects, and a module built in Python never made the parser load it."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    ctx = Context()
    for name, factory in [*xdsl_dialects().items(), *get_all_dialects().items()]:
        ctx.register_dialect(name, factory)
    ctx.load_registered_dialect("tgr")
    return ctx
