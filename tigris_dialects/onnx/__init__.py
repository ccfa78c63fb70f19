"""The `onnx` dialect (faithful ONNX) and the importer that produces it."""
