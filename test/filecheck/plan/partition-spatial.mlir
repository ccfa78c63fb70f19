// RUN: tigris-opt %s --split-input-file -p 'partition-spatial{budget=600 align=16}' | filecheck %s
// RUN: tigris-opt %s --split-input-file -p 'partition-spatial{budget=150 align=64}' | filecheck %s --check-prefix=LOWER

// partition-spatial (spec/tiling.md, "Spatial tiling"): every stage over the budget
// whose ops are all tileable and hold at most one spatial op gets a
// `tile = #tgr.tile_plan<...>`; chains are not formed (chain = -1). The stages are
// read from `tgr.stages` (written by hand here, so each case shows its stage; the pass
// recomputes peak, inputs and outputs from the graph, so those are written as 0/[]).
//   halo    = RF - 1, RF from the spatial ops of the stage
//   tile_h  = min(H, max(1, floor(budget * H / peak) - halo)), then lowered while the
//             band's computed peak (every tensor cut to the rows one band needs,
//             aligned) is over the budget
//   num_tiles = ceil(H / tile_h)
// f32 1x2x8x8 tensors are 512 bytes, 64 bytes per row (a multiple of 16 and of 64).

// Conv chain, three one-op stages (what partition-temporal gives at this budget).
// Each stage: {input, output} = 1024 > 600, one 3x3 conv (pads 1): RF 3, halo 2.
//   tile_h = floor(600 * 8 / 1024) - 2 = 4 - 2 = 2
//   band of 2 output rows: input (2 - 1) * 1 + 3 = 4 rows = 256, output 2 rows = 128;
//   384 <= 600, so tile_h stays 2; num_tiles = ceil(8 / 2) = 4.
// (3 rows would fit too, 5 * 64 + 3 * 64 = 512: the spec's formula is conservative
// and the planner only lowers it.)
// CHECK-LABEL: func.func @main(%chain: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 1024, inputs = [2], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>]
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

// One stage [0, 1] = conv 3x3 + relu: one spatial op, so tileable.
//   peak: step 0 {x, c} 1024, step 1 {c, r} 1024; halo 2
//   tile_h = floor(600 * 8 / 1024) - 2 = 2; band: r 2 rows, c 2 rows (relu passes rows
//   through), x 4 rows: step 0 = 256 + 128 = 384, step 1 = 128 + 128 = 256 -> 384 <= 600
// CHECK-LABEL: func.func @main(%conv_relu: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 1024, inputs = [0], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 2, out_h = 8, peak = 384, chain = -1>>]
func.func @main(%conv_relu: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c = tgr.conv %conv_relu, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r = tgr.relu %c : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  func.return %r : tensor<1x2x8x8xf32>
}

// -----

// A fused stage: [0, 1] = conv 3x3 pad 1 + max_pool 2x2 stride 2, over the budget (step 0
//   {x, c} = 1024; step 1 {c, p} = 512 + 128 = 640). Rows are 64 bytes (x, c), 32 (p).
//   tile_h 3: p [0, 3) reads c [0, 6), which reads x [0, 7): 448 + 384 = 832 > 600.
//   A fused stage runs with row caches when they fit (transforms/plan/row_cache.py): x is read by
//   the 3x3 conv (cached: its rows stay in a slot across the tiles), c by the 2x2 stride-2 pool
//   (windows that do not overlap: not cached, a band per tile as usual).
//   tile_h 2: p [0, 2) reads c [0, 4), x [0, 5); p [2, 4): c [4, 8), x [3, 8): x's slot holds
//   5 rows, 320; the conv's step {c} = 256, the pool's {c, p} = 256 + 64: 320 + 320 = 640 > 600.
//   tile_h 1: x's bands [0, 3), [1, 5), [3, 7), [5, 8): a 4-row slot, 256; {c, p} = 128 + 32:
//   peak 416 <= 600, 4 tiles, cache 256. x is loaded once (8 rows; bands recomputing their
//   overlaps, tile_h 2, would read 5 + 5). Halo: the spec's RF walk, pool then conv: 1 + 1 = 2,
//   stride 2, + 2 * 2 = 6, halo 5.
// CHECK-LABEL: func.func @main(%two_spatial: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 1024, inputs = [0], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 4, halo = 5, out_h = 4, peak = 416, chain = -1, cache = 256>>]}
func.func @main(%two_spatial: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c = tgr.conv %two_spatial, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %p = tgr.max_pool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  func.return %p : tensor<1x2x4x4xf32>
}

