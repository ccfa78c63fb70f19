// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=320 align=32}' | filecheck %s
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=320 align=32 cuts=greedy}' | filecheck %s --check-prefix=GREEDY
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=150 align=32}' | filecheck %s --check-prefix=B150
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=150 align=32 cuts=greedy}' | filecheck %s --check-prefix=GREEDY150
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=160 align=16}' | filecheck %s --check-prefix=B160
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=160 align=16 cuts=greedy}' | filecheck %s --check-prefix=GREEDY160
// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p 'partition-temporal{budget=320 cuts=best}' | filecheck %s --check-prefix=BADCUTS

// partition-temporal with cuts=shortest (the default): cut points between steps are the nodes
// 0..n of a graph; edge (i, j) is the stage of steps i..j-1, allowed when it fits the budget
// untiled or tiled (or is one step, which may overflow), weighted by the slow-memory bytes it
// moves: every tensor it loads plus every tensor it spills. The cheapest path from 0 to n is the
// partition (the planner keeps it when, with strategies and chains assigned, it also measures
// cheaper than the greedy's, and recomputes at most 10% of the model's MACs more than the
// greedy's plan: the three cases below recompute nothing). Traffic below = bytes read + written; every tensor size here is a
// multiple of 32, so aligned sizes equal the bytes.

