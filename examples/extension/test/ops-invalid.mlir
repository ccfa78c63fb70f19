// The verifiers: ext.thresholded_relu, float32 tensors of one type; ext.lp_pool, a float32
// [N, C, H, W] map, p 1 or 2, a 2-D window and the result shape it gives.
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

// -----

// CHECK: ext.lp_pool: p must be 1 or 2, got 3
func.func @lp_pool_p(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %y = ext.lp_pool %x {kernel_shape = array<i64: 3, 3>, p = 3 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  func.return %y : tensor<1x1x2x2xf32>
}

// -----

// CHECK: ext.lp_pool: needs a rank-4 [N, C, H, W] input, got [1, 1, 4]
func.func @lp_pool_rank(%x: tensor<1x1x4xf32>) -> tensor<1x1x2xf32> {
  %y = ext.lp_pool %x {kernel_shape = array<i64: 3>} : (tensor<1x1x4xf32>) -> tensor<1x1x2xf32>
  func.return %y : tensor<1x1x2xf32>
}

// -----

// CHECK: ext.lp_pool: result shape (1, 1, 3, 3) does not match expected (1, 1, 2, 2)
func.func @lp_pool_shape(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %y = ext.lp_pool %x {kernel_shape = array<i64: 3, 3>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// -----

// CHECK: ext.lp_pool: operands are float32 tensors, got tensor<1x1x4x4xi8>
func.func @lp_pool_int8(%x: tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8> {
  %y = ext.lp_pool %x {kernel_shape = array<i64: 3, 3>} : (tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8>
  func.return %y : tensor<1x1x2x2xi8>
}
