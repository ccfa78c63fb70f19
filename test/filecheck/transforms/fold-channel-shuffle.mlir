// RUN: tigris-opt %s --split-input-file -p fold-channel-shuffle | filecheck %s

// fold-channel-shuffle: reshape [N, C, H, W] -> [N, A, B, H, W], transpose (0, 2, 1, 3, 4),
// reshape back -> one tgr.gather along axis 1; output channel j reads input (j % A) * B + j // A.

// ShuffleNet's shuffle of 2 groups of 3 channels: [0, 3, 1, 4, 2, 5]. The gather takes the
// transpose's node name.
// CHECK-LABEL: func.func @two_groups
// CHECK-SAME:      (%[[X:.*]]: tensor<1x6x4x4xf32>)
// CHECK-NEXT:    %[[G:.*]] = tgr.gather %[[X]] {axis = 1 : i64, indices = array<i64: 0, 3, 1, 4, 2, 5>, tgr.name = "shuffle"} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NEXT:    func.return %[[G]]
// CHECK-NOT:     tgr.reshape
// CHECK-NOT:     tgr.transpose
func.func @two_groups(%x: tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %a = tgr.reshape %x {tgr.name = "split"} : (tensor<1x6x4x4xf32>) -> tensor<1x2x3x4x4xf32>
  %t = tgr.transpose %a {perm = array<i64: 0, 2, 1, 3, 4>, tgr.name = "shuffle"} : (tensor<1x2x3x4x4xf32>) -> tensor<1x3x2x4x4xf32>
  %y = tgr.reshape %t {tgr.name = "join"} : (tensor<1x3x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %y : tensor<1x6x4x4xf32>
}

// -----

// 3 groups of 2 (A = 3, B = 2): [0, 2, 4, 1, 3, 5]; a rank-3 [N, C, L] map and an int8 type
// (one element type throughout) fold the same way.
// CHECK-LABEL: func.func @three_groups_rank3_int8
// CHECK-SAME:      (%[[X:.*]]: tensor<2x6x5x!tgr.quant<i8, 0.05:3>>)
// CHECK-NEXT:    %[[G:.*]] = tgr.gather %[[X]] {axis = 1 : i64, indices = array<i64: 0, 2, 4, 1, 3, 5>} : (tensor<2x6x5x!tgr.quant<i8, 0.05:3>>) -> tensor<2x6x5x!tgr.quant<i8, 0.05:3>>
// CHECK-NEXT:    func.return %[[G]]
func.func @three_groups_rank3_int8(%x: tensor<2x6x5x!tgr.quant<i8, 0.05:3>>) -> tensor<2x6x5x!tgr.quant<i8, 0.05:3>> {
  %a = tgr.reshape %x : (tensor<2x6x5x!tgr.quant<i8, 0.05:3>>) -> tensor<2x3x2x5x!tgr.quant<i8, 0.05:3>>
  %t = tgr.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x5x!tgr.quant<i8, 0.05:3>>) -> tensor<2x2x3x5x!tgr.quant<i8, 0.05:3>>
  %y = tgr.reshape %t : (tensor<2x2x3x5x!tgr.quant<i8, 0.05:3>>) -> tensor<2x6x5x!tgr.quant<i8, 0.05:3>>
  func.return %y : tensor<2x6x5x!tgr.quant<i8, 0.05:3>>
}

// -----

// One group: the permutation is the identity, and the result is the input.
// CHECK-LABEL: func.func @one_group
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x2x2xf32>)
// CHECK-NEXT:    func.return %[[X]]
func.func @one_group(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %a = tgr.reshape %x : (tensor<1x4x2x2xf32>) -> tensor<1x1x4x2x2xf32>
  %t = tgr.transpose %a {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x1x4x2x2xf32>) -> tensor<1x4x1x2x2xf32>
  %y = tgr.reshape %t : (tensor<1x4x1x2x2xf32>) -> tensor<1x4x2x2xf32>
  func.return %y : tensor<1x4x2x2xf32>
}

// -----

// The split reshape is used twice (also returned): folding would leave it computed anyway, and
// the pass leaves the chain alone.
// CHECK-LABEL: func.func @negative_intermediate_has_another_user
// CHECK-NEXT:    tgr.reshape
// CHECK-NEXT:    tgr.transpose
// CHECK-NEXT:    tgr.reshape
// CHECK-NOT:     tgr.gather
func.func @negative_intermediate_has_another_user(%x: tensor<1x6x4x4xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x2x3x4x4xf32>) {
  %a = tgr.reshape %x : (tensor<1x6x4x4xf32>) -> tensor<1x2x3x4x4xf32>
  %t = tgr.transpose %a {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x3x4x4xf32>) -> tensor<1x3x2x4x4xf32>
  %y = tgr.reshape %t : (tensor<1x3x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %y, %a : tensor<1x6x4x4xf32>, tensor<1x2x3x4x4xf32>
}

// -----

// The transpose also swaps H and W: not a channel permutation, left alone.
// CHECK-LABEL: func.func @negative_perm_moves_spatial_axes
// CHECK-NEXT:    tgr.reshape
// CHECK-NEXT:    tgr.transpose
// CHECK-NEXT:    tgr.reshape
// CHECK-NOT:     tgr.gather
func.func @negative_perm_moves_spatial_axes(%x: tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %a = tgr.reshape %x : (tensor<1x6x4x4xf32>) -> tensor<1x2x3x4x4xf32>
  %t = tgr.transpose %a {perm = array<i64: 0, 2, 1, 4, 3>} : (tensor<1x2x3x4x4xf32>) -> tensor<1x3x2x4x4xf32>
  %y = tgr.reshape %t : (tensor<1x3x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %y : tensor<1x6x4x4xf32>
}

// -----

// The first reshape splits H, not C (the same element counts, a different meaning): left alone.
// CHECK-LABEL: func.func @negative_split_is_not_the_channel_axis
// CHECK-NEXT:    tgr.reshape
// CHECK-NEXT:    tgr.transpose
// CHECK-NEXT:    tgr.reshape
// CHECK-NOT:     tgr.gather
func.func @negative_split_is_not_the_channel_axis(%x: tensor<1x4x6x4xf32>) -> tensor<1x4x6x4xf32> {
  %a = tgr.reshape %x : (tensor<1x4x6x4xf32>) -> tensor<1x4x2x3x4xf32>
  %t = tgr.transpose %a {perm = array<i64: 0, 1, 3, 2, 4>} : (tensor<1x4x2x3x4xf32>) -> tensor<1x4x3x2x4xf32>
  %y = tgr.reshape %t : (tensor<1x4x3x2x4xf32>) -> tensor<1x4x6x4xf32>
  func.return %y : tensor<1x4x6x4xf32>
}
