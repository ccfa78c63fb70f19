// RUN: tigris-opt %s --split-input-file -p 'tigris-plan{budget=1000 align=16 cuts=greedy}' | filecheck %s
// RUN: tigris-opt %s --split-input-file -p 'tigris-plan{budget=1000 align=16}' | filecheck %s --check-prefix=FUSED
// RUN: tigris-opt %s --split-input-file -p 'tigris-plan{budget=380 align=16 cuts=greedy}' | filecheck %s --check-prefix=B380
// RUN: tigris-opt %s --split-input-file -p 'tigris-plan{budget=150 align=32}' | filecheck %s --check-prefix=B150

// tigris-plan = annotate-lifetimes, memory-timeline, partition-temporal,
// partition-spatial, tile-chains: every attribute of the plan on one small graph each.
// The rules and their hand computations are spelled out in the per-pass tests next to
// this file; here the numbers are derived once more for the whole flow.

// Residual block at budget 1000, align 16. f32 1x2x8x8: 512 bytes, 64 per row.
// Tensors 0 x, 1 c1, 2 c2, 3 y; steps c1 0, c2 1, y 2.
// Lifetimes: x [-1, 2], c1 [0, 1], c2 [1, 2], y [2, 2].
// Timeline: step 0 {x, c1} 1024, step 1 {x, c1, c2} 1536, step 2 {x, c2, y} 1536
//   -> #tgr.memory<peak = 1536, step = 1>.
// Temporal: [0] = 1024 > 1000 alone; [1] {c1, c2} = 1024 alone; [1, 2] would reload x
//   from step 1: {x, c1, c2} = 1536 > 1000, cut; [2] {x, c2, y} = 1536 alone.
// Chains: stage 0 -> 1 link (c1 feeds only stage 1, its only input); stage 1 -> 2 do
//   not (stage 2 also reloads x). Chain 0 = stages 0, 1 (two 3x3 convs, RF 5, halo 4):
//   rows of each tile, back from its output rows: one more each side per conv, clamped to
//   [0, 8) (the edge tiles hold fewer); the first tile [0, h) is the largest:
//   h = 6: c2 [0, 6), c1 [0, 7), x [0, 8): stage 0: 7 + 8 rows = 960 <= 1000 (stage 1: 6 + 7
//          = 832; tile [6, 8): c1 [5, 8), x [4, 8): 7 rows)
//   h = 7: c1 [0, 8), x [0, 8): stage 0: 8 + 8 rows = 1024 > 1000 -> tile_h 6, 2 tiles
// Stage 2 alone (add, halo 0): tile_h = floor(1000 * 8 / 1536) = 5, band 3 * 5 * 64 = 960.
// The default cuts (FUSED) make the whole block one fused stage with row caches
// (transforms/plan/row_cache.py): x and c1 are read by 3x3 windows, so they are cached; tiles of
// 2 output rows: c1's band is [0,3), [1,5), [3,7), [5,8) (new rows [0,3), [3,5), [5,7), [7,8)),
// x's [0,4), [2,6), [4,8), [6,8): slots of 4 rows each, 256 + 256 = 512 bytes; at the add c2
// and y hold 2 rows each, 128 + 128: peak 768 <= 1000 (tile_h 3: slots of 5 rows, 640, and
// 3-row c2 and y, 384: 1024 > 1000). x is loaded once and only y written: no spill, no recompute.
// FUSED-LABEL: func.func @main(%residual: tensor<1x2x8x8xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 2>})
// FUSED-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 2], peak = 1536, inputs = [0], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 4, out_h = 8, peak = 768, chain = -1, cache = 512>>]}
// Below, the greedy's plan (cuts=greedy):
// CHECK-LABEL: func.func @main(%residual: tensor<1x2x8x8xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 2>})
// CHECK-SAME:      tgr.memory = #tgr.memory<peak = 1536, step = 1, align = 16>
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 6, num_tiles = 2, halo = 4, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = chain, tile = #tgr.tile_plan<tile_h = 6, num_tiles = 2, halo = 4, out_h = 8, peak = 960, chain = 0>>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 1536, inputs = [0, 2], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 0, out_h = 8, peak = 960, chain = -1>>]
// CHECK-NEXT:    tgr.weight dense<
// CHECK-NEXT:    %[[C1:.*]] = tgr.conv %residual, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, tgr.step = 0 : i64, tgr.lifetime = #tgr.lifetime<birth = 0, death = 1>, tgr.stage = 0 : i64}
// CHECK-NEXT:    %[[C2:.*]] = tgr.conv %[[C1]], %{{.*}} {pads = array<i64: 1, 1, 1, 1>, tgr.step = 1 : i64, tgr.lifetime = #tgr.lifetime<birth = 1, death = 2>, tgr.stage = 1 : i64}
// CHECK-NEXT:    %[[Y:.*]] = tgr.add %[[C2]], %residual {tgr.step = 2 : i64, tgr.lifetime = #tgr.lifetime<birth = 2, death = 2>, tgr.stage = 2 : i64}
// CHECK-NEXT:    func.return %[[Y]]
func.func @main(%residual: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %residual, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %y = tgr.add %c2, %residual : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}

