// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=150 align=32 cuts=greedy}' | filecheck %s
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=300 align=32 cuts=greedy}' | filecheck %s --check-prefix=B300
// RUN: tigris-opt %s --split-input-file -p 'partition-temporal{budget=1000 align=32 cuts=greedy}' | filecheck %s --check-prefix=B1000

// partition-temporal (spec/pipeline.md section 5), greedy: ops join the current stage
// in order; when the stage's timeline with the next op would peak above the budget,
// the stage is cut before that op. An op that alone exceeds the budget is a stage of
// its own. Within a stage [first, last] the arena holds: reloaded inputs from `first`
// to their last use in the stage; tensors the stage produces from their step to their
// last use, or to `last` when a later stage (or the host) needs them.
// Each op gets `tgr.stage`; @main gets `tgr.stages`, where inputs (reloaded) and
// outputs (spilled) are tensor numbers: model inputs first, then op results in order.

// Diamond, f32 1x1x4x4 = 64 bytes per tensor (a multiple of 32: no padding).
// Tensors: 0 x, 1 a, 2 b, 3 c, 4 d. Steps: a 0, b 1, c 2, d 3.
// Budget 150:
//   [0]    {x, a} = 128                                            fits
//   [0, 1] step 0 {x, a} 128, step 1 {a, b} 128 (a and b spilled)    fits
//   [0, 2] step 2 {a, b, c} = 192 > 150                              cut before c
//   stage 0 = [0, 1], peak 128, inputs [x] = [0], outputs [a, b] = [1, 2]
//   [2]    {a, c} = 128 (a reloaded; b is not used here)           fits
//   [2, 3] step 3 {b, c, d} = 192 > 150                              cut before d
//   stage 1 = [2, 2], peak 128, inputs [a] = [1], outputs [c] = [3]
//   stage 2 = [3, 3], peak 192 (over budget, alone), inputs [b, c] = [2, 3], outputs [d] = [4]
// Budget 300: the whole-model peak is 192, so one stage [0, 3], inputs [0], outputs [4].
// CHECK-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 1], peak = 128, inputs = [0], outputs = [1, 2]>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [2, 2], peak = 128, inputs = [1], outputs = [3]>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [3, 3], peak = 192, inputs = [2, 3], outputs = [4]>]
// CHECK-NEXT:    tgr.relu %diamond {tgr.stage = 0 : i64}
// CHECK-NEXT:    tgr.relu %{{.*}} {tgr.stage = 0 : i64}
// CHECK-NEXT:    tgr.sigmoid %{{.*}} {tgr.stage = 1 : i64}
// CHECK-NEXT:    tgr.add %{{.*}}, %{{.*}} {tgr.stage = 2 : i64}
// B300-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32>)
// B300-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 3], peak = 192, inputs = [0], outputs = [4]>]}
// B300-COUNT-4:   {tgr.stage = 0 : i64}
func.func @main(%diamond: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %a = tgr.relu %diamond : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %b = tgr.relu %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %c = tgr.sigmoid %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = tgr.add %b, %c : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %d : tensor<1x1x4x4xf32>
}

// -----

// Residual block, f32 1x2x4x4 = 128 bytes per tensor. Tensors: 0 x, 1 c1, 2 c2, 3 y.
// Budget 300:
//   [0]    {x, c1} = 256                                               fits
//   [0, 1] step 0 {x, c1} 256, step 1 {c1, c2} 256: x is reloaded again
//          by the skip add's stage, so here it dies after step 0        fits
//   [0, 2] step 1 {x, c1, c2} = 384 > 300 (x now lives to step 2)        cut before y
//   stage 0 = [0, 1], peak 256, inputs [x] = [0], outputs [c2] = [2]
//   stage 1 = [2, 2], {x, c2, y} = 384, alone, inputs [0, 2], outputs [3]
// Budget 150: every op alone is over it, so every op is a stage:
//   [0] {x, c1} 256, inputs [0], outputs [1]; [1] {c1, c2} 256, inputs [1], outputs [2];
//   [2] {x, c2, y} 384, inputs [0, 2], outputs [3]
// Budget 1000: the whole block (peak 384) is one stage.
// B300-LABEL: func.func @main(%residual: tensor<1x2x4x4xf32>)
// B300-SAME:      tgr.stages = [
// B300-SAME:      #tgr.stage<index = 0, steps = [0, 1], peak = 256, inputs = [0], outputs = [2]>,
// B300-SAME:      #tgr.stage<index = 1, steps = [2, 2], peak = 384, inputs = [0, 2], outputs = [3]>]
// B300-NEXT:    tgr.weight
// B300-NEXT:    tgr.conv %residual, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, tgr.stage = 0 : i64}
// B300-NEXT:    tgr.conv %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, tgr.stage = 0 : i64}
// B300-NEXT:    tgr.add %{{.*}}, %residual {tgr.stage = 1 : i64}
// CHECK-LABEL: func.func @main(%residual: tensor<1x2x4x4xf32>)
// CHECK-SAME:      tgr.stages = [
// CHECK-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 256, inputs = [0], outputs = [1]>,
// CHECK-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 256, inputs = [1], outputs = [2]>,
// CHECK-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 384, inputs = [0, 2], outputs = [3]>]
// B1000-LABEL: func.func @main(%residual: tensor<1x2x4x4xf32>)
// B1000-SAME:      tgr.stages = [#tgr.stage<index = 0, steps = [0, 2], peak = 384, inputs = [0], outputs = [3]>]}
func.func @main(%residual: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %residual, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %y = tgr.add %c2, %residual : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// Conv chain, f32 1x2x8x8 = 512 bytes per tensor: each conv alone holds its input and
// output, 1024 bytes. Tensors: 0 x, 1 c1, 2 c2, 3 c3.
// Budget 1000: every op alone is over the budget -> three one-op stages of 1024
// (spatial tiling or overflow deals with them later).
// Budget 300 and 150: the same three stages (not checked).
// B1000-LABEL: func.func @main(%chain: tensor<1x2x8x8xf32>)
// B1000-SAME:      tgr.stages = [
// B1000-SAME:      #tgr.stage<index = 0, steps = [0, 0], peak = 1024, inputs = [0], outputs = [1]>,
// B1000-SAME:      #tgr.stage<index = 1, steps = [1, 1], peak = 1024, inputs = [1], outputs = [2]>,
// B1000-SAME:      #tgr.stage<index = 2, steps = [2, 2], peak = 1024, inputs = [2], outputs = [3]>]
// B1000-NEXT:    tgr.weight
// B1000-NEXT:    tgr.conv {{.*}}tgr.stage = 0 : i64
// B1000-NEXT:    tgr.conv {{.*}}tgr.stage = 1 : i64
// B1000-NEXT:    tgr.conv {{.*}}tgr.stage = 2 : i64
func.func @main(%chain: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %chain, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c3 = tgr.conv %c2, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  func.return %c3 : tensor<1x2x8x8xf32>
}
