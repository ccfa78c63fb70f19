// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p extract-resize-scales | filecheck %s

// extract-resize-scales rejections, each naming the node. Each message is unique in
// this file, so a case that wrongly converts cannot be masked by the next one.

// 4 -> 6 rows is a factor of 1.5: tgr.resize only replicates/interpolates by whole numbers.
// CHECK: {{^}}node 'up_odd' (onnx.Resize): scale 1.5 on axis 2 is not a whole number >= 1 (4 -> 6 rows)
func.func @non_integer_factor(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x6x8xf32> {
  %sz = onnx.Constant {value = dense<[1, 3, 6, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = onnx.Resize %x, none, none, %sz {tgr.name = "up_odd"} : (tensor<1x3x4x4xf32>, tensor<4xi64>) -> tensor<1x3x6x8xf32>
  func.return %0 : tensor<1x3x6x8xf32>
}

// -----

// Downsampling 8 -> 4 is a factor of 0.5.
// CHECK: {{^}}node 'down' (onnx.Resize): scale 0.5 on axis 3 is not a whole number >= 1 (8 -> 4 rows)
func.func @downsample(%x: tensor<1x3x4x8xf32>) -> tensor<1x3x4x4xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 1.0, 0.5]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {tgr.name = "down"} : (tensor<1x3x4x8xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  func.return %0 : tensor<1x3x4x4xf32>
}

// -----

// CHECK: {{^}}node 'up_cubic' (onnx.Resize): resize mode 'cubic' is not supported (nearest or linear)
func.func @cubic(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {mode = "cubic", tgr.name = "up_cubic"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// round_prefer_ceil with factor 2 (asymmetric: source x / 2 rounds 0.5 up) picks
// [0, 1, 1, 2, ...], not the replicated [0, 0, 1, 1, ...].
// CHECK: {{^}}node 'up_ceil' (onnx.Resize): nearest_mode 'round_prefer_ceil' with coordinate_transformation_mode 'asymmetric' does not repeat pixels; the runtime's nearest resize does
func.func @round_prefer_ceil(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {coordinate_transformation_mode = "asymmetric", nearest_mode = "round_prefer_ceil", tgr.name = "up_ceil"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// CHECK: {{^}}node 'onnx.Resize' (onnx.Resize): nearest_mode 'ceil' with coordinate_transformation_mode 'asymmetric' does not repeat pixels; the runtime's nearest resize does
func.func @ceil_unnamed(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {coordinate_transformation_mode = "asymmetric", nearest_mode = "ceil"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// Upsample is checked the same way: 3 -> 5 is not whole.
// CHECK: {{^}}node 'onnx.Upsample' (onnx.Upsample): scale 1.66667 on axis 2 is not a whole number >= 1 (3 -> 5 rows)
func.func @upsample_non_integer(%x: tensor<1x2x3x5xf32>) -> tensor<1x2x5x5xf32> {
  %0 = onnx.Upsample %x {scales = array<f32: 1.0, 1.0, 1.66667, 1.0>} : (tensor<1x2x3x5xf32>) -> tensor<1x2x5x5xf32>
  func.return %0 : tensor<1x2x5x5xf32>
}

// -----

// half_pixel + floor, x2: source (i + 0.5) / 2 - 0.5 floors to [0, 0, 0, 1, 1, 2, 2, 3]
// (ONNX), not the replicated [0, 0, 1, 1, 2, 2, 3, 3].
// CHECK: {{^}}node 'hp_floor' (onnx.Resize): nearest_mode 'floor' with coordinate_transformation_mode 'half_pixel' does not repeat pixels; the runtime's nearest resize does
func.func @half_pixel_floor(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {nearest_mode = "floor", tgr.name = "hp_floor"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// asymmetric + round_prefer_floor, x3: i / 3 rounds 2/3 up, giving [0, 0, 1, 1, 1, 2, ...].
// CHECK: {{^}}node 'asym_x3' (onnx.Resize): nearest_mode 'round_prefer_floor' with coordinate_transformation_mode 'asymmetric' does not repeat pixels; the runtime's nearest resize does
func.func @asymmetric_x3(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x12x12xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 3.0, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {coordinate_transformation_mode = "asymmetric", tgr.name = "asym_x3"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x12x12xf32>
  func.return %0 : tensor<1x3x12x12xf32>
}

// -----

// tf_crop_and_resize reads an roi the runtime does not have.
// CHECK: {{^}}node 'crop' (onnx.Resize): coordinate_transformation_mode 'tf_crop_and_resize' (an roi) is not supported
func.func @crop(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.Resize %x, none, %sc {coordinate_transformation_mode = "tf_crop_and_resize", tgr.name = "crop"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}
