// RUN: tigris-opt %s --split-input-file -p decompose-silu | filecheck %s

// decompose-silu: SiLU(x) = x * sigmoid(x), from onnx.Swish with alpha 1 (the
// default) or onnx.Silu. Swish with another alpha is rejected: see
// decompose-silu-invalid.mlir.

// CHECK-LABEL: func.func @swish_alpha_one
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %[[X]] {tgr.name = "act1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[M:.*]] = tgr.mul %[[X]], %[[S]] {tgr.name = "act1"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %[[M]]
// CHECK-NOT:     onnx.Swish
func.func @swish_alpha_one(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = onnx.Swish %x {alpha = 1.0 : f32, tgr.name = "act1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %0 : tensor<1x4x8x8xf32>
}

// -----

// alpha absent: ONNX's default is 1.
// CHECK-LABEL: func.func @swish_default_alpha
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[M:.*]] = tgr.mul %[[X]], %[[S]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @swish_default_alpha(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Swish %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @silu
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %[[X]] {tgr.name = "silu1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[M:.*]] = tgr.mul %[[X]], %[[S]] {tgr.name = "silu1"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// The consumer now reads the product.
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[M]]
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     onnx.Silu
func.func @silu(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = onnx.Silu %x {tgr.name = "silu1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = tgr.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %1 : tensor<1x4x8x8xf32>
}

// -----

// A hand-written x * sigmoid(x) and a lone Sigmoid are not SiLU nodes: untouched.
// CHECK-LABEL: func.func @negative_not_silu
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[S:.*]] = onnx.Sigmoid %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[M:.*]] = onnx.Mul %[[X]], %[[S]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[M]]
// CHECK-NOT:     tgr.
func.func @negative_not_silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Mul %x, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// uint8 storage: the sigmoid output is 1/256 steps from zero point 0 (int8 uses -128).
// CHECK-LABEL: func.func @silu_uint8
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %x {{.*}}-> tensor<4x!tgr.quant<ui8, 0.00390625:0>>
// CHECK-NEXT:    tgr.mul %x, %[[S]]
func.func @silu_uint8(%x: tensor<4x!tgr.quant<ui8, 0.05:128>>) -> tensor<4x!tgr.quant<ui8, 0.04:100>> {
  %y = onnx.Silu %x : (tensor<4x!tgr.quant<ui8, 0.05:128>>) -> tensor<4x!tgr.quant<ui8, 0.04:100>>
  func.return %y : tensor<4x!tgr.quant<ui8, 0.04:100>>
}
