// RUN: tigris-opt %s -p 'tigris-plan{budget=4096 align=16},group-weights{compress=lz4 budget=1056}' | filecheck %s
// RUN: tigris-opt %s -p 'tigris-plan{budget=4096 align=16},group-weights{compress=lz4 budget=1200}' | filecheck %s --check-prefix=BOTH
// RUN: tigris-opt %s -p 'tigris-plan{budget=128 align=16},group-weights{compress=lz4 budget=128}' | filecheck %s --check-prefix=OVERFLOW

// group-weights{compress=lz4}: fast_reserved is taken from the arena of every stage, so a block
// holds only what the hungriest stage leaves. Planned at 4096 the model is one stage of peak 1024
// (x and c1 at step 0, c1 and c2 at step 1, 512 bytes each). Both weights compress (36 x 1.0 and
// 4 x 0.0: 144 -> 14 and 16 -> 10 bytes); the block takes them in IR order while they fit.
//
// A 1056-byte arena leaves 32 bytes: small (16) goes into the block, big (144) stays in the blob,
// read in place from flash. fast_reserved 16, aligned to 16, + 1024 = 1040 <= 1056.
// CHECK-LABEL: func.func @main
// CHECK-SAME:      tgr.weight_blocks = [#tgr.weight_block<stage = 0, raw_bytes = 16, compressed_bytes = 10>], tgr.fast_reserved = 16 : i64, tgr.compress = "lz4"}
// CHECK-NEXT:    tgr.weight {tgr.name = "big"} dense
// CHECK-NEXT:    tgr.weight {tgr.name = "small", tgr.block = 0 : i64}
// A 1200-byte arena leaves 176 bytes, room for both: 144 + 16 = 160 raw bytes, 17 stored.
// BOTH:          tgr.weight_blocks = [#tgr.weight_block<stage = 0, raw_bytes = 160, compressed_bytes = 17>], tgr.fast_reserved = 160 : i64, tgr.compress = "lz4"}
// BOTH-NEXT:     tgr.weight {tgr.name = "big", tgr.block = 0 : i64}
// BOTH-NEXT:     tgr.weight {tgr.name = "small", tgr.block = 0 : i64}
// Planned at 128 the one-row bands of the chained convs still take 256 bytes: the plan overflows
// the arena already, so nothing is reserved and both weights stay in the blob.
// OVERFLOW:      tgr.weight_blocks = [], tgr.fast_reserved = 0 : i64, tgr.compress = "lz4"}
// OVERFLOW-NOT:  tgr.block
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %big = tgr.weight {tgr.name = "big"} dense<1.0> : tensor<2x2x3x3xf32>
  %small = tgr.weight {tgr.name = "small"} dense<0.0> : tensor<2x2x1x1xf32>
  %c1 = tgr.conv %x, %big {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %small : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x8x8xf32>
  func.return %c2 : tensor<1x2x8x8xf32>
}
