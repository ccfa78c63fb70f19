// RUN: tigris-opt %s --split-input-file -p 'tile-chains{budget=1000 align=16}' | filecheck %s
// RUN: tigris-opt %s --split-input-file -p 'tile-chains{budget=600 align=16}' | filecheck %s --check-prefix=B600

// tile-chains (spec/tiling.md, "Chain tiling"): consecutive over-budget stages link
// when both are tileable, the first has exactly one output, that tensor is consumed
// only by the next stage, is its only input, and has rows. A run of linked stages
// shares one `#tgr.tile_plan` whose `chain` is the chain's number; the tile height is
// the largest output height whose bands fit in every stage of the chain (binary
// search), the rows of each tensor being back-propagated from the last stage's output.
// Other over-budget tileable stages are tiled on their own (chain = -1), and so are the
// stages of a chain whose one-row band does not fit when tiling them one by one does; a
// stage no band of which fits stays untiled (the last case). Then each run of linked stages,
// fitting ones included, is regrouped for the least slow traffic (`chain_runs`): a chain may
// take a stage that fits untiled when that keeps its tensors out of slow memory, within the
// pass's `max_recompute` (percent of the MACs; default 10) of extra halo recompute.
// Stages are written by hand (the pass reads `tgr.stages` and recomputes the rest).
// f32 1x2x8x8 tensors: 512 bytes, 64 bytes per row; no alignment padding at 16.
// Rows of a window op: out rows r need (r - 1) * stride + eff_kernel input rows, at
// most H = 8 (the exact count; the spec's r * stride + (k - 1) * d is the same at stride 1).

// Three 3x3 convs (pads 1), one stage each (each {input, output} = 1024 > 1000), all
// linked: one chain. RF = 1 + 2 + 2 + 2 = 7, halo 6. The rows each tile holds, back from
// its output rows [s, e): one more row each side per conv, clamped to [0, 8) (an edge tile
// holds fewer). Peak of the chain = max over its stages and tiles:
//   h = 5, tiles [0, 5) and [5, 8): tile 0: c3 [0, 5), c2 [0, 6), c1 [0, 7), x [0, 8):
//          stage 0 c1 7 + x 8 = 15 rows * 64 = 960, stage 1 6 + 7 = 832, stage 2 5 + 6 = 704;
//          tile 1: x [2, 8), c1 [3, 8): stage 0 6 + 5 = 704 -> 960 <= 1000
//   h = 6: tile 0: c1 [0, 8), x [0, 8): 16 rows = 1024 > 1000
//   -> tile_h 5, num_tiles 2 (the bound h + 6 rows of x would have stopped at h = 3)
// Budget 600: the chain's one-row band does not fit (h = 1: stage 0 holds c1 5 rows and
//   x 7 rows = 12 * 64 = 768 > 600), but each conv tiled alone does (as partition-spatial:
//   tile_h = floor(600 * 8 / 1024) - 2 = 2, band 4 + 2 rows = 384): no chain.
// CHECK-LABEL: func.func @main(%chain: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 6, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = chain, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 6, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 1024, inputs = [2], outputs = [3], strategy = chain, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 6, out_h = 8, peak = 960, chain = 0>>]
// B600-LABEL: func.func @main(%chain: tensor<1x2x8x8xf32>)
// B600-SAME:      tgr.stages = [
// B600-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>,
// B600-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>,
// B600-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 1024, inputs = [2], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>]
func.func @main(%chain: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 2, steps = [2, 2], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %chain, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c3 = tgr.conv %c2, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  func.return %c3 : tensor<1x2x8x8xf32>
}

// -----

