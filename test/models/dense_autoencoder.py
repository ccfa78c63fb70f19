"""Fully-connected autoencoder 64 -> 32 -> 16 -> 32 -> 64 (anomaly detection).

Why: rank-2 Gemm chains (transB=1), one Linear in exporter MatMul + Add form,
and a Sigmoid output bounded to (0, 1).
"""

from __future__ import annotations

import onnx

from graph_builder import GraphBuilder


def build_dense_autoencoder(features: int = 64, seed: int = 5) -> onnx.ModelProto:
    g = GraphBuilder("dense_autoencoder", seed)
    x = g.add_input("input", (1, features))
    x = g.relu(g.gemm(x, 32))
    x = g.relu(g.gemm(x, 16))
    x = g.relu(g.matmul_add(x, 32))
    recon = g.unary("Sigmoid", g.gemm(x, features, gain=1.0))
    return g.build({"reconstruction": recon}, doc="Dense autoencoder")
