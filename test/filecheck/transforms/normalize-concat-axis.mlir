// RUN: tigris-opt %s --split-input-file -p normalize-concat-axis | filecheck %s

// normalize-concat-axis: a rank-4 concat's axis is rewritten in the runtime's NHWC
// order and marked `layout = "nhwc"` (the tensors keep their NCHW types). NCHW axis
// a is NHWC axis (0, 3, 1, 2)[a]: N -> 0, C -> 3, H -> 1, W -> 2. Other ranks only get
// a non-negative axis.

// Channels (NCHW 1) are NHWC 3.
// CHECK-LABEL: func.func @rank4_channels
// CHECK-SAME:      (%[[A:.*]]: tensor<1x3x4x5xf32>, %[[B:.*]]: tensor<1x2x4x5xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %[[A]], %[[B]] {axis = 3 : i64, layout = "nhwc", tgr.name = "cat"} : (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @rank4_channels(%a: tensor<1x3x4x5xf32>, %b: tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32> {
  %0 = tgr.concat %a, %b {axis = 1 : i64, tgr.name = "cat"} : (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32>
  func.return %0 : tensor<1x5x4x5xf32>
}

// -----

// axis -3 of rank 4 is NCHW 1 (channels) -> NHWC 3.
// CHECK-LABEL: func.func @rank4_negative_axis
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %{{.*}}, %{{.*}} {axis = 3 : i64, layout = "nhwc"} : (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @rank4_negative_axis(%a: tensor<1x3x4x5xf32>, %b: tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32> {
  %0 = tgr.concat %a, %b {axis = -3 : i64} : (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32>
  func.return %0 : tensor<1x5x4x5xf32>
}

// -----

// Height (NCHW 2) is NHWC 1; width (NCHW 3) is NHWC 2; batch stays 0.
// CHECK-LABEL: func.func @rank4_spatial_and_batch
// CHECK-SAME:      (%[[A:.*]]: tensor<1x3x4x5xf32>)
// CHECK-NEXT:    %[[H:.*]] = tgr.concat %[[A]], %[[A]] {axis = 1 : i64, layout = "nhwc"} : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x8x5xf32>
// CHECK-NEXT:    %[[W:.*]] = tgr.concat %[[A]], %[[A]] {axis = 2 : i64, layout = "nhwc"} : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x4x10xf32>
// CHECK-NEXT:    %[[N:.*]] = tgr.concat %[[A]], %[[A]] {axis = 0 : i64, layout = "nhwc"} : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    func.return %[[H]], %[[W]], %[[N]] :
func.func @rank4_spatial_and_batch(%a: tensor<1x3x4x5xf32>) -> (tensor<1x3x8x5xf32>, tensor<1x3x4x10xf32>, tensor<2x3x4x5xf32>) {
  %0 = tgr.concat %a, %a {axis = 2 : i64} : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x8x5xf32>
  %1 = tgr.concat %a, %a {axis = 3 : i64} : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x4x10xf32>
  %2 = tgr.concat %a, %a {axis = 0 : i64} : (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %0, %1, %2 : tensor<1x3x8x5xf32>, tensor<1x3x4x10xf32>, tensor<2x3x4x5xf32>
}

// -----

// Rank 2 has no layout change: axis -1 becomes 1 and the layout stays nchw (not printed).
// CHECK-LABEL: func.func @rank2_negative_axis
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     nhwc
func.func @rank2_negative_axis(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x7xf32> {
  %0 = tgr.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  func.return %0 : tensor<2x7xf32>
}

// -----

// Rank 3: axis -1 -> 2, no layout.
// CHECK-LABEL: func.func @rank3_negative_axis
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<1x4x3xf32>, tensor<1x4x3xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @rank3_negative_axis(%a: tensor<1x4x3xf32>) -> tensor<1x4x6xf32> {
  %0 = tgr.concat %a, %a {axis = -1 : i64} : (tensor<1x4x3xf32>, tensor<1x4x3xf32>) -> tensor<1x4x6xf32>
  func.return %0 : tensor<1x4x6xf32>
}

// -----

// Already NHWC: axis 3 already means channels and must not be mapped again (to 2).
// CHECK-LABEL: func.func @negative_already_nhwc
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %{{.*}}, %{{.*}} {axis = 3 : i64, layout = "nhwc"} : (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @negative_already_nhwc(%a: tensor<1x3x4x5xf32>, %b: tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32> {
  %0 = tgr.concat %a, %b {axis = 3 : i64, layout = "nhwc"} : (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x5x4x5xf32>
  func.return %0 : tensor<1x5x4x5xf32>
}

// -----

// Rank 2 with a non-negative axis: nothing to do.
// CHECK-LABEL: func.func @negative_rank2_normalized
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @negative_rank2_normalized(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = tgr.concat %a, %a {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}
