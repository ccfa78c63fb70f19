"""Band geometry keywords for hand-written op records (`Op(..., **WINDOW)`).

The emitter writes each op's `geometry_h` / `geometry_w` from its traits (emit/tgrs/op_geometry.py);
a test that writes records by hand states them the way the emitter would, the same along H and W
unless the test says otherwise. An op without them is `NONE` on both axes: never tiled.
"""

from __future__ import annotations

from tigris.emit.tgrs.enums import BandGeometry


def both(geometry: BandGeometry) -> dict[str, BandGeometry]:
    """`geometry` along H and W."""
    return {"geometry_h": geometry, "geometry_w": geometry}


SAME = both(BandGeometry.SAME)  # pointwise, channel-wise
WINDOW = both(BandGeometry.WINDOW)  # conv, depthwise, pools: the record's kernel/stride/dilation/pads
GLOBAL = both(BandGeometry.GLOBAL)  # global pools
PAD = both(BandGeometry.PAD)
RESIZE = both(BandGeometry.RESIZE)
