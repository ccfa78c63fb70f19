// RUN: tigris-opt %s --split-input-file -p relabel-conv1d | filecheck %s

// relabel-conv1d: a tgr.conv over [N, C, L] (rank 3) is a tgr.conv1d. Unlike
// depthwise, group is kept: Conv1D may be grouped.

// CHECK-LABEL: func.func @conv1d
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x16xf32>, %[[W:.*]]: tensor<8x4x3xf32>, %[[B:.*]]: tensor<8xf32>)
// (16 + 1 + 1 - 3) / 2 + 1 = 8
// CHECK-NEXT:    %[[C:.*]] = tgr.conv1d %[[X]], %[[W]], %[[B]] {strides = array<i64: 2>, pads = array<i64: 1, 1>, tgr.name = "c1d"} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.conv %
func.func @conv1d(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8xf32> {
  %0 = tgr.conv %x, %w, %b {strides = array<i64: 2>, pads = array<i64: 1, 1>, tgr.name = "c1d"} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
  func.return %0 : tensor<1x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @conv1d_grouped
// CHECK-NEXT:    %[[C:.*]] = tgr.conv1d %{{.*}}, %{{.*}} {group = 2 : i64, fused_activation = "relu"} : (tensor<1x4x16xf32>, tensor<6x2x3xf32>) -> tensor<1x6x14xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @conv1d_grouped(%x: tensor<1x4x16xf32>, %w: tensor<6x2x3xf32>) -> tensor<1x6x14xf32> {
  %0 = tgr.conv %x, %w {group = 2 : i64, fused_activation = "relu"} : (tensor<1x4x16xf32>, tensor<6x2x3xf32>) -> tensor<1x6x14xf32>
  func.return %0 : tensor<1x6x14xf32>
}

// -----

// CHECK-LABEL: func.func @conv1d_depthwise
// CHECK-NEXT:    %[[C:.*]] = tgr.conv1d %{{.*}}, %{{.*}} {group = 4 : i64} : (tensor<1x4x16xf32>, tensor<4x1x3xf32>) -> tensor<1x4x14xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @conv1d_depthwise(%x: tensor<1x4x16xf32>, %w: tensor<4x1x3xf32>) -> tensor<1x4x14xf32> {
  %0 = tgr.conv %x, %w {group = 4 : i64} : (tensor<1x4x16xf32>, tensor<4x1x3xf32>) -> tensor<1x4x14xf32>
  func.return %0 : tensor<1x4x14xf32>
}

// -----

// A rank-4 conv is 2-D: untouched.
// CHECK-LABEL: func.func @negative_rank4
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.conv1d
func.func @negative_rank4(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tgr.conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %0 : tensor<1x4x6x6xf32>
}
