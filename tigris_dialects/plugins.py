"""Plugins: what another package adds to TiGrIS without forking it (docs/extending.md).

A package exposes one `TigrisPlugin` under the `tigris.plugins` entry-point group:

    [project.entry-points."tigris.plugins"]
    ext = "tigris_ext_example:PLUGIN"

Every part is a factory called on first use, so discovering the plugins imports only the
module holding each `TigrisPlugin`. The core reads them here and nowhere else:
`get_all_dialects` / `get_all_passes` (and so tigris-opt and the `xdsl.universe` entry
point) add `dialects` and `passes`; the `convert-plugin-ops` pass of tigris-normalize runs
`normalize_patterns`; `make_interpreter` registers `interpreter_functions`; the host
runtime that `tigris run` builds compiles `runtime_sources` and tries `runtime_kernel`
before the reference kernels. `EXTENSION_OP_TYPES`, the op types a plugin's ops may declare,
is re-exported from the one definition of the runtime's op codes (`tgr/runtime_enums.py`).

A plugin that cannot be loaded, or whose part fails when first used, raises `PluginError`
naming the plugin: one line on the command line, not a traceback.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typing_extensions import TypeVar
from xdsl.utils.exceptions import DiagnosticException

from tigris.dialects.tgr.runtime_enums import EXTENSION_OP_TYPES

__all__ = [
    "ENTRY_POINT_GROUP", "EXTENSION_OP_TYPES", "PluginError", "TigrisPlugin", "installed_plugins",
    "interpreter_functions", "normalize_patterns", "plugin_dialects", "plugin_passes", "runtime_parts",
]  # fmt: skip

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from xdsl.interpreter import InterpreterFunctions
    from xdsl.ir import Dialect
    from xdsl.passes import ModulePass
    from xdsl.pattern_rewriter import RewritePattern

ENTRY_POINT_GROUP = "tigris.plugins"
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
T = TypeVar("T")


class PluginError(DiagnosticException):
    """A plugin failed to load or to provide a part (the message is one line naming it)."""


@dataclass(frozen=True, eq=False)
class TigrisPlugin:
    """The parts one plugin adds; every one is optional.

    - `dialects`: dialect name -> factory returning the `Dialect` (like `get_all_dialects`).
    - `passes`: pass name -> factory returning the `ModulePass` class (like `get_all_passes`).
    - `normalize_patterns`: factory returning `RewritePattern`s that turn `onnx` ops (typed,
      or `onnx.generic` with an `op_type`) into the plugin's runtime ops; `convert-plugin-ops`
      runs them, after the thirteen normalizations and before `check-legal`.
    - `interpreter_functions`: factory returning xDSL `InterpreterFunctions` classes (with
      `@register_impls`) implementing the plugin's ops for the reference interpreter.
    - `runtime_sources`: factory returning the C99 files of the plugin's kernels.
    - `runtime_kernel`: the C name of a `tigris_kernel_fn` in those files that runs the
      plugin's op types and returns `TIGRIS_KERNEL_ERR_UNSUPPORTED` for any other op.
    """

    dialects: Mapping[str, Callable[[], Dialect]] = field(default_factory=dict)
    passes: Mapping[str, Callable[[], type[ModulePass]]] = field(default_factory=dict)
    normalize_patterns: Callable[[], Sequence[RewritePattern]] | None = None
    interpreter_functions: Callable[[], Sequence[type[InterpreterFunctions]]] | None = None
    runtime_sources: Callable[[], Sequence[str | Path]] | None = None
    runtime_kernel: str | None = None

    def __post_init__(self) -> None:
        for part in ("dialects", "passes"):
            entries = getattr(self, part)
            if not isinstance(entries, Mapping):
                raise TypeError(f"{part} must map names to factories, not {type(entries).__name__}")
            for name, factory in entries.items():
                if not isinstance(name, str) or not callable(factory):
                    raise TypeError(f"{part}: entry {name!r} must be a name and a factory")
        for part in ("normalize_patterns", "interpreter_functions", "runtime_sources"):
            value = getattr(self, part)
            if value is not None and not callable(value):
                raise TypeError(f"{part} must be a factory (a function taking no arguments)")
        if self.runtime_kernel is not None and not _C_IDENTIFIER.fullmatch(self.runtime_kernel):
            raise ValueError(f"runtime_kernel {self.runtime_kernel!r} is not a C identifier")
        if (self.runtime_kernel is None) != (self.runtime_sources is None):
            raise ValueError("runtime_kernel and runtime_sources go together: the kernel is in the sources")


def _one_line(e: BaseException) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def _entry_points() -> Iterable[EntryPoint]:
    from importlib.metadata import entry_points

    return entry_points(group=ENTRY_POINT_GROUP)


@functools.cache
def installed_plugins() -> dict[str, TigrisPlugin]:
    """The installed plugins by entry-point name, in name order (loaded once per process)."""
    plugins: dict[str, TigrisPlugin] = {}
    values: dict[str, str] = {}
    for ep in sorted(_entry_points(), key=lambda e: (e.name, e.value)):
        if ep.name in values:
            if values[ep.name] == ep.value:
                continue  # the same distribution seen twice on sys.path (an editable install's egg-info)
            raise PluginError(
                f"TiGrIS plugin '{ep.name}' is registered twice ({values[ep.name]} and {ep.value})"
            )
        try:
            plugin = ep.load()
        except Exception as e:
            raise PluginError(f"TiGrIS plugin '{ep.name}' ({ep.value}) failed to load: {_one_line(e)}") from e
        if not isinstance(plugin, TigrisPlugin):
            raise PluginError(
                f"TiGrIS plugin '{ep.name}' ({ep.value}) is a {type(plugin).__name__}, not a TigrisPlugin"
            )
        plugins[ep.name] = plugin
        values[ep.name] = ep.value
    return plugins


def _guarded(plugin: str, what: str, factory: Callable[[], T]) -> Callable[[], T]:
    """`factory`, with any failure turned into a PluginError naming the plugin and the part."""

    def load() -> T:
        try:
            return factory()
        except PluginError:
            raise
        except Exception as e:
            raise PluginError(f"TiGrIS plugin '{plugin}': {what} failed to load: {_one_line(e)}") from e

    return load


def _named_parts(kind: str, noun: str, core: Iterable[str]) -> dict[str, Callable[[], Any]]:
    taken = {name: "TiGrIS" for name in core}
    out: dict[str, Callable[[], Any]] = {}
    for plugin_name, plugin in installed_plugins().items():
        for name, factory in getattr(plugin, kind).items():
            if name in taken:
                raise PluginError(
                    f"TiGrIS plugin '{plugin_name}': {noun} '{name}' is already defined by {taken[name]}"
                )
            taken[name] = f"plugin '{plugin_name}'"
            out[name] = _guarded(plugin_name, f"{noun} '{name}'", factory)
    return out


def plugin_dialects(core: Iterable[str]) -> dict[str, Callable[[], Dialect]]:
    """Every plugin's dialect factories; a name in `core` or in two plugins is an error."""
    return _named_parts("dialects", "dialect", core)


