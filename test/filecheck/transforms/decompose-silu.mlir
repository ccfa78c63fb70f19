// RUN: tigris-opt %s --split-input-file -p decompose-silu | filecheck %s

// decompose-silu: Swish with alpha != 1 is x * sigmoid(alpha * x) in float models. SiLU
// itself (Silu, Swish with alpha 1) is tgr.silu from convert-onnx-to-tgr (convert-unary.mlir):
// left alone here. An int8 Swish with alpha != 1 is rejected: see decompose-silu-invalid.mlir.

// CHECK-LABEL: func.func @swish_alpha_1702
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %[[K:.*]] = tgr.weight {tgr.name = "gelu_approx.alpha"} dense<1.702000e+00> : tensor<f32>
// CHECK-NEXT:    %[[AX:.*]] = tgr.mul %[[X]], %[[K]] {tgr.name = "gelu_approx"} : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %[[AX]] {tgr.name = "gelu_approx"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[M:.*]] = tgr.mul %[[X]], %[[S]] {tgr.name = "gelu_approx"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// The consumer now reads the product.
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[M]]
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     onnx.Swish
func.func @swish_alpha_1702(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = onnx.Swish %x {alpha = 1.702 : f32, tgr.name = "gelu_approx"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = tgr.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %1 : tensor<1x4x8x8xf32>
}

// -----

// SiLU (alpha 1, given or ONNX's default, and Silu) is not decomposed, and neither is a
// hand-written x * sigmoid(x): this pass leaves them as they are.
// CHECK-LABEL: func.func @negative_silu_left_alone
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// alpha 1 is ONNX's default, so it is not printed.
// CHECK-NEXT:    %[[A:.*]] = onnx.Swish %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = onnx.Swish %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[C:.*]] = onnx.Silu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = onnx.Sigmoid %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[M:.*]] = onnx.Mul %[[X]], %[[S]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]], %[[M]]
// CHECK-NOT:     tgr.
func.func @negative_silu_left_alone(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = onnx.Swish %x {alpha = 1.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Swish %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = onnx.Silu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = onnx.Sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = onnx.Mul %x, %3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