// -----

// A fused stage [0, 1] of two 3x3 convs (pad 1, 64-byte rows), over the budget (step 0
//   {x, c1} = 1024). Bands recomputing their overlaps would need tile_h 1 (an interior tile
//   reads c1 3 rows, x 5: 512) and recompute c1 14 rows of 8. Row caches instead: x and c1 are
//   read by 3x3 windows, so both are cached. tile_h 1: tile 0 computes c1 [0, 2) from x [0, 3);
//   tile k = 1..6 keeps c1 [k - 1, k + 1) and computes row k + 1 from x [k, k + 3) (x loads only
//   row k + 2); tile 7 needs c1 [6, 8), all held: conv 1 does not run. Slots of 3 rows each:
//   192 + 192 = 384, plus c2's 1-row band: peak 448 <= 600. tile_h 2: slots of 4 rows, 512,
//   plus 2 rows of c2: 640 > 600.
// CHECK-LABEL: func.func @main(%two_convs: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 1024, inputs = [0], outputs = [2], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 8, halo = 4, out_h = 8, peak = 448, chain = -1, cache = 384>>]}
func.func @main(%two_convs: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %two_convs, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  func.return %c2 : tensor<1x2x8x8xf32>
}

// -----

// Negative: the same two convs on 4 channels (128-byte rows). Row caches at tile_h 1: slots of
//   3 rows each, 768, plus c2's row: 896 > 600; bands recomputing their overlaps: x 5 rows and
//   c1 3 rows, 1024 > 600. Neither fits: no tile plan; the stage overflows to slow memory.
// CHECK-LABEL: func.func @main(%wide_convs: tensor<1x4x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 2048, inputs = [0], outputs = [2]>]}
func.func @main(%wide_convs: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<4x4x3x3xf32>
  %c1 = tgr.conv %wide_convs, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %c2 : tensor<1x4x8x8xf32>
}

// -----