// A skip connection, no tiling possible: every tensor is 1 row tall (H = 1: nothing to cut into
// bands), so a stage fits untiled or not at all. f32 1xCx1x16: 64 bytes per channel.
// Tensors: 0 x (64), 1 a = relu x (64), 2 b = conv 1x1 to 4 channels (256), 3 c = conv 1x1 back
// to 1 channel (64), 4 d = c + a (64, the output). Steps: a 0, b 1, c 2, d 3. Budget 320.
// Every span (a tensor made inside lives to the stage's end if a later stage needs it; one
// loaded lives from the stage's start to its last reader inside):
//   [0]    {x, a} 128                          fits; reads x 64, spills a 64           = 128
//   [0, 1] {x, a} 128, {a, b} 320              fits; reads x 64, spills a, b 320       = 384
//   [0, 2] step 2 {a, b, c} 384 > 320 (a waits for d), two convs: nothing longer fits either
//   [1]    {a, b} 320                          fits; reads a 64, spills b 256          = 320
//   [1, 2] {a, b} 320, {b, c} 320 (a is read by d again, from slow memory)
//                                              fits; reads a 64, spills c 64           = 128
//   [1, 3] a is loaded and read at steps 1 and 3: step 2 {a, b, c} 384 > 320
//   [2]    {b, c} 320                          fits; reads b 256, spills c 64          = 320
//   [2, 3] a, read at step 3, is loaded from the stage's start: {a, b, c} 384 > 320
//   [3]    {a, c, d} 192                       fits; reads a, c 128, writes d 64       = 192
// Paths 0 -> 4: [0][1][2][3] = 128 + 320 + 320 + 192 = 960; [0, 1][2][3] = 384 + 320 + 192
// = 896; [0][1, 2][3] = 128 + 128 + 192 = 448, the cheapest: cut before the expanding conv, so
// the 256-byte b never leaves the arena.
// The greedy fills stage 0 as far as it fits ([0, 1], 320), which spills b: 896 bytes.
// CHECK-LABEL: func.func @main(%skip: tensor<1x1x1x16xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 128, inputs = [0], outputs = [1]>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 2], peak = 320, inputs = [1], outputs = [3]>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [3, 3], peak = 192, inputs = [1, 3], outputs = [4]>]
// GREEDY-LABEL: func.func @main(%skip: tensor<1x1x1x16xf32>)
// GREEDY-SAME:      tgr.stages = [
// GREEDY-SAME:      #tgr.stage<index = 0, steps = [0, 1], peak = 320, inputs = [0], outputs = [1, 2]>,
// GREEDY-SAME:      #tgr.stage<index = 1, steps = [2, 2], peak = 320, inputs = [2], outputs = [3]>,
// GREEDY-SAME:      #tgr.stage<index = 2, steps = [3, 3], peak = 192, inputs = [1, 3], outputs = [4]>]
func.func @main(%skip: tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32> {
  %w4 = tgr.weight dense<1.0> : tensor<4x1x1x1xf32>
  %w1 = tgr.weight dense<1.0> : tensor<1x4x1x1xf32>
  %a = tgr.relu %skip : (tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
  %b = tgr.conv %a, %w4 : (tensor<1x1x1x16xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x1x16xf32>
  %c = tgr.conv %b, %w1 : (tensor<1x4x1x16xf32>, tensor<1x4x1x1xf32>) -> tensor<1x1x1x16xf32>
  %d = tgr.add %c, %a : (tensor<1x1x1x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
  func.return %d : tensor<1x1x1x16xf32>
}

// -----

// A diamond of pointwise ops, where one tiled stage beats every untiled cut. f32 1x1x4x4: 64
// bytes per tensor, 16 per row. Tensors 0 x, 1 a = relu x, 2 b = relu a, 3 c = sigmoid a,
// 4 d = b + c (the output). Budget 150.
// The greedy (partition-temporal.mlir works it out): [0, 1] 128, [2, 2] 128, [3, 3] 192 (the
// add alone, over the budget: tiled later). Traffic: x 64 + {a, b} 128, a 64 + c 64, {b, c}
// 128 + d 64 = 512.
// The whole diamond [0, 3] peaks at 192 > 150 untiled, but it is tileable (pointwise ops only,
// no window: halo 0). Bands of h rows hold h * 16 bytes of each tensor, 32-aligned; at most 3
// tensors are live (step 2 {a, b, c}, step 3 {b, c, d}):
//   tile_h = floor(150 * 4 / 192) - 0 = 3: 48 -> 64 bytes * 3 = 192 > 150, lowered;
//   tile_h = 2: 32 * 3 = 96 <= 150: it fits, in 2 tiles.
// Its traffic is x read (64, the bands cover each row once) and d written (64) = 128: the
// least any partition can move (the model's own input and output), in the fewest stages.
// At budget 320 the diamond (192) fits untiled: one stage either way.
// B150-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32>)
// B150-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 3], peak = 192, inputs = [0], outputs = [4]>]
// B150-COUNT-4:   {{.*}}tgr.stage = 0 : i64
// GREEDY150-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32>)
// GREEDY150-SAME:      tgr.stages = [
// GREEDY150-SAME:      #tgr.stage<index = 0, steps = [0, 1], peak = 128, inputs = [0], outputs = [1, 2]>,
// GREEDY150-SAME:      #tgr.stage<index = 1, steps = [2, 2], peak = 128, inputs = [1], outputs = [3]>,
// GREEDY150-SAME:      #tgr.stage<index = 2, steps = [3, 3], peak = 192, inputs = [2, 3], outputs = [4]>]
// CHECK-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32>)
// CHECK-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 3], peak = 192, inputs = [0], outputs = [4]>]
func.func @main(%diamond: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %a = tgr.relu %diamond : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %b = tgr.relu %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %c = tgr.sigmoid %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = tgr.add %b, %c : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %d : tensor<1x1x4x4xf32>
}

// -----

// A skip around a pooling and an upsampling (a U-Net level), where the stage that wins is only
// reached through a longer one that cannot be tiled: the search must scan on past it.
// f32 1x1xHx4, align 16: 16 bytes per row. Tensors 0 x (8 rows, 128), 1 a = relu x (128),
// 2 p = max_pool 2x1 stride 2 of a (4 rows, 64), 3 r = resize p x2 along H (128),
// 4 d = a + r (128, the output). Steps: a 0, p 1, r 2, d 3. Budget 160.
// Untiled, [0, 3] holds step 0 {x, a} 256, step 1 {a, p} 192, step 2 {a, p, r} 320, step 3
// {a, r, d} 384: every stage of it over 160, so the greedy cuts before every op:
//   [0] {x, a} 256, [1] {a, p} 192, [2] {p, r} 192, [3] {a, r, d} 384, each alone (tiled or
//   chained later). Per stage, bytes read + written: x 128 + a 128 = 256, a 128 + p 64 = 192,
//   p 64 + r 128 = 192, {a, r} 256 + d 128 = 384: 1024 (896 once [1] and [2] are chained and
//   p stays in SRAM).
// Shortest path from node 0: [0, 1] (256 > 160) spills a (8 rows) and p (4 rows): outputs of
// different heights cannot be cut into the same bands, and it is no lone step, so it is no edge.
// It has one spatial op and no structural one, so a longer stage may still tile: the scan goes
// on. [0, 3] (384 > 160) has one output, d (8 rows), one window (the pooling: RF 2, halo 1):
// first tile height floor(160 * 8 / 384) - 1 = 2. Output rows [2k, 2k + 2) of d read rows
// [2k, 2k + 2) of a and r; r's rows read p's row k (nearest, x2); p's row k reads a's rows
// [2k, 2k + 2); a's read x's [2k, 2k + 2). Per tile: x 2, a 2, p 1, r 2, d 2 rows = 32, 32,
// 16, 32, 32 bytes; steps {x, a} 64, {a, p} 48, {a, p, r} 80, {a, r, d} 96: 96 <= 160, it fits.
// The four tiles read x's 8 rows once (stride 2 = kernel 2: no overlap) and write d: 128 + 128
// = 256, the least any partition can move (the model's input and output), in one stage.
// B160-LABEL: func.func @main(%level: tensor<1x1x8x4xf32>)
// B160-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 3], peak = 384, inputs = [0], outputs = [4]>]
// GREEDY160-LABEL: func.func @main(%level: tensor<1x1x8x4xf32>)
// GREEDY160-SAME:      tgr.stages = [
// GREEDY160-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 256, inputs = [0], outputs = [1]>,
// GREEDY160-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 192, inputs = [1], outputs = [2]>,
// GREEDY160-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 192, inputs = [2], outputs = [3]>,
// GREEDY160-SAME:      #tgr.stage<index = 3, steps = [3, 3], peak = 384, inputs = [1, 3], outputs = [4]>]
func.func @main(%level: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %a = tgr.relu %level : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %p = tgr.max_pool %a {kernel_shape = array<i64: 2, 1>, strides = array<i64: 2, 1>} : (tensor<1x1x8x4xf32>) -> tensor<1x1x4x4xf32>
  %r = tgr.resize %p {scales = array<i64: 1, 1, 2, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x4xf32>
  %d = tgr.add %a, %r : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
  func.return %d : tensor<1x1x8x4xf32>
}

// BADCUTS: cuts=best is not one of shortest, greedy
