// Plain xdsl-opt sees our dialects through the `xdsl.universe` entry point.
// RUN: xdsl-opt %s | filecheck %s
// RUN: xdsl-opt %s --print-op-generic | xdsl-opt | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[W:.*]] = tgr.weight dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[A:.*]] = onnx.Add %x, %[[W]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[A]] : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = tgr.weight dense<[1.0, -2.0]> : tensor<2xf32>
  %a = onnx.Add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = tgr.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