def plugin_passes(core: Iterable[str]) -> dict[str, Callable[[], type[ModulePass]]]:
    """Every plugin's pass factories; a name in `core` or in two plugins is an error."""
    return _named_parts("passes", "pass", core)


def _collected(part: str) -> list[Any]:
    out: list[Any] = []
    for plugin_name, plugin in installed_plugins().items():
        factory = getattr(plugin, part)
        if factory is not None:
            out.extend(_guarded(plugin_name, part, factory)())
    return out


def normalize_patterns() -> list[RewritePattern]:
    """Every plugin's normalization patterns, in plugin name order."""
    return _collected("normalize_patterns")


def interpreter_functions() -> list[type[InterpreterFunctions]]:
    """Every plugin's `InterpreterFunctions` classes, in plugin name order."""
    return _collected("interpreter_functions")


def runtime_parts() -> tuple[list[Path], list[str]]:
    """The C sources and kernel names of every plugin with a runtime part, in plugin name order."""
    sources: list[Path] = []
    kernels: list[str] = []
    for plugin_name, plugin in installed_plugins().items():
        if plugin.runtime_sources is None or plugin.runtime_kernel is None:
            continue
        paths = [Path(p) for p in _guarded(plugin_name, "runtime_sources", plugin.runtime_sources)()]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise PluginError(f"TiGrIS plugin '{plugin_name}': runtime source {missing[0]} does not exist")
        sources.extend(paths)
        kernels.append(plugin.runtime_kernel)
    if len(set(kernels)) != len(kernels):
        raise PluginError(f"two TiGrIS plugins name the same runtime_kernel: {', '.join(kernels)}")
    return sources, kernels
