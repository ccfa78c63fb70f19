"""Passes: normalization (`normalize/`), planning (`plan/`), lowering (`lower/`).

`get_all_passes` is the one registry, read by `tigris-opt` and by the
`xdsl.universe` entry point; each factory imports its pass lazily.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {}
