"""Lowering passes: what the runtime needs besides the plan, written into the IR for the emitter.

    layout-nhwc                     weights permuted to the runtime's layouts (`weight_layout` on the op)
    compute-quant-scales            int8 requantization scales of dense ops, lookup tables, clamps, pad values
    group-weights{compress budget}  weights grouped into per-stage blocks, LZ4 sizes, fast_reserved

They run after `tigris-plan`, in this order (group-weights measures the final weight bytes).
`weight_reserve` says how much of the arena LZ4 blocks may take beside a plan; `lz4_budget` picks
the budget tigris-compile plans at when it compresses.
"""
