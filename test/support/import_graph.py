"""The layering rule of docs/architecture.md, checked on the source: every `import` statement
of every module (at the top, inside functions and under `TYPE_CHECKING` alike), read with
`ast`, nothing imported or run.

    dialects <- transforms <- emit <- tools      a layer imports only itself and those left of it
    runtime                                      C and package data: no Python layer imports it
                                                 but tools (which build and call it)

and three narrower rules:

- emit does not import `tigris.transforms.lower`: what emission needs from lowering is an
  attribute in the IR;
- the lowering passes and the tools do not import `tigris.dialects.interpreter`, but for the
  interpret path (`tigris.tools.interpret`) and the modules of `INTERPRETER_ALLOWED`, the
  offenders of the day, listed by name so the list can only shrink (an entry that no longer
  imports the interpreter is reported too);
- no module imports another module's private name (`from x import _y`).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

LAYERS = ("tigris.dialects", "tigris.transforms", "tigris.emit", "tigris.tools")
RUNTIME = "tigris.runtime"
INTERPRETER = "tigris.dialects.interpreter"
INTERPRETER_FREE = ("tigris.transforms.lower", "tigris.tools")
INTERPRET_PATH = frozenset({"tigris.tools.interpret"})
INTERPRETER_ALLOWED: frozenset[str] = frozenset()
"""Lowering or tool modules allowed to import the interpreter anyway: none (the int8 arithmetic they
used lives in tigris.dialects.quant)."""
EMIT_MAY_NOT = "tigris.transforms.lower"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module, or a module's name (`from m import n`: m.n)
    line: int
    private: str | None = None  # `from m import _n`: the private name


def package_dirs(repo: Path) -> dict[str, Path]:
    """Import package -> folder, as pyproject.toml's `[tool.setuptools.package-dir]` maps them."""
    config = tomllib.loads((repo / "pyproject.toml").read_text())
    return {name: repo / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


def _modules(packages: Mapping[str, Path]) -> Iterator[tuple[str, Path]]:
    for package, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            yield ".".join((package, *parts)), path


def _imports(module: str, path: Path) -> Iterator[Import]:
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, up level - 1 more
                anchor = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                name = alias.name
                private = name if name.startswith("_") and not name.startswith("__") else None
                yield Import(module, f"{base}.{alias.name}", node.lineno, private)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _layer(name: str) -> int | None:
    return next((i for i, layer in enumerate(LAYERS) if _within(name, layer)), None)


def _rule_broken(imp: Import) -> str | None:
    """Why `imp` breaks a rule other than the interpreter allow-list, or None."""
    source, target = _layer(imp.module), _layer(imp.target)
    if _within(imp.target, RUNTIME) and not _within(imp.module, "tigris.tools"):
        return f"only tools may use {RUNTIME}"
    if source is not None and target is not None and target > source:
        return f"{LAYERS[source]} may not import {LAYERS[target]}"
    if _within(imp.module, "tigris.emit") and _within(imp.target, EMIT_MAY_NOT):
        return "emit reads the IR, not the lowering passes"
    if imp.private is not None and not _within(imp.target, imp.module) and imp.target.startswith("tigris."):
        return f"imports the private name {imp.private}"
    return None


def _needs_interpreter(imp: Import) -> bool:
    return (
        _within(imp.target, INTERPRETER)
        and any(_within(imp.module, p) for p in INTERPRETER_FREE)
        and imp.module not in INTERPRET_PATH
    )


def violations(
    packages: Mapping[str, Path], interpreter_allowed: frozenset[str] = INTERPRETER_ALLOWED
) -> list[str]:
    """Every broken rule, one line each (`module:line: imports target: why`)."""
    out: list[str] = []
    importing_interpreter: set[str] = set()
    for module, path in _modules(packages):
        for imp in _imports(module, path):
            if not imp.target.startswith("tigris"):
                continue
            why = _rule_broken(imp)
            if why is None and _needs_interpreter(imp):
                importing_interpreter.add(module)
                allowed = module in interpreter_allowed
                why = None if allowed else "lowering and tools do not use the interpreter"
            if why is not None:
                out.append(f"{module}:{imp.line}: imports {imp.target}: {why}")
    for module in sorted(interpreter_allowed - importing_interpreter):
        out.append(f"{module}: allowed to import the interpreter but no longer does: drop it from the list")
    return out