// Negative: a Gemm stage. flatten is structural and fully_connected dense, neither
// tileable. Stage [0, 1]: step 0 {x, f} = 512 + 512 = 1024, step 1 {f, y} = 512 + 48
// (1x10 f32 = 40, aligned 48) = 560: over the budget, still no tile plan.
// CHECK-LABEL: func.func @main(%gemm: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 1024, inputs = [0], outputs = [2]>]}
func.func @main(%gemm: tensor<1x2x8x8xf32>) -> tensor<1x10xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<10x128xf32>
  %f = tgr.flatten %gemm : (tensor<1x2x8x8xf32>) -> tensor<1x128xf32>
  %y = tgr.fully_connected %f, %w : (tensor<1x128xf32>, tensor<10x128xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// 3x3 conv, stride 2, pads 1: 1x2x8x8 -> 1x2x4x4 (128 bytes, 32 per row). RF 3, halo 2
// (stride does not widen a single op's RF: spec/tiling.md table, third row).
//   peak {x, c} = 512 + 128 = 640; tile_h = min(4, floor(600 * 4 / 640) - 2) = 3 - 2 = 1
//   band: x (1 - 1) * 2 + 3 = 3 rows = 192, c 1 row = 32 -> 224 <= 600; 4 tiles
// With budget 150, align 64: the band is 192 + 64 = 256 > 150 even at one row. The runtime
// refuses tiles larger than its arena but lets a normal stage overflow, so the stage gets
// no tile plan: it runs normally and overflows to slow memory (spec/tiling.md).
// CHECK-LABEL: func.func @main(%stride2: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 0], peak = 640, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 4, halo = 2, out_h = 4, peak = 224, chain = -1>>]
// LOWER-LABEL: func.func @main(%stride2: tensor<1x2x8x8xf32>)
// LOWER-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 0], peak = 640, inputs = [0], outputs = [1]>]
func.func @main(%stride2: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c = tgr.conv %stride2, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}

// -----

// The formula's tile height does not fit once alignment pads the bands, and is lowered.
// f32 1x1x16x2: 128 bytes, 8 per row. Conv 3x1 (pads 1 on H only): RF 3, halo 2.
// Budget 150, align 64: peak {x, c} = 128 + 128 = 256.
//   tile_h = floor(150 * 16 / 256) - 2 = 9 - 2 = 7
//   band(7): x 9 rows = 72 -> 128 aligned, c 7 rows = 56 -> 64: 192 > 150, lower
//   band(6): x 8 rows = 64, c 6 rows = 48 -> 64: 128 <= 150 -> tile_h 6, ceil(16 / 6) = 3 tiles
// Budget 600: 256 fits, not tiled.
// LOWER-LABEL: func.func @main(%lowered: tensor<1x1x16x2xf32>)
// LOWER-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 0], peak = 256, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 6, num_tiles = 3, halo = 2, out_h = 16, peak = 128, chain = -1>>]
// CHECK-LABEL: func.func @main(%lowered: tensor<1x1x16x2xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 0], peak = 256, inputs = [0], outputs = [1]>]}
func.func @main(%lowered: tensor<1x1x16x2xf32>) -> tensor<1x1x16x2xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<1x1x3x1xf32>
  %c = tgr.conv %lowered, %w {pads = array<i64: 1, 0, 1, 0>} : (tensor<1x1x16x2xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x16x2xf32>
  func.return %c : tensor<1x1x16x2xf32>
}

// -----

// Reduction tiles: a global pooling over budget is cut along the rows of its INPUT (its
// output has one row), keeping an accumulator across the tiles (`acc`, part of the peak):
// float average 8 bytes a channel (Kahan sum and compensation), max 4 bytes a channel.
// GAP on 1x2x8x8: input 512 bytes (64 a row), output 8 -> 16 (align 16), acc 16.
//   budget 600: the whole stage (512 + 16 = 528) fits, nothing to tile.
// Max pooling on 1x4x8x8: input 1024 (128 a row), output 16, acc 16: 1040 > 600;
//   r rows: 128r + 16 + 16 <= 600 -> r = 4 (544), 2 tiles.
// LOWER (budget 150, align 64): GAP: r rows 64r -> 64 + out 64 + acc 64: r = 1 is 192 > 150,
//   so no tile plan fits and the stage stays normal (it overflows).
// CHECK-LABEL: func.func @main(%pool: tensor<1x2x8x8xf32>, %pool2: tensor<1x4x8x8xf32>)
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 528, inputs = [0], outputs = [2]>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1040, inputs = [1], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 544, chain = -1, acc = 16>>]
// LOWER-LABEL: func.func @main(%pool: tensor<1x2x8x8xf32>, %pool2: tensor<1x4x8x8xf32>)
// LOWER-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 576, inputs = [0], outputs = [2]>,
func.func @main(%pool: tensor<1x2x8x8xf32>, %pool2: tensor<1x4x8x8xf32>) -> (tensor<1x2x1x1xf32>, tensor<1x4x1x1xf32>) attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>,
    #tgr.stage<index = 1, steps = [1, 1], peak = 0, inputs = [], outputs = []>]} {
  %g = tgr.global_avg_pool %pool : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
  %m = tgr.global_max_pool %pool2 : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  func.return %g, %m : tensor<1x2x1x1xf32>, tensor<1x4x1x1xf32>
}

// -----

// Reduction tiles cut along W: when not even one whole input row fits, the tiles are one row
// tall and as many columns wide as fit (one row tall keeps the row-major order of the sum).
// GAP on 1x8x4x32: a row is 32 x 8 x 4 = 1024 bytes > 600; output 32 (aligned 16), acc 8 x 8 = 64.
//   c columns: 32c + 32 + 64 <= 600 -> c = 15 (576); 3 tiles of 15 along the 32 columns, 4 rows.
//   The whole stage: 4096 + 32 = 4128.
// LOWER (budget 150, align 64): one pixel is 32 -> 64 + out 64 + acc 64 = 192 > 150: normal.
// CHECK-LABEL: func.func @main(%x: tensor<1x8x4x32xf32>)
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 4128, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 4, halo = 0, out_h = 4, peak = 576, chain = -1, acc = 64, tile_w = 15, num_tiles_w = 3, out_w = 32>>]
// LOWER-LABEL: func.func @main(%x: tensor<1x8x4x32xf32>)
// LOWER-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 4160, inputs = [0], outputs = [1]>]
func.func @main(%x: tensor<1x8x4x32xf32>) -> tensor<1x8x1x1xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %g = tgr.global_avg_pool %x : (tensor<1x8x4x32xf32>) -> tensor<1x8x1x1xf32>
  func.return %g : tensor<1x8x1x1xf32>
}