// Fan-out breaks the chain: c1 = conv(x), c2 = conv(c1), y = c2 + c1.
//   stage 0 -> 1: c1 is also used by stage 2 (fan-out): no link.
//   stage 1 -> 2: stage 2 reads c1 as well as c2 (not its only input): no link.
// Each stage is tiled alone (chain = -1):
//   stages 0, 1 (conv, {in, out} = 1024, halo 2): tile_h = floor(1000 * 8 / 1024) - 2
//     = 7 - 2 = 5; ceil(8 / 5) = 2 tiles, both at an edge: tile [0, 5) holds input rows
//     [0, 6), 6 + 5 rows = 704 <= 1000 (tile [5, 8): [4, 8), 4 + 3 rows)
//   stage 2 (add, {c1, c2, y} = 1536, halo 0): tile_h = floor(8000 / 1536) - 0 = 5;
//     band: 3 * 5 rows * 64 = 960 <= 1000; 2 tiles
// CHECK-LABEL: func.func @main(%fanout: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 2, out_h = 8, peak = 704, chain = -1>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 2, out_h = 8, peak = 704, chain = -1>>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 1536, inputs = [1, 2], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 0, out_h = 8, peak = 960, chain = -1>>]
func.func @main(%fanout: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 2, steps = [2, 2], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %fanout, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %y = tgr.add %c2, %c1 : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}

// -----

