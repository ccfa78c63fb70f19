// RUN: tigris-opt %s --split-input-file -p extract-resize-scales | filecheck %s

// extract-resize-scales: onnx.Resize / onnx.Upsample -> tgr.resize with integer
// per-axis factors taken from the static shapes (output / input), whether the model
// gave scales or sizes. Rejections are in extract-resize-scales-invalid.mlir.

// scales input [1, 1, 2, 2], nearest (default mode and nearest_mode round_prefer_floor).
// CHECK-LABEL: func.func @resize_scales_nearest
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.resize %[[X]] {scales = array<i64: 1, 1, 2, 2>, tgr.name = "up1"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     onnx.
func.func @resize_scales_nearest(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {tgr.name = "up1"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// sizes input [1, 3, 12, 8] from 4x4: factors 12 / 4 = 3 and 8 / 4 = 2.
// The coordinate transformation mode is carried over.
// CHECK-LABEL: func.func @resize_sizes
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.resize %[[X]] {scales = array<i64: 1, 1, 3, 2>, coordinate_transformation_mode = "asymmetric"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x12x8xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     onnx.
func.func @resize_sizes(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x12x8xf32> {
  %sz = onnx.Constant {value = dense<[1, 3, 12, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = onnx.Resize %x, none, none, %sz {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x3x4x4xf32>, tensor<4xi64>) -> tensor<1x3x12x8xf32>
  func.return %0 : tensor<1x3x12x8xf32>
}

// -----

// linear mode (and align_corners) kept.
// CHECK-LABEL: func.func @resize_linear
// CHECK-NEXT:    %[[R:.*]] = tgr.resize %{{.*}} {scales = array<i64: 1, 1, 2, 2>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @resize_linear(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = tgr.weight dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// Upsample (opset 7-9) has no coordinate modes: it indexes as `asymmetric`.
// CHECK-LABEL: func.func @upsample_nearest
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x3x5xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.resize %[[X]] {scales = array<i64: 1, 1, 2, 3>, coordinate_transformation_mode = "asymmetric"} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x15xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     onnx.Upsample
func.func @upsample_nearest(%x: tensor<1x2x3x5xf32>) -> tensor<1x2x6x15xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Upsample %x, %sc : (tensor<1x2x3x5xf32>, tensor<4xf32>) -> tensor<1x2x6x15xf32>
  func.return %0 : tensor<1x2x6x15xf32>
}

// -----

// Opset-7 Upsample: scales as an attribute, mode "bilinear" is linear.
// CHECK-LABEL: func.func @upsample_bilinear
// CHECK-NEXT:    %[[R:.*]] = tgr.resize %{{.*}} {scales = array<i64: 1, 1, 2, 2>, mode = "linear", coordinate_transformation_mode = "asymmetric"} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x10xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @upsample_bilinear(%x: tensor<1x2x3x5xf32>) -> tensor<1x2x6x10xf32> {
  %0 = onnx.Upsample %x {mode = "bilinear", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x2x3x5xf32>) -> tensor<1x2x6x10xf32>
  func.return %0 : tensor<1x2x6x10xf32>
}

// -----

// round_prefer_ceil only matters when a factor is > 1; at factor 1 every nearest
// mode picks the same pixel, so this identity Resize is accepted.
// CHECK-LABEL: func.func @negative_round_prefer_ceil_identity
// CHECK-NEXT:    %[[R:.*]] = tgr.resize %{{.*}} {scales = array<i64: 1, 1, 1, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @negative_round_prefer_ceil_identity(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %sc = tgr.weight dense<1.0> : tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {nearest_mode = "round_prefer_ceil"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  func.return %0 : tensor<1x3x4x4xf32>
}

// -----

// Not a resize: a Reshape and a Transpose are left alone.
// CHECK-LABEL: func.func @negative_not_resize
// CHECK:         onnx.Reshape
// CHECK-NEXT:    onnx.Transpose
// CHECK-NOT:     tgr.resize
func.func @negative_not_resize(%x: tensor<1x3x4x4xf32>) -> (tensor<1x48xf32>, tensor<1x4x4x3xf32>) {
  %shape = tgr.weight dense<[1, 48]> : tensor<2xi64>
  %0 = onnx.Reshape %x, %shape : (tensor<1x3x4x4xf32>, tensor<2xi64>) -> tensor<1x48xf32>
  %1 = onnx.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  func.return %0, %1 : tensor<1x48xf32>, tensor<1x4x4x3xf32>
}

// -----

// half_pixel + round_prefer_ceil, x2: (i + 0.5) / 2 - 0.5 = i/2 - 0.25 rounds to i // 2,
// pixel replication, so it is accepted.
// CHECK-LABEL: func.func @half_pixel_round_prefer_ceil
// CHECK-NEXT:    tgr.resize %{{.*}} {scales = array<i64: 1, 1, 2, 2>
func.func @half_pixel_round_prefer_ceil(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {nearest_mode = "round_prefer_ceil"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}
