// RUN: tigris-opt %s -p 'tigris-plan{budget=1000 align=16 cuts=greedy},group-weights{compress=lz4 budget=1200}' | filecheck %s
// RUN: tigris-opt %s -p 'tigris-plan{budget=1000 align=16 cuts=greedy},group-weights{compress=lz4 budget=1000}' | filecheck %s --check-prefix=NOROOM
// RUN: tigris-opt %s -p 'tigris-plan{budget=1000 align=16 cuts=greedy},group-weights' | filecheck %s --check-prefix=RAW

// group-weights: blocks are the weights' bytes in IR order, each starting 16-byte aligned (the
// .tgrs block layout: zero padding between weights, none after the last). At budget 1000 the
// greedy's plan (`cuts=greedy`: the default cuts fuse the three ops into one stage, and this test
// is about weights shared across stages) has three one-op stages (conv c1: stage 0, conv c2: stage 1, add: stage 2; see
// test/filecheck/plan/tigris-plan.mlir), each with a scheduled (band) peak of 960 bytes.
//
// LZ4: the arena is 1200 bytes, so the reserve may hold 1200 - 960 = 240 bytes (a multiple of the
// alignment 16). Block 0 = w1 (36 x 1.0: 144 bytes of 00 00 80 3f). LZ4: token 0x4f (4 literals,
// long match), 00 00 80 3f, offset 04 00, length byte 0x74: a match of 4 + 15 + 116 = 135 bytes;
// then the last 5 bytes as literals (token 0x50 + 5): 14 bytes. b is read by both convs, stages 0
// and 1: only one block is decompressed at a time, so b stays in the blob. w2 [1, 2, 3, 4] = 16
// bytes without a 4-byte repeat would grow to 18 under LZ4 (token 0xf0, length byte 1, 16 literals):
// its block is dropped and w2 stays in the blob too. fast_reserved = the largest raw block = 144.
// CHECK-LABEL: func.func @main
// CHECK-SAME:      tgr.weight_blocks = [#tgr.weight_block<stage = 0, raw_bytes = 144, compressed_bytes = 14>], tgr.fast_reserved = 144 : i64, tgr.compress = "lz4"}
// CHECK-NEXT:    tgr.weight {tgr.name = "w1", tgr.block = 0 : i64}
// CHECK-NEXT:    tgr.weight {tgr.name = "b"} dense
// CHECK-NEXT:    tgr.weight {tgr.name = "w2"} dense
// CHECK-NOT:     tgr.block
// In a 1000-byte arena the stages leave 32 bytes: w1 does not fit, w2 does not compress, nothing
// is reserved and every weight is read in place from the blob.
// NOROOM:        tgr.weight_blocks = [], tgr.fast_reserved = 0 : i64, tgr.compress = "lz4"}
// NOROOM-NOT:    tgr.block
// Without compression every weight joins the block of the first stage using it (b: stage 0);
// blocks are stored raw and read in place, so a weight shared by stages is fine and nothing is
// reserved. Block 0 = w1 (144 bytes, a multiple of 16: no padding) + b = 152 bytes.
// RAW:           tgr.weight_blocks = [#tgr.weight_block<stage = 0, raw_bytes = 152, compressed_bytes = 152>, #tgr.weight_block<stage = 1, raw_bytes = 16, compressed_bytes = 16>], tgr.fast_reserved = 0 : i64, tgr.compress = "none"}
// RAW-NEXT:      tgr.weight {tgr.name = "w1", tgr.block = 0 : i64}
// RAW-NEXT:      tgr.weight {tgr.name = "b", tgr.block = 0 : i64}
// RAW-NEXT:      tgr.weight {tgr.name = "w2", tgr.block = 1 : i64}
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w1 = tgr.weight {tgr.name = "w1"} dense<1.0> : tensor<2x2x3x3xf32>
  %b = tgr.weight {tgr.name = "b"} dense<[0.5, -0.5]> : tensor<2xf32>
  %w2 = tgr.weight {tgr.name = "w2"} dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %c1 = tgr.conv %x, %w1, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tgr.conv %c1, %w2, %b : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %y = tgr.add %c2, %x : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}
