// RUN: tigris-opt %s -p 'tigris-plan{budget=1000 align=16},group-weights{compress=lz4}' | filecheck %s
// RUN: tigris-opt %s -p 'tigris-plan{budget=1000 align=16},group-weights' | filecheck %s --check-prefix=RAW

// group-weights: each weight joins the block of the first stage using it; blocks are the
// weights' bytes in IR order, each starting 16-byte aligned (the .tgrs block layout: zero
// padding between weights, none after the last). At budget 1000 the plan has three one-op stages
// (conv c1: stage 0, conv c2: stage 1, add: stage 2; see test/filecheck/plan/tigris-plan.mlir).
// b is used by both convs: it belongs to stage 0. The add uses no weight: no block for stage 2.
//
// Block 0 = w1 (36 x 1.0: 144 bytes of 00 00 80 3f, a multiple of 16, so no padding) + b
// (00 00 00 3f 00 00 00 bf) = 152 bytes. LZ4: token 0x4f (4 literals, long match), 00 00 80 3f,
// offset 04 00, length byte 0x7b: a match of 4 + 15 + 123 = 142 bytes (through b's first two
// zero bytes); then the last 6 bytes as literals (token 0x60 + 6): 8 + 7 = 15 bytes.
// Block 1 = w2 [1, 2, 3, 4] = 16 bytes without a 4-byte repeat: token 0xf0, length byte 1
// (15 + 1 literals), 16 literals = 18 bytes (LZ4 grows incompressible data).
// fast_reserved = the largest raw block = 152.
// CHECK-LABEL: func.func @main
// CHECK-SAME:      tgr.weight_blocks = [{stage = 0 : i64, raw_bytes = 152 : i64, compressed_bytes = 15 : i64}, {stage = 1 : i64, raw_bytes = 16 : i64, compressed_bytes = 18 : i64}], tgr.fast_reserved = 152 : i64}
// CHECK-NEXT:    tgr.weight {tgr.name = "w1", tgr.block = 0 : i64}
// CHECK-NEXT:    tgr.weight {tgr.name = "b", tgr.block = 0 : i64}
// CHECK-NEXT:    tgr.weight {tgr.name = "w2", tgr.block = 1 : i64}
// CHECK-NOT:     tgr.block
// Without compression the blocks are stored raw and nothing is reserved for decompression.
// RAW:         tgr.weight_blocks = [{stage = 0 : i64, raw_bytes = 152 : i64, compressed_bytes = 152 : i64}, {stage = 1 : i64, raw_bytes = 16 : i64, compressed_bytes = 16 : i64}], tgr.fast_reserved = 0 : i64}
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w1 = tgr.weight {tgr.name = "w1"} dense<1.0> : tensor<2x2x3x3xf32>
  %b = tgr.weight {tgr.name = "b"} dense<[0.5, -0.5]> : tensor<2xf32>
  %w2 = tgr.weight {tgr.name = "w2"} dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %c1 = tgr.conv %x, %w1, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w2, %b : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %y = tgr.add %c2, %x : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}
