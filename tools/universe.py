"""The `xdsl.universe` entry point: plain `xdsl-opt` sees our dialects, passes and targets.

`tigris-opt` reaches the same registries through xDSL's multiverse, so nothing is
registered twice. The registries include the installed TiGrIS plugins' dialects and
passes, so a plugin registers no `xdsl.universe` entry point of its own (xDSL would
report its dialect as defined twice).
"""

from xdsl.universe import Universe

from tigris.dialects import get_all_dialects
from tigris.emit import get_all_targets
from tigris.transforms import get_all_passes

TIGRIS_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
