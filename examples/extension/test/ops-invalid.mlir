// ext.thresholded_relu's verifier: float32 tensors of one type.
// RUN: tigris-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: ext.thresholded_relu: operands are float32 tensors, got tensor<4xi8>
func.func @not_float(%x: tensor<4xi8>) -> tensor<4xi8> {
  %y = ext.thresholded_relu %x : (tensor<4xi8>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}

// -----

// CHECK: ext.thresholded_relu: result type tensor<5xf32> differs from tensor<4xf32>
func.func @shape(%x: tensor<4xf32>) -> tensor<5xf32> {
  %y = ext.thresholded_relu %x : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}