// -----

// Reduction tiles in channel blocks: when not even one pixel fits beside the whole accumulator,
// the accumulator holds a block of channels and the tiles run once per block (each block reads
// the input again, so the fewest blocks win).
// GAP on 1x64x2x2: a pixel is 64 x 4 = 256 bytes, the output 256, the accumulator 64 x 8 = 512:
//   one pixel 256 + 256 + 512 = 1024 > 600. A block of b channels keeps 8b bytes:
//   256 + 256 + align16(8b) <= 600 -> b = 10 (80: 592; b = 11 is 88 -> 96: 608), 7 blocks;
//   at b = 10 a row (512) does not fit, one column does: 1 x 1 tiles, 2 x 2 of them a block.
//   The whole stage: 1024 + 256 = 1280.
// LOWER (budget 150, align 64): a pixel, the output and any accumulator are 64 each: normal.
// CHECK-LABEL: func.func @main(%x: tensor<1x64x2x2xf32>)
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1280, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 2, halo = 0, out_h = 2, peak = 592, chain = -1, acc = 80, tile_w = 1, num_tiles_w = 2, out_w = 2, tile_c = 10, num_tiles_c = 7>>]
// LOWER-LABEL: func.func @main(%x: tensor<1x64x2x2xf32>)
// LOWER-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1280, inputs = [0], outputs = [1]>]
func.func @main(%x: tensor<1x64x2x2xf32>) -> tensor<1x64x1x1xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %g = tgr.global_avg_pool %x : (tensor<1x64x2x2xf32>) -> tensor<1x64x1x1xf32>
  func.return %g : tensor<1x64x1x1xf32>
}

// -----

// A skip operand: c = conv 3x3 (pads 1) of x, y = concat(c, s) along channels, s a tensor from
// outside the stage (a UNet decoder joining its encoder's output). Concat along C is channel-wise,
// so output rows [r, r + h) read rows [r, r + h) of s (no halo) and of c, whose conv reads x rows
// [r - 1, r + h + 1): the stage takes both x and s band by band.
// x, s, c: 1x2x8x8 (512, 64 a row); y: 1x4x8x8 (1024, 128 a row).
//   Whole stage: the conv step holds x, s, c (1536), the concat step c, s, y (2048): peak 2048.
//   halo 2; tile_h = max(1, floor(600 * 8 / 2048) - 2) = max(1, 0) = 1; 8 tiles.
//   An inner one-row band: conv step x 3 rows 192 + s 64 + c 64 = 320, concat step
//   c 64 + s 64 + y 128 = 256 (the edge tiles read 2 rows of x: 256): peak 320 <= 600.
// LOWER (budget 150, align 64): a one-row band is 192 + 64 + 64 = 320 > 150, and the smallest
//   2-D tile (one output pixel) is x 3 x 3 pixels (72 -> 128) + s 8 (-> 64) + c 8 (-> 64) = 256
//   > 150: normal.
// CHECK-LABEL: func.func @main(%x: tensor<1x2x8x8xf32>, %s: tensor<1x2x8x8xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 2048, inputs = [0, 1], outputs = [3], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 8, halo = 2, out_h = 8, peak = 320, chain = -1>>]
// LOWER-LABEL: func.func @main(%x: tensor<1x2x8x8xf32>, %s: tensor<1x2x8x8xf32>)
// LOWER-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 1], peak = 2048, inputs = [0, 1], outputs = [3]>]
func.func @main(%x: tensor<1x2x8x8xf32>, %s: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 1], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c = tgr.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %y = tgr.concat %c, %s {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// A tiled FC in reduction blocks. x 1x96 (384 bytes), y = fully_connected(x, W 64x96) 1x64 (256):
// the stage holds both, 640 > 600. Two ways to cut it, each block of output features reading the
// whole input once (the fewest blocks win, then the fewest tiles):
//   output-feature blocks, x whole: 384 + align16(4c) <= 600 -> c = 52 (208: 592), 2 blocks;
//   reduction blocks of k input features, c features keeping c float partial sums:
//   align16(4k) + align16(4c) + align16(4c) <= 600; at k = 1: 16 + 2 x align16(4c) <= 600 ->
//   c = 64 (256 + 256 + 16 = 528), all features, 1 block: it wins. Then the deepest k at c = 64:
//   align16(4k) <= 600 - 512 = 88 -> k = 20 (80: 592), 5 input blocks (out_h = 96 input features).
// LOWER (budget 150, align 64): x alone is 384 > 150, and one input, one output feature and its
//   sum are 64 each, 192 > 150: normal.
// CHECK-LABEL: func.func @main(%x: tensor<1x96xf32>)
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 640, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 20, num_tiles = 5, halo = 0, out_h = 96, peak = 592, chain = -1, acc = 256, tile_c = 64>>]
// LOWER-LABEL: func.func @main(%x: tensor<1x96xf32>)
// LOWER-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 640, inputs = [0], outputs = [1]>]
func.func @main(%x: tensor<1x96xf32>) -> tensor<1x64xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<64x96xf32>
  %y = tgr.fully_connected %x, %w : (tensor<1x96xf32>, tensor<64x96xf32>) -> tensor<1x64xf32>
  func.return %y : tensor<1x64xf32>
}

