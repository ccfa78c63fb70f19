"""lit configuration: every .mlir/.onnxtxt file under test/filecheck runs with the
installed `tigris-opt` and the Python `filecheck` (both on PATH after `pip install -e .[test]`)."""

import os
import sys

import lit.formats

config.name = "TiGrIS"  # noqa: F821 (lit injects `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821 (internal shell: `not`, pipes)
config.suffixes = [".mlir", ".onnxtxt"]  # noqa: F821
config.excludes = ["Inputs"]  # noqa: F821
config.environment["PATH"] = os.environ.get("PATH", "")  # noqa: F821
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "filecheck", "Inputs")))  # noqa: F821
config.substitutions.append(("%python", sys.executable))  # noqa: F821
