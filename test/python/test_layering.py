"""The import graph keeps docs/architecture.md's layering (test/support/import_graph.py checks it
statically), and the check fails on each kind of forbidden import planted in a small tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import INTERPRETER_ALLOWED, package_dirs, violations

REPO = Path(__file__).resolve().parents[2]


def test_the_packages_keep_the_layering() -> None:
    packages = package_dirs(REPO)
    layers = {"tigris.dialects", "tigris.transforms", "tigris.emit", "tigris.tools", "tigris.runtime"}
    assert set(packages) == layers
    assert violations(packages) == []


def test_the_interpreter_allow_list_is_of_existing_modules() -> None:
    """An entry must name a module that exists (a renamed one would pass unnoticed otherwise)."""
    packages = package_dirs(REPO)
    for module in INTERPRETER_ALLOWED:
        package = next(p for p in packages if module.startswith(p + "."))
        assert (packages[package] / (module[len(package) + 1 :].replace(".", "/") + ".py")).is_file(), module


def tree(root: Path, files: dict[str, str]) -> dict[str, Path]:
    """A small source tree with the four layers and the runtime, holding `files` (path: text)."""
    packages = {}
    for package, folder in (("tigris.dialects", "d"), ("tigris.transforms", "t"), ("tigris.emit", "e"),
                            ("tigris.tools", "o"), ("tigris.runtime", "r")):  # fmt: skip
        (root / folder).mkdir()
        (root / folder / "__init__.py").write_text("")
        packages[package] = root / folder
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return packages


ALLOWED_EDGES = {
    "t/lower/p.py": "from tigris.dialects.tgr import ops\nfrom tigris.transforms.plan import graph\n",
    "e/x.py": "import tigris.transforms.plan.graph\nfrom tigris.emit import y\n",
    "o/cli.py": "def run():\n    from tigris.emit.x import f\n    from tigris.runtime import src\n",
    "o/interpret.py": "from tigris.dialects.interpreter import run_module\n",
    "t/normalize/fold.py": "from tigris.dialects.interpreter import make_interpreter\n",
    "d/pkg/__init__.py": "from tigris.dialects.pkg.impl import _helper\n",  # a package's own module
}


def test_allowed_imports_pass(tmp_path: Path) -> None:
    assert violations(tree(tmp_path, ALLOWED_EDGES), frozenset()) == []


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("d/a.py", "from tigris.emit.tgrs import enums\n",
         "tigris.dialects.a:1: imports tigris.emit.tgrs.enums: tigris.dialects may not import tigris.emit"),
        ("t/b.py", "import os\n\ndef f():\n    import tigris.tools.cli\n",
         "tigris.transforms.b:4: imports tigris.tools.cli: tigris.transforms may not import tigris.tools"),
        ("d/c.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tigris.transforms import p\n",
         "tigris.dialects.c:3: imports tigris.transforms.p: "
         "tigris.dialects may not import tigris.transforms"),
        ("e/d.py", "from tigris.transforms.lower.layout_nhwc import STORED\n",
         "tigris.emit.d:1: imports tigris.transforms.lower.layout_nhwc.STORED: "
         "emit reads the IR, not the lowering passes"),
        ("e/f.py", "from tigris.runtime import sources\n",
         "tigris.emit.f:1: imports tigris.runtime.sources: only tools may use tigris.runtime"),
        ("o/g.py", "from tigris.tools.cli import _headline\n",
         "tigris.tools.g:1: imports tigris.tools.cli._headline: imports the private name _headline"),
        ("t/lower/h.py", "from tigris.dialects.interpreter.int8_params import int8_params\n",
         "tigris.transforms.lower.h:1: imports tigris.dialects.interpreter.int8_params.int8_params: "
         "lowering and tools do not use the interpreter"),
        ("o/run.py", "def quantize():\n    from tigris.dialects import interpreter\n",
         "tigris.tools.run:2: imports tigris.dialects.interpreter: "
         "lowering and tools do not use the interpreter"),
        ("t/lower/i.py", "from ..plan import _private\n",
         "tigris.transforms.lower.i:1: imports tigris.transforms.plan._private: "
         "imports the private name _private"),
    ],
)  # fmt: skip
def test_a_planted_forbidden_import_fails(tmp_path: Path, path: str, text: str, expected: str) -> None:
    assert violations(tree(tmp_path, {**ALLOWED_EDGES, path: text}), frozenset()) == [expected]


def test_the_allow_list_admits_its_modules_and_reports_stale_entries(tmp_path: Path) -> None:
    files = {**ALLOWED_EDGES, "t/lower/quant.py": "from tigris.dialects.interpreter import int8_params\n"}
    packages = tree(tmp_path, files)
    assert violations(packages, frozenset({"tigris.transforms.lower.quant"})) == []
    stale = frozenset({"tigris.transforms.lower.quant", "tigris.transforms.lower.p"})
    assert violations(packages, stale) == [
        "tigris.transforms.lower.p: allowed to import the interpreter but no longer does: drop it from the list"
    ]
