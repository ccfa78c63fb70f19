// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-onnx-to-tgr | filecheck %s

// Pow forms the runtime cannot compute are refused naming the node: a tensor exponent
// (tgr.pow_tensor) is computed in float32 only.

// CHECK: {{^}}node 'int_exponent' (onnx.Pow): Pow with a tensor exponent computes float32 only, got tensor<2x3xi64>
func.func @exponent_is_an_int64_activation(%x: tensor<2x3xf32>, %e: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = onnx.Pow %x, %e {tgr.name = "int_exponent"} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
