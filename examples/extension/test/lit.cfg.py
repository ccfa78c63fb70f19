"""lit configuration of the example plugin's FileCheck tests: the installed `tigris-opt`,
`xdsl-opt` and `filecheck` (on PATH after `pip install -e '.[test]' -e examples/extension`)."""

import os

import lit.formats

config.name = "tigris-ext-example"  # noqa: F821 (lit injects `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir", ".onnxtxt"]  # noqa: F821
config.environment["PATH"] = os.environ.get("PATH", "")  # noqa: F821
