"""An op's band geometry along H and W, and the window fields it implies, read from its traits.

The runtime computes which input rows (and, in 2-D tiles, columns) a band of an op's output reads
from the op record alone (tigris_bands.c switches on `geometry_h` / `geometry_w`, never on the
op type), so the emitter writes here what the planner reads from the same traits
(`transforms/plan/geometry.py`): along each spatial axis (0: H, 1: W)

- an op whose `TileCategory` is not tileable along the axis (structural, dense, a concat joining
  or a slice/gather picking along it) is `NONE`: never cut there;
- a `SpatialWindow` with a window along the axis is `WINDOW` (its kernel, stride, dilation and
  pads are written into the record's fields along that axis: a plugin op that declares a window
  needs no `runtime_fields` for them), or `GLOBAL` for a global window;
- a `RowMap` is the rule the runtime has for it: `PadRows` is `PAD`, `ResizeRows` is `RESIZE`;
- anything else (pointwise, channel-wise, a window op along an axis its input does not have)
  reads the same indices: `SAME`.

This is the order `geometry.input_range` applies them in, so the runtime's bands are the
planner's.
"""

from __future__ import annotations

from xdsl.ir import Operation

from tigris.dialects.tgr.record_fields import Fields, RecordFieldError
from tigris.dialects.tgr.traits import PadRows, ResizeRows, RowMap, SpatialWindow, TileCategory, Window
from tigris.emit.tgrs.enums import BandGeometry

_ROW_MAP_RULES: tuple[tuple[type[RowMap], BandGeometry], ...] = (
    (PadRows, BandGeometry.PAD),
    (ResizeRows, BandGeometry.RESIZE),
)
"""The row maps the runtime has a rule for (tigris_bands.c pad_range, resize_range)."""

_WINDOW_FIELDS = (
    ("kernel_h", "stride_h", "dilation_h", "pad_top", "pad_bottom"),
    ("kernel_w", "stride_w", "dilation_w", "pad_left", "pad_right"),
)
"""The record fields of a window along H and along W, in `Window` order."""

UINT16_MAX = 0xFFFF


def _row_map_geometry(row_map: RowMap) -> BandGeometry:
    for cls, geometry in _ROW_MAP_RULES:
        if isinstance(row_map, cls):
            return geometry
    raise RecordFieldError(
        f"row map {type(row_map).__name__}: the runtime bands only pad and resize row maps "
        "(PadRows, ResizeRows)"
    )


def band_geometry(op: Operation, axis: int) -> tuple[BandGeometry, Window | None]:
    """The op's geometry along spatial axis `axis` (0: H, 1: W) and, for WINDOW, its window."""
    if not TileCategory.of(op, axis).tileable:
        return BandGeometry.NONE, None
    trait = op.get_trait(SpatialWindow)
    window = trait.window_along(op, axis) if trait is not None else None
    if trait is not None and window is not None:
        return (BandGeometry.GLOBAL, None) if trait.global_window else (BandGeometry.WINDOW, window)
    row_map = RowMap.of(op)
    if row_map is not None:
        return _row_map_geometry(row_map), None
    return BandGeometry.SAME, None


def _window_values(window: Window, axis: int) -> Fields:
    """The record fields of `window` along `axis`, each checked against its uint16 field."""
    values = (window.kernel, window.stride, window.dilation, window.pad_begin, window.pad_end)
    fields: Fields = {}
    for name, value in zip(_WINDOW_FIELDS[axis], values, strict=True):
        low = 0 if name.startswith("pad") else 1
        if not low <= value <= UINT16_MAX:
            raise RecordFieldError(f"window {name} {value} is outside {low}..{UINT16_MAX}")
        fields[name] = value
    return fields


def geometry_fields(op: Operation) -> Fields:
    """`geometry_h`, `geometry_w` and the window fields of every axis the op has a window along."""
    fields: Fields = {}
    for axis, key in enumerate(("geometry_h", "geometry_w")):
        geometry, window = band_geometry(op, axis)
        fields[key] = geometry
        if window is not None:
            fields |= _window_values(window, axis)
    return fields


def check_agrees(geometry: Fields, own: Fields) -> None:
    """The op's own `runtime_fields` may repeat a window field, never contradict its SpatialWindow:
    the runtime bands by these fields and the kernel computes by them."""
    for name, value in geometry.items():
        if name in own and own[name] != value:
            msg = f"runtime_fields() sets {name} {own[name]}, its band geometry gives {value}"
            raise RecordFieldError(msg)
