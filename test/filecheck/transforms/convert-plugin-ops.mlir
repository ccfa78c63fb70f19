// RUN: tigris-opt %s --split-input-file -p convert-plugin-ops | filecheck %s

// convert-plugin-ops runs the installed plugins' normalize_patterns (docs/extending.md).
// Whatever is installed, ops no plugin claims stay as they are, for check-legal to report.
// With no plugin installed that is every op: test/python/test_plugins.py checks it, and the
// example plugin's own cases are in examples/extension/test/convert-thresholded-relu.mlir.

// CHECK-LABEL: func.func @negative_unclaimed
// CHECK-NEXT:    %[[L:.*]] = onnx.LRN %{{.*}} {size = 3 : i64, tgr.name = "norm"}
// CHECK-NEXT:    %[[G:.*]] = onnx.generic %[[L]] {op_type = "Foo", domain = "my.domain", tgr.name = "foo"}
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[G]]
// CHECK-NEXT:    func.return %[[R]]
func.func @negative_unclaimed(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = onnx.LRN %x {size = 3 : i64, tgr.name = "norm"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = onnx.generic %0 {op_type = "Foo", domain = "my.domain", tgr.name = "foo"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = tgr.relu %1 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %2 : tensor<1x4x8x8xf32>
}

// -----

// An empty function is fine.
// CHECK-LABEL: func.func @negative_empty
// CHECK-NEXT:    func.return
func.func @negative_empty(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