// -----

// Chain conv 3x1 stride 1 -> conv 3x1 stride 2 -> conv 3x1 stride 1 (pads 1 on H; W stays 4),
// at budget 380, align 16. Tensors: 0 x 1x1x16x4 (256 bytes, 16 per row), 1 c1 1x1x16x4
// (256, 16), 2 c2 1x1x8x4 (128, 16), 3 c3 1x4x8x4 (512, 64 per row).
// Timeline: step 0 {x, c1} 512, step 1 {c1, c2} 384, step 2 {c2, c3} 640 -> peak 640 at 2.
// Temporal: 512, 384, 640 are each over 380: three one-op stages, all linked: chain 0.
// RF (reverse: c3 s1, c2 s2, c1 s1): 1 + 2 * 1 = 3; + 2 * 1 = 5 (stride now 2); + 2 * 2 = 9
//   -> halo 8.
// Rows for an output tile of h rows of c3 ((r - 1) * stride + 3 per conv, at most H):
//   c3 h, c2 h + 2, c1 (h + 1) * 2 + 3 = 2h + 5, x 2h + 7
//   stage 2: 64h + 16(h + 2);  stage 1: 16(h + 2) + 16(2h + 5);  stage 0: 16(2h + 5) + 16(2h + 7)
//   h = 2: stage 0 = 16 * (9 + 11) = 320 <= 380 (stage 1 = 208, stage 2 = 192)
//   h = 3: stage 0 = 16 * (11 + 13) = 384 > 380 -> tile_h 2, ceil(8 / 2) = 4 tiles
// (The spec's r * stride + (k - 1) * d gives c2 4, c1 10, x 12 rows for h = 2: one row
// too many per stride-2 op; see test/python/test_planner_rules.py.)
// B380-LABEL: func.func @main(%strided: tensor<1x1x16x4xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 0>})
// B380-SAME:      tgr.memory = #tgr.memory<peak = 640, step = 2, align = 16>
// B380-SAME:      tgr.stages = [
// B380-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 512, inputs = [0], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 8, out_h = 8, peak = 320, chain = 0>>,
// B380-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 384, inputs = [1], outputs = [2], strategy = chain, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 8, out_h = 8, peak = 320, chain = 0>>,
// B380-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 640, inputs = [2], outputs = [3], strategy = chain, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 8, out_h = 8, peak = 320, chain = 0>>]
func.func @main(%strided: tensor<1x1x16x4xf32>) -> tensor<1x4x8x4xf32> {
  %w = tgr.weight dense<1.0> : tensor<1x1x3x1xf32>
  %w4 = tgr.weight dense<1.0> : tensor<4x1x3x1xf32>
  %c1 = tgr.conv %strided, %w {pads = array<i64: 1, 0, 1, 0>} : (tensor<1x1x16x4xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x16x4xf32>
  %c2 = tgr.conv %c1, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 1, 0>} : (tensor<1x1x16x4xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x8x4xf32>
  %c3 = tgr.conv %c2, %w4 {pads = array<i64: 1, 0, 1, 0>} : (tensor<1x1x8x4xf32>, tensor<4x1x3x1xf32>) -> tensor<1x4x8x4xf32>
  func.return %c3 : tensor<1x4x8x4xf32>
}

// -----

// Untileable Gemm stage at budget 1000, align 16: c = conv(x) 1x2x8x8, f = flatten(c)
// 1x128 (512 bytes), y = fully_connected(f) 1x10 (40 -> 48).
// Timeline: {x, c} 1024, {c, f} 1024, {f, y} 560 -> peak 1024 at step 0.
// Temporal: [0] 1024 alone; [1] 1024 alone; [2] 560 fits.
// Stage 0: conv tiled alone, tile_h = floor(8000 / 1024) - 2 = 5: 2 tiles, both at an edge;
// tile [0, 5) holds input rows [0, 6): 6 + 5 rows = 704.
// Stage 1 (flatten) is not tileable and cannot link: it keeps its 1024 (overflow 24).
// CHECK-LABEL: func.func @main(%gemm: tensor<1x2x8x8xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 0>})
// CHECK-SAME:      tgr.memory = #tgr.memory<peak = 1024, step = 0, align = 16>
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 5, num_tiles = 2, halo = 2, out_h = 8, peak = 704, chain = -1>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2]>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 560, inputs = [2], outputs = [3]>]
// CHECK:         tgr.flatten {{.*}}tgr.stage = 1 : i64
// CHECK-NEXT:    tgr.fully_connected {{.*}}tgr.stage = 2 : i64
func.func @main(%gemm: tensor<1x2x8x8xf32>) -> tensor<1x10xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %fw = tgr.weight dense<1.0> : tensor<10x128xf32>
  %c = tgr.conv %gemm, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %f = tgr.flatten %c : (tensor<1x2x8x8xf32>) -> tensor<1x128xf32>
  %y = tgr.fully_connected %f, %fw : (tensor<1x128xf32>, tensor<10x128xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// Diamond at budget 150, align 32: f32 1x1x4x4, 64 bytes per tensor, 16 per row.
// Tensors 0 x, 1 a, 2 b, 3 c, 4 d. Timeline 128, 128, 192, 192 -> peak 192 at step 2.
// Greedy stages (see partition-temporal.mlir): [0, 1] 128, [2, 2] 128, [3, 3] {b, c, d} 192,
// the add tiled (2 rows: 3 tensors of 32 bytes = 96): slow traffic = x 64 + {a, b} 128
// (stage 0) + a 64 + c 64 (stage 1) + {b, c} 128 + d 64 (stage 2) = 512 bytes.
// Shortest-path cuts: every op is pointwise, so the whole diamond [0, 3] is one tileable stage
// (no spatial op, halo 0) over the budget (192). Its bands of h rows hold h * 16 bytes of each
// tensor, 32-aligned; at most 3 tensors are live (step 2 {a, b, c}, step 3 {b, c, d}):
//   tile_h = floor(150 * 4 / 192) - 0 = 3: 48 -> 64 bytes, * 3 = 192 > 150, lowered;
//   tile_h = 2: 32 bytes * 3 = 96 <= 150 -> 2 tiles, band peak 96.
// Its traffic is only x read (64) and d written (64) = 128 < 512, the least any plan can
// move (the model's input and output), with the fewest stages: the one stage wins.
// At budget 1000 the whole diamond (192) is one stage.
// B150-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 0>})
// B150-SAME:      tgr.memory = #tgr.memory<peak = 192, step = 2, align = 32>
// B150-SAME:      tgr.stages = [
// B150-SAME:      #tgr.stage<index = 0, steps = [0, 3], peak = 192, inputs = [0], outputs = [4], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 2, halo = 0, out_h = 4, peak = 96, chain = -1>>]
// B150-COUNT-4:   {{.*}}tgr.stage = 0 : i64
// CHECK-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 0>})
// CHECK-SAME:      tgr.memory = #tgr.memory<peak = 192, step = 2, align = 16>
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 3], peak = 192, inputs = [0], outputs = [4]>]}
func.func @main(%diamond: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %a = tgr.relu %diamond : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %b = tgr.relu %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %c = tgr.sigmoid %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = tgr.add %b, %c : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %d : tensor<1x1x4x4xf32>
}