// An untileable Gemm stage breaks the chain: c = conv(x), f = flatten(c), y = fc(f).
//   stage 0 (conv, 1024): tileable; stage 1 (flatten, {c, f} = 1024): structural, not
//   tileable, so no link and no tile plan (it overflows); stage 2 (fc, {f, y} = 512 + 48
//   = 560) fits: normal.
//   stage 0 alone: tile_h = 7 - 2 = 5, 2 tiles at an edge: [0, 5) holds input rows [0, 6): 704.
// CHECK-LABEL: func.func @main(%gemm: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 2, out_h = 8, peak = 704, chain = -1>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2]>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 560, inputs = [2], outputs = [3]>]
func.func @main(%gemm: tensor<1x2x8x8xf32>) -> tensor<1x10xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 2, steps = [2, 2], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %fw = tgr.weight dense<1.0> : tensor<10x128xf32>
  %c = tgr.conv %gemm, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %f = tgr.flatten %c : (tensor<1x2x8x8xf32>) -> tensor<1x128xf32>
  %y = tgr.fully_connected %f, %fw : (tensor<1x128xf32>, tensor<10x128xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// Two chains are numbered 0 and 1. r2 is also a model output, so stage 2 does not link to
// stage 3 (a chain through it is the next case); stage 1 links to it, and chain 0 takes the
// fitting stage 2 too (r1 then never leaves SRAM: 1024 bytes less traffic, no recompute, as
// its convolution is 1x1; stage 2's bands, 96h, are below stage 0's).
// Tensors: 0 x, 1 c1, 2 r1 (1x2x8x8: 512 bytes, 64 per row), 3 d, 4 r2 (1x1x8x8: 256,
// 32 per row), 5 u, 6 r3 (1x4x8x8: 1024, 128 per row).
//   stage 0 [0, 0] conv 3x3 {x, c1} = 1024 > 1000 \ linked (c1 only feeds stage 1,
//   stage 1 [1, 1] relu {c1, r1} = 1024 > 1000    /  its only input): chain 0
//   stage 2 [2, 3] 1x1 conv, relu: step 2 {r1, d} = 768, step 3 {d, r2} = 512: fits
//   stage 3 [4, 4] 1x1 conv {r2, u} = 1280 > 1000 \ linked: chain 1
//   stage 4 [5, 5] relu {u, r3} = 2048 > 1000     /
// Chain 0 (one 3x3 conv: halo 2), output tile h:
//   stage 1: r1 h + c1 h = 128h; stage 0: c1 h + x min(h + 2, 8) rows, 64 each
//   h = 7: stage 0: 7 + 8 = 15 rows = 960 <= 1000; h = 8: 16 rows = 1024 > 1000
//   -> tile_h 7, ceil(8 / 7) = 2 tiles
// Chain 1 (1x1 convs: RF 1, halo 0): stage 4: 128h + 128h = 256h; stage 3: 32h + 128h
//   -> 256h <= 1000 -> h = 3 (768); h = 4 is 1024 -> tile_h 3, 3 tiles
// CHECK-LABEL: func.func @main(%two_chains: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 7, num_tiles = 2, halo = 2, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = chain, tile = #tgr.tile_plan<tile_h = 7, num_tiles = 2, halo = 2, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 3], peak = 768, inputs = [2], outputs = [4], strategy = chain, tile = #tgr.tile_plan<tile_h = 7, num_tiles = 2, halo = 2, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 3, steps = [4, 4], peak = 1280, inputs = [4], outputs = [5], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 0, out_h = 8, peak = 768, chain = 1>>,
// CHECK-SAME:      #tgr.stage<index = 4, steps = [5, 5], peak = 2048, inputs = [5], outputs = [6], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 0, out_h = 8, peak = 768, chain = 1>>]
func.func @main(%two_chains: tensor<1x2x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>) attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 2, steps = [2, 3], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 3, steps = [4, 4], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 4, steps = [5, 5], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %down = tgr.weight dense<1.0> : tensor<1x2x1x1xf32>
  %up = tgr.weight dense<1.0> : tensor<4x1x1x1xf32>
  %c1 = tgr.conv %two_chains, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r1 = tgr.relu %c1 : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %d = tgr.conv %r1, %down : (tensor<1x2x8x8xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x8x8xf32>
  %r2 = tgr.relu %d : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %u = tgr.conv %r2, %up : (tensor<1x1x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r3 = tgr.relu %u : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r3, %r2 : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>
}

// -----

// The same graph with r2 feeding only stage 3: the run of five linked stages is regrouped for the
// least slow traffic (planner.assign_strategies, chain_runs), and one chain through the fitting
// stage 2 beats the two chains above:
//   output tile h of r3: stage 4 r3 h + u h = 256h; stage 3 u h + r2 h = 160h; stage 2 at most
//   r1 h + d h = 96h; stage 1 128h; stage 0 c1 h + x (h + 2 rows inside, 64 each).
//   h = 3: 768 (stage 4) <= 1000; h = 4: 1024 > 1000 -> tile_h 3, 3 tiles, halo 2 (one 3x3 conv).
//   Traffic: two chains load x in 7-row tiles (8 + 2 rows, 640), spill r1 (512), stage 2 loads
//   r1 and spills r2 (512 + 256), chain 1 loads r2 and spills r3 (256 + 1024): 3200 bytes. One
//   chain loads x in 3-row tiles (4 + 5 + 3 rows, 768) and spills r3 (1024): 1792 bytes. No
//   halo is recomputed (only the first conv has a window, and x is read, not computed).
// CHECK-LABEL: func.func @main(%two_chains: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 768, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 768, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 3], peak = 768, inputs = [2], outputs = [4], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 768, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 3, steps = [4, 4], peak = 1280, inputs = [4], outputs = [5], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 768, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 4, steps = [5, 5], peak = 2048, inputs = [5], outputs = [6], strategy = chain, tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 768, chain = 0>>]
func.func @main(%two_chains: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 2, steps = [2, 3], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 3, steps = [4, 4], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 4, steps = [5, 5], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %down = tgr.weight dense<1.0> : tensor<1x2x1x1xf32>
  %up = tgr.weight dense<1.0> : tensor<4x1x1x1xf32>
  %c1 = tgr.conv %two_chains, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r1 = tgr.relu %c1 : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %d = tgr.conv %r1, %down : (tensor<1x2x8x8xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x8x8xf32>
  %r2 = tgr.relu %d : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %u = tgr.conv %r2, %up : (tensor<1x1x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r3 = tgr.relu %u : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r3 : tensor<1x4x8x8xf32>
}

// -----

// No strip fits, 2-D tiles do: two linked 3x3 convs (pads 1) on f32 1x8x8x8 (2048 bytes, 256
// per row, 32 per pixel), one stage each ({input, output} = 4096). A one-row band of one conv
// holds 3 input rows and 1 output row = 1024 > 1000 (and > 600); the chain's one-row band holds
// more. So each stage is cut into tile_h x tile_w tiles: for each height h the widest w that
// fits, input E(h) x E(w) pixels and output h x w, E(t) being the most input indices a tile
// of t outputs reads along an axis of 8: t + 2 with three tiles or more (an interior tile),
// max(t + 1, 9 - t) with two (both at an edge), 8 with one: E(1..8) = 3 4 5 5 6 7 8 8. Of those,
// the fewest bytes read from slow memory (input rows summed over row bands x columns over
// column bands: 22 14 12 10 for t = 1 2 3 4, 10 for t = 7), then the fewest tiles.
//   1000 (31 pixels of 32 bytes): h 1 w 7 (3x8 + 7 = 31: 992) reads 22 x 10; h 2 w 4 (4x5 +
//         8 = 28: 896) reads 14 x 10; h 3 w 2 (5x4 + 6) reads 12 x 14; h 4 w 2 (5x4 + 8) reads
//         10 x 14 (a tie with h 2 in reads and tiles, 8: the first kept); h 8 w 1 needs 32.
//   600 (18 pixels):  h 1 w 3 (3x5 + 3 = 576) reads 22 x 12; h 2 w 1 (448) 14 x 22; h 3 w 1
//         (576) 12 x 22 (a tie with h 1: the first kept); h 4 needs 5x3 + 4 = 19.
// CHECK-LABEL: func.func @main(%no_band_fits: tensor<1x8x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 4096, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 896, chain = -1, tile_w = 4, num_tiles_w = 2, halo_w = 2, out_w = 8>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 4096, inputs = [1], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 896, chain = -1, tile_w = 4, num_tiles_w = 2, halo_w = 2, out_w = 8>>]
// B600-LABEL: func.func @main(%no_band_fits: tensor<1x8x8x8xf32>)
// B600-SAME:      tgr.stages = [
// B600-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 4096, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 8, halo = 2, out_h = 8, peak = 576, chain = -1, tile_w = 3, num_tiles_w = 3, halo_w = 2, out_w = 8>>,
// B600-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 4096, inputs = [1], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 8, halo = 2, out_h = 8, peak = 576, chain = -1, tile_w = 3, num_tiles_w = 3, halo_w = 2, out_w = 8>>]
func.func @main(%no_band_fits: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<8x8x3x3xf32>
  %c1 = tgr.conv %no_band_fits, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return %c2 : tensor<1x8x8x8xf32>
}

// -----

// No tile fits at all: the same convs on 64 channels (256 bytes a pixel): even a 1 x 1 tile
// holds 3 x 3 input pixels and 1 output pixel = 2560 > 1000. The runtime refuses tiles larger
// than its arena but lets a normal stage overflow to slow memory, so neither the chain nor a
// lone tile plan is written: both stages stay untiled (spec/tiling.md, "fall back to normal
// execution with slow-memory overflow").
// CHECK-LABEL: func.func @main(%no_tile_fits: tensor<1x64x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 32768, inputs = [0], outputs = [1]>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 32768, inputs = [1], outputs = [2]>]
// B600-LABEL: func.func @main(%no_tile_fits: tensor<1x64x8x8xf32>)
// B600-SAME:      tgr.stages = [
// B600-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 32768, inputs = [0], outputs = [1]>,
// B600-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 32768, inputs = [1], outputs = [2]>]
func.func @main(%no_tile_fits: tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<64x64x3x3xf32>
  %c1 = tgr.conv %no_tile_fits, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x8x8xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x8x8xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x8x8xf32>
  func.return %c2 : tensor<1x64x8x8xf32>
}