// -----

// A tiled FC in output-feature blocks: a short input, many features. x 1x16 (64), W 256x16,
// y 1x256 (1024): 1088 > 600.
//   output-feature blocks: 64 + align16(4c) <= 600 -> 4c <= 528 (536 aligns to 544) -> c = 132,
//   2 blocks (132 + 124), peak 592;
//   reduction blocks: 16 + 2 x align16(4c) <= 600 -> 4c <= 288 -> c = 72, 4 blocks: more reads.
// LOWER (budget 150, align 64): output-feature blocks 64 + align64(4c) <= 150 -> c = 16 (64: 128),
//   16 blocks; reduction blocks need 64 x 3 = 192 > 150.
// CHECK-LABEL: func.func @main(%x: tensor<1x16xf32>)
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1088, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 1, halo = 0, out_h = 1, peak = 592, chain = -1, tile_c = 132, num_tiles_c = 2>>]
// LOWER-LABEL: func.func @main(%x: tensor<1x16xf32>)
// LOWER-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1088, inputs = [0], outputs = [1], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 1, halo = 0, out_h = 1, peak = 128, chain = -1, tile_c = 16, num_tiles_c = 16>>]
func.func @main(%x: tensor<1x16xf32>) -> tensor<1x256xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %w = tgr.weight dense<1.0> : tensor<256x16xf32>
  %y = tgr.fully_connected %x, %w : (tensor<1x16xf32>, tensor<256x16xf32>) -> tensor<1x256xf32>
  func.return %y : tensor<1x256xf32>
}

// -----

// Left alone: a matmul of two activations has no constant weight rows to read a block of, so it
// never runs in output-feature blocks. a 1x96 (384), b 96x2 (768), y 1x2 (8 -> 16): 1168 > 600, normal.
// CHECK-LABEL: func.func @main(%a: tensor<1x96xf32>, %b: tensor<96x2xf32>)
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1168, inputs = [0, 1], outputs = [2]>]
func.func @main(%a: tensor<1x96xf32>, %b: tensor<96x2xf32>) -> tensor<1x2xf32> attributes {tgr.stages = [
    #tgr.stage<index = 0, steps = [0, 0], peak = 0, inputs = [], outputs = []>]} {
  %y = tgr.matmul %a, %b : (tensor<1x96xf32>, tensor<96x2xf32>) -> tensor<1x2xf32>
  func.return %y : tensor<1x2xf32>
}
