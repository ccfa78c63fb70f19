// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-onnx-to-tgr | filecheck %s

// Pow forms the runtime cannot compute are refused naming the node: the runtime's tgr.pow
// raises x to one constant exponent.

// CHECK: {{^}}node 'pow_by_activation' (onnx.Pow): Pow needs a constant scalar exponent (the runtime computes x ** c only)
func.func @exponent_is_an_activation(%x: tensor<2x3xf32>, %e: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Pow %x, %e {tgr.name = "pow_by_activation"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK: {{^}}node 'pow_per_column' (onnx.Pow): Pow needs a constant scalar exponent (the runtime computes x ** c only)
func.func @exponent_is_a_vector(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tgr.weight dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = onnx.Pow %x, %e {tgr.name = "pow_per_column"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK: {{^}}node 'pow_grows' (onnx.Pow): Pow whose exponent broadcasts the base to another shape is not supported
func.func @exponent_broadcasts_x(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  %e = tgr.weight dense<[[2.0]]> : tensor<1x1xf32>
  %0 = onnx.Pow %x, %e {tgr.name = "pow_grows"} : (tensor<3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
  func.return %0 : tensor<1x3xf32>
}
