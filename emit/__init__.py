"""Back end: the `.tgrs` format (records, writer, reader) and the `-t` targets.

`get_all_targets` is the one registry of `-t` targets: the `xdsl.universe` entry point
(tools/universe.py) hands it to every xDSL driver, `xdsl-opt` and `tigris-opt` alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # xdsl.utils.target loads xDSL's IR core: `tigris run`/`inspect` need only the reader
    from xdsl.utils.target import Target


def _tgrs() -> type[Target]:
    from tigris.emit.tgrs.target import TgrsTarget

    return TgrsTarget


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Target name -> factory of the `Target` class, imported on first use. `tgrs` writes a
    binary file through its `file` option (tgrs/target.py), so it works under any driver."""
    return {"tgrs": _tgrs}
