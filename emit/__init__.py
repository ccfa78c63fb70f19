"""Back end: the `.tgrs` format (records, writer, reader), reports and plots.

`get_all_targets` is the one registry of `-t` targets.
"""

from collections.abc import Callable

from xdsl.utils.target import Target


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Text targets for any xDSL driver. The binary `tgrs` target (tgrs/target.py) is
    registered by tigris-opt alone, the one driver that writes a target's output as bytes."""
    return {}
