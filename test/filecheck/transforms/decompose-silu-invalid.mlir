// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p decompose-silu | filecheck %s

// Swish with alpha != 1 is x * sigmoid(alpha * x) (GELU's sigmoid approximation for
// 1.702): not decomposed, rejected naming the node.

// CHECK: {{^}}node 'gelu_approx' (onnx.Swish): Swish with alpha 1.702 is not supported (only alpha = 1, i.e. SiLU)
func.func @swish_alpha_1702(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = onnx.Swish %x {alpha = 1.702 : f32, tgr.name = "gelu_approx"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}

// -----

// CHECK: {{^}}node 'onnx.Swish' (onnx.Swish): Swish with alpha 0.5 is not supported (only alpha = 1, i.e. SiLU)
func.func @swish_alpha_half_unnamed(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = onnx.Swish %x {alpha = 0.5 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}
