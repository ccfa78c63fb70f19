// ext.thresholded_relu and ext.lp_pool print and parse back, in tigris-opt and in plain xdsl-opt (which sees
// the plugin's dialect through TiGrIS's xdsl.universe entry point), generic form included.
// RUN: tigris-opt %s | filecheck %s
// RUN: xdsl-opt %s | filecheck %s
// RUN: tigris-opt %s --print-op-generic | xdsl-opt | filecheck %s

// CHECK-LABEL: func.func @roundtrip
// CHECK-NEXT:    %[[A:.*]] = ext.thresholded_relu %{{.*}} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[B:.*]] = ext.thresholded_relu %[[A]] {alpha = -1.250000e-01 : f32} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @roundtrip(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %a = ext.thresholded_relu %x : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %b = ext.thresholded_relu %a {alpha = -0.125 : f32} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  func.return %b : tensor<1x2x3x3xf32>
}

// CHECK-LABEL: func.func @lp_pool
// CHECK-NEXT:    %[[A:.*]] = ext.lp_pool %{{.*}} {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
// CHECK-NEXT:    %[[B:.*]] = ext.lp_pool %[[A]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 2, 1>, p = 1 : i64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @lp_pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x2x3xf32> {
  %a = ext.lp_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, p = 2 : i64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %b = ext.lp_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 2, 1>, p = 1 : i64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x2x3xf32>
  func.return %b : tensor<1x2x2x3xf32>
}
