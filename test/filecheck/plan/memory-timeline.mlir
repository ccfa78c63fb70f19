// RUN: tigris-opt %s --split-input-file -p 'memory-timeline{align=32}' | filecheck %s
// RUN: tigris-opt %s --split-input-file -p 'memory-timeline{align=1}' | filecheck %s --check-prefix=ALIGN1

// memory-timeline (spec/pipeline.md section 4): the whole model run as one stage;
// `#tgr.memory<peak, step, align>` on @main is the largest sum of live tensors, each
// rounded up to `align`, and the first step where it occurs. A tensor occupies the
// arena during every step of [birth, death] (a model input from step 0): an op's inputs
// and outputs coexist while it runs, and a tensor whose last use was the previous step
// is already freed. (The spec frees a tensor at its death step before allocating that
// step's outputs; the planner keeps it, as a kernel that is not in place must.)
// Only the figure on @main is checked; the ops are unchanged.

// Diamond on i8 tensors (1 byte per element): x is 32 bytes, a, b, c, d are 2 bytes.
//   live:  step 0 {x, a}, step 1 {a, b}, step 2 {a, b, c}, step 3 {b, c, d}
//   align 1:  34, 4, 6, 6                        -> peak 34 at step 0
//   align 32: 32+32, 32+32, 3*32, 3*32 = 64, 64, 96, 96 -> peak 96 at step 2
// The padding moves the peak: three 2-byte tensors cost more than 32 + 2 bytes.
// CHECK-LABEL: func.func @main(%diamond: tensor<1x32x1x1xi8>)
// CHECK-SAME:      attributes {tgr.memory = #tgr.memory<peak = 96, step = 2, align = 32>}
// ALIGN1-LABEL: func.func @main(%diamond: tensor<1x32x1x1xi8>)
// ALIGN1-SAME:      attributes {tgr.memory = #tgr.memory<peak = 34, step = 0, align = 1>}
func.func @main(%diamond: tensor<1x32x1x1xi8>) -> tensor<1x2x1x1xi8> {
  %w = tgr.weight dense<1> : tensor<2x32x1x1xi8>
  %v = tgr.weight dense<1> : tensor<2x2x1x1xi8>
  %a = tgr.conv %diamond, %w : (tensor<1x32x1x1xi8>, tensor<2x32x1x1xi8>) -> tensor<1x2x1x1xi8>
  %b = tgr.conv %a, %v : (tensor<1x2x1x1xi8>, tensor<2x2x1x1xi8>) -> tensor<1x2x1x1xi8>
  %c = tgr.conv %a, %v : (tensor<1x2x1x1xi8>, tensor<2x2x1x1xi8>) -> tensor<1x2x1x1xi8>
  %d = tgr.add %b, %c : (tensor<1x2x1x1xi8>, tensor<1x2x1x1xi8>) -> tensor<1x2x1x1xi8>
  func.return %d : tensor<1x2x1x1xi8>
}

// -----

// Residual block, f32 1x1x5x5 tensors: 25 * 4 = 100 bytes each (128 aligned to 32).
//   live:  step 0 {x, c1}, step 1 {x, c1, c2} (x waits for the skip add), step 2 {x, c2, y}
//   align 1:  200, 300, 300 -> peak 300 at step 1
//   align 32: 256, 384, 384 -> peak 384 at step 1
// CHECK-LABEL: func.func @main(%residual: tensor<1x1x5x5xf32>)
// CHECK-SAME:      attributes {tgr.memory = #tgr.memory<peak = 384, step = 1, align = 32>}
// ALIGN1-LABEL: func.func @main(%residual: tensor<1x1x5x5xf32>)
// ALIGN1-SAME:      attributes {tgr.memory = #tgr.memory<peak = 300, step = 1, align = 1>}
func.func @main(%residual: tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32> {
  %w = tgr.weight dense<1.0> : tensor<1x1x3x3xf32>
  %c1 = tgr.conv %residual, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32>
  %c2 = tgr.conv %c1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32>
  %y = tgr.add %c2, %residual : (tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32>
  func.return %y : tensor<1x1x5x5xf32>
}

// -----

// Shrinking chain, f32: x 1x1x6x6 = 144 bytes, conv 3x3 (no pads) -> 1x1x4x4 = 64,
// max_pool 2x2 stride 2 -> 1x1x2x2 = 16.
//   live:  step 0 {x, c}, step 1 {c, p}
//   align 1:  144 + 64 = 208, 64 + 16 = 80  -> peak 208 at step 0
//   align 32: 160 + 64 = 224, 64 + 32 = 96  -> peak 224 at step 0
// CHECK-LABEL: func.func @main(%shrink: tensor<1x1x6x6xf32>)
// CHECK-SAME:      attributes {tgr.memory = #tgr.memory<peak = 224, step = 0, align = 32>}
// ALIGN1-LABEL: func.func @main(%shrink: tensor<1x1x6x6xf32>)
// ALIGN1-SAME:      attributes {tgr.memory = #tgr.memory<peak = 208, step = 0, align = 1>}
func.func @main(%shrink: tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32> {
  %w = tgr.weight dense<1.0> : tensor<1x1x3x3xf32>
  %c = tgr.conv %shrink, %w : (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  %p = tgr.max_pool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  func.return %p : tensor<1x1x2x2xf32>
}
