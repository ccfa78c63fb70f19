"""CLI: build the float and int8 test models into a directory.

Usage: python test/models/build_models.py OUT_DIR [--only NAME ...]
       [--float-only] [--resolution N] [--prune F]
Prints one line per model: name, path, parameter count, file size.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph_builder import count_params  # noqa: E402
import zoo  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--only", nargs="+", choices=sorted(zoo.FLOAT_MODELS), metavar="NAME",
                        help=f"subset of: {', '.join(zoo.FLOAT_MODELS)}")
    parser.add_argument("--float-only", action="store_true", help="skip int8 QDQ versions")
    parser.add_argument("--resolution", type=int, default=96, help="mobilenet_v2 input resolution")
    parser.add_argument("--prune", type=float, default=0.0,
                        help="mobilenet_v2: zero this fraction of each layer's smallest weights")
    args = parser.parse_args(argv)
    zoo.FLOAT_MODELS["mobilenet_v2"] = partial(zoo.default_mobilenet, args.resolution, args.prune)
    start = time.perf_counter()
    paths = zoo.build_zoo(args.out_dir, args.only, float_only=args.float_only)
    for name, path in paths.items():
        params = count_params(onnx.load(str(path)))
        print(f"{name:24s} {path}  params={params:,}  size={path.stat().st_size / 1024:.1f} KiB")
    print(f"built {len(paths)} models in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
