"""The normalization passes: ONNX-shaped IR -> the runtime's op set (`tgr`).

One module per pass; the order lives in `tigris.transforms.pipelines`.
"""
