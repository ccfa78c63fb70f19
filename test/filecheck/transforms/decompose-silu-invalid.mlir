// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p decompose-silu | filecheck %s

// Swish with alpha != 1 in an int8 model: its decomposition's intermediate results (alpha * x,
// the sigmoid) would need quantization parameters the model does not give. Rejected naming the
// node.

// CHECK: {{^}}node 'gelu_approx' (onnx.Swish): Swish with alpha 1.702 in an int8 model is not supported (only alpha = 1, i.e. SiLU)
func.func @swish_alpha_1702_int8(%x: tensor<1x4x!tgr.quant<i8, 0.05:3>>) -> tensor<1x4x!tgr.quant<i8, 0.04:-100>> {
  %0 = onnx.Swish %x {alpha = 1.702 : f32, tgr.name = "gelu_approx"} : (tensor<1x4x!tgr.quant<i8, 0.05:3>>) -> tensor<1x4x!tgr.quant<i8, 0.04:-100>>
  func.return %0 : tensor<1x4x!tgr.quant<i8, 0.04:-100>>
}

// -----

// CHECK: {{^}}node 'onnx.Swish' (onnx.Swish): Swish with alpha 0.5 in an int8 model is not supported (only alpha = 1, i.e. SiLU)
func.func @swish_alpha_half_unnamed_uint8(%x: tensor<4x!tgr.quant<ui8, 0.05:128>>) -> tensor<4x!tgr.quant<ui8, 0.04:100>> {
  %0 = onnx.Swish %x {alpha = 0.5 : f32} : (tensor<4x!tgr.quant<ui8, 0.05:128>>) -> tensor<4x!tgr.quant<ui8, 0.04:100>>
  func.return %0 : tensor<4x!tgr.quant<ui8, 0.04:100>>
}
