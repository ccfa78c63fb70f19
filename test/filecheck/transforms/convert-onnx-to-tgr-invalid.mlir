// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr rejections: each names the ONNX node ('name' (op)) and says why.
// Each message is unique in this file, so a case that wrongly converts cannot be masked
// by the next one. Unnamed nodes are named by their op.

// AveragePool with dilations != 1 (the runtime's avg pool has none).
// CHECK: {{^}}node 'pool1' (onnx.AveragePool): AveragePool with dilations is not supported
func.func @avgpool_dilations(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %0 = onnx.AveragePool %x {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 2>, tgr.name = "pool1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
  func.return %0 : tensor<1x4x6x6xf32>
}

// -----

// MaxPool storage_order = 1 (column-major indices).
// CHECK: {{^}}node 'onnx.MaxPool' (onnx.MaxPool): MaxPool storage_order = 1 is not supported
func.func @maxpool_storage_order(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %0 = onnx.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  func.return %0 : tensor<1x4x4x4xf32>
}

// -----

// auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID.
// CHECK: {{^}}node 'c' (onnx.Conv): auto_pad 'SAME' is not an ONNX value
func.func @conv_bad_auto_pad(%x: tensor<1x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32> {
  %0 = onnx.Conv %x, %w {auto_pad = "SAME", tgr.name = "c"} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// BatchNormalization with training_mode = 1.
// CHECK: {{^}}node 'bn1' (onnx.BatchNormalization): BatchNormalization in training mode cannot be compiled for inference
func.func @bn_training(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = onnx.BatchNormalization %x, %p, %p, %p, %p {training_mode = 1 : i64, tgr.name = "bn1"} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}

// -----

// Gemm with alpha != 1.
// CHECK: {{^}}node 'fc1' (onnx.Gemm): Gemm with alpha != 1 or transA = 1 is not supported (export with alpha 1, transA 0)
func.func @gemm_alpha(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight dense<1.0> : tensor<3x4xf32>
  %0 = onnx.Gemm %a, %w {alpha = 2.0 : f32, transB = 1 : i64, tgr.name = "fc1"} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Gemm with transA = 1.
// CHECK: {{^}}node 'fc2' (onnx.Gemm): Gemm with alpha != 1 or transA = 1 is not supported (export with alpha 1, transA 0)
func.func @gemm_trans_a(%a: tensor<4x2xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight dense<1.0> : tensor<3x4xf32>
  %0 = onnx.Gemm %a, %w {transA = 1 : i64, transB = 1 : i64, tgr.name = "fc2"} : (tensor<4x2xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Gemm whose C is a non-constant [1, N]: only a [N] C with beta 1 may be an activation.
// CHECK: {{^}}node 'fc4' (onnx.Gemm): Gemm needs C to be a bias of 3 values (a constant, or any [3] with beta 1)
func.func @gemm_activation_c(%a: tensor<2x4xf32>, %c: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight dense<1.0> : tensor<3x4xf32>
  %0 = onnx.Gemm %a, %w, %c {transB = 1 : i64, tgr.name = "fc4"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Clip with a non-constant bound (max is a function argument).
// CHECK: {{^}}node 'clip1' (onnx.Clip): Clip max must be a constant
func.func @clip_activation_bound(%x: tensor<1x4xf32>, %hi: tensor<f32>) -> tensor<1x4xf32> {
  %lo = onnx.Constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = onnx.Clip %x, %lo, %hi {tgr.name = "clip1"} : (tensor<1x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}

// -----

// Pad with negative pads crops; the runtime pad cannot.
// CHECK: {{^}}node 'crop' (onnx.Pad): Pad with negative pads (cropping) is not supported
func.func @pad_negative(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x2x3xf32> {
  %pads = onnx.Constant {value = dense<[0, 0, -1, 0, 0, 0, 0, 0]> : tensor<8xi64>} : () -> tensor<8xi64>
  %0 = onnx.Pad %x, %pads {tgr.name = "crop"} : (tensor<1x2x3x3xf32>, tensor<8xi64>) -> tensor<1x2x2x3xf32>
  func.return %0 : tensor<1x2x2x3xf32>
}

// -----

// Pad whose pads are computed at run time.
// CHECK: {{^}}node 'pad1' (onnx.Pad): Pad needs constant pads
func.func @pad_activation_pads(%x: tensor<1x2x3x3xf32>, %pads: tensor<8xi64>) -> tensor<1x2x5x5xf32> {
  %0 = onnx.Pad %x, %pads {tgr.name = "pad1"} : (tensor<1x2x3x3xf32>, tensor<8xi64>) -> tensor<1x2x5x5xf32>
  func.return %0 : tensor<1x2x5x5xf32>
}

// -----

// ReduceMean whose axes are computed at run time.
// CHECK: {{^}}node 'mean1' (onnx.ReduceMean): reduction axes must be constant
func.func @reduce_activation_axes(%x: tensor<2x3x4x5xf32>, %axes: tensor<1xi64>) -> tensor<2x3x4x1xf32> {
  %0 = onnx.ReduceMean %x, %axes {tgr.name = "mean1"} : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x1xf32>
  func.return %0 : tensor<2x3x4x1xf32>
}

// -----

// After a failing chunk the next one still converts.
// CHECK-LABEL: func.func @still_converts
// CHECK-NEXT:    tgr.relu
func.func @still_converts(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = onnx.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}

// -----

// C of shape [M, 1] differs per row: it is not a bias, even though it has N (= M = 3) values.
// CHECK: {{^}}node 'gemm_col' (onnx.Gemm): Gemm needs C to be a bias of 3 values
func.func @gemm_column_c(%a: tensor<3x2xf32>) -> tensor<3x3xf32> {
  %b = tgr.weight dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %c = tgr.weight dense<[[10.0], [20.0], [30.0]]> : tensor<3x1xf32>
  %y = onnx.Gemm %a, %b, %c {transB = 1 : i64, tgr.name = "gemm_col"} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  func.return %y : tensor<3x3xf32>
}
