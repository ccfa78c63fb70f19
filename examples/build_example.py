"""Regenerate the shipped example model ``examples/mobilenet_v2_96.onnx``.

Why: the example must be reproducible from source. It reuses the test-suite
MobileNetV2 builder (``test/models`` is a plain folder, so it is put on
``sys.path``). Width 0.2 with a 256-channel last conv keeps the float32 file
under 600 KB; the build is seeded, so the bytes are identical every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "test" / "models"))

from graph_builder import count_params  # noqa: E402
from mobilenet_v2 import build_mobilenet_v2  # noqa: E402
from zoo import save  # noqa: E402

OUTPUT = HERE / "mobilenet_v2_96.onnx"


def main() -> int:
    model = build_mobilenet_v2(resolution=96, width=0.2, num_classes=10, last_channels=256)
    save(model, OUTPUT)
    size = OUTPUT.stat().st_size
    print(f"{OUTPUT}  params={count_params(model):,}  size={size / 1000:.1f} KB")
    return 0 if size < 600_000 else 1


if __name__ == "__main__":
    raise SystemExit(main())
