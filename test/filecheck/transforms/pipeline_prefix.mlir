// RUN: tigris-opt %s -p convert-onnx-to-tgr,relabel-depthwise-conv,fuse-activations | filecheck %s
// RUN: tigris-opt %s -p convert-onnx-to-tgr | filecheck %s --check-prefix=CONVERT
// RUN: tigris-opt %s -p convert-onnx-to-tgr,relabel-depthwise-conv | filecheck %s --check-prefix=RELABEL
// RUN: tigris-opt %s --pass-pipeline='builtin.module(convert-onnx-to-tgr, relabel-depthwise-conv, fuse-activations)' | filecheck %s

// A prefix of the normalization passes runs by name, in the order given: a depthwise
// onnx.Conv (group = C = 4) with SAME_UPPER padding, then Relu, ends as one fused
// tgr.depthwise_conv. SAME_UPPER, 8x8, kernel 3, stride 1: total pad 2 -> 1, 1.

// CHECK-LABEL: func.func @main
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x1x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[D:.*]] = tgr.depthwise_conv %[[X]], %[[W]], %[[B]] {pads = array<i64: 1, 1, 1, 1>, fused_activation = "relu", tgr.name = "dw"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<1x4x8x8xf32>
// CHECK-NOT:     tgr.relu
// CHECK-NOT:     onnx.

// After the conversion alone: a grouped tgr.conv and a separate tgr.relu.
// CONVERT-LABEL: func.func @main
// CONVERT-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, group = 4 : i64, tgr.name = "dw"}
// CONVERT-NEXT:    %[[R:.*]] = tgr.relu %[[C]] {tgr.name = "act"}
// CONVERT-NEXT:    func.return %[[R]]

// After relabeling: depthwise, group dropped, relu still separate.
// RELABEL-LABEL: func.func @main
// RELABEL-NEXT:    %[[C:.*]] = tgr.depthwise_conv %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, tgr.name = "dw"}
// RELABEL-NEXT:    %[[R:.*]] = tgr.relu %[[C]] {tgr.name = "act"}
// RELABEL-NEXT:    func.return %[[R]]
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c = onnx.Conv %x, %w, %b {auto_pad = "SAME_UPPER", group = 4 : i64, kernel_shape = array<i64: 3, 3>, tgr.name = "dw"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = onnx.Relu %c {tgr.name = "act"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}
