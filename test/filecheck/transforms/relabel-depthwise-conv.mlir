// RUN: tigris-opt %s --split-input-file -p relabel-depthwise-conv | filecheck %s

// relabel-depthwise-conv: a rank-4 tgr.conv whose group equals its input channels
// (and is > 1) is a tgr.depthwise_conv; the group property is dropped (it is implied).

// CHECK-LABEL: func.func @depthwise
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x1x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[D:.*]] = tgr.depthwise_conv %[[X]], %[[W]], %[[B]] {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, tgr.name = "dw1"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %[[D]]
// CHECK-NOT:     group
func.func @depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tgr.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, group = 4 : i64, tgr.name = "dw1"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  func.return %0 : tensor<1x4x4x4xf32>
}

// -----

// Channel multiplier 2 (8 outputs from 4 channels, group 4) is still depthwise;
// an already fused activation is kept.
// CHECK-LABEL: func.func @depthwise_multiplier
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<8x1x3x3xf32>)
// CHECK-NEXT:    %[[D:.*]] = tgr.depthwise_conv %[[X]], %[[W]] {fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:    func.return %[[D]]
func.func @depthwise_multiplier(%x: tensor<1x4x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = tgr.conv %x, %w {group = 4 : i64, fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %0 : tensor<1x8x6x6xf32>
}

// -----

// group 1: an ordinary conv.
// CHECK-LABEL: func.func @negative_group_one
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.depthwise_conv
func.func @negative_group_one(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = tgr.conv %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %0 : tensor<1x8x6x6xf32>
}

// -----

// A single-channel conv has group == C == 1: not depthwise (group must be > 1).
// CHECK-LABEL: func.func @negative_single_channel
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.depthwise_conv
func.func @negative_single_channel(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32> {
  %0 = tgr.conv %x, %w : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  func.return %0 : tensor<1x1x6x6xf32>
}

// -----

// group 2 of 4 channels: a grouped conv, not depthwise; group is kept.
// CHECK-LABEL: func.func @negative_group_two_of_four
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.depthwise_conv
func.func @negative_group_two_of_four(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tgr.conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %0 : tensor<1x4x6x6xf32>
}

// -----

// Rank 3 with group == C: a depthwise Conv1D, left for relabel-conv1d
// (tgr.depthwise_conv is rank-4 only).
// CHECK-LABEL: func.func @negative_rank3
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {group = 4 : i64} : (tensor<1x4x16xf32>, tensor<4x1x3xf32>) -> tensor<1x4x14xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.depthwise_conv
func.func @negative_rank3(%x: tensor<1x4x16xf32>, %w: tensor<4x1x3xf32>) -> tensor<1x4x14xf32> {
  %0 = tgr.conv %x, %w {group = 4 : i64} : (tensor<1x4x16xf32>, tensor<4x1x3xf32>) -> tensor<1x4x14xf32>
  func.return %0 : tensor<1x4x14xf32>
}
