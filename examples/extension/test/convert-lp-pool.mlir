// RUN: tigris-opt %s --split-input-file -p convert-plugin-ops | filecheck %s
// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-plugin-ops,check-legal | filecheck %s --check-prefix=LEGAL

// The plugin's LpPool pattern, run by TiGrIS's convert-plugin-ops pass. The onnx dialect has no
// typed LpPool, so the importer keeps the node as onnx.generic; a float32 2-D one of the
// standard domain with explicit pads, no ceil_mode and p 1 or 2 becomes ext.lp_pool with the
// node's window (its SpatialWindow reads kernel_shape, strides, dilations and pads), and
// check-legal accepts it: a spatial plugin op that declares its window. Anything else is left
// alone.

// CHECK-LABEL: func.func @standard
// CHECK-NEXT:    %[[Y:.*]] = ext.lp_pool %{{.*}} {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, p = 1 : i64, tgr.name = "lp"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// LEGAL-LABEL: func.func @standard
// LEGAL:         ext.lp_pool
func.func @standard(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %y = onnx.generic %x {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, p = 1 : i64, auto_pad = "NOTSET"}, tgr.name = "lp"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// p defaults to ONNX's 2, which is ext.lp_pool's (not printed); dilations (opset 18) are kept.
// CHECK-LABEL: func.func @defaults_and_dilations
// CHECK-NEXT:    %[[Y:.*]] = ext.lp_pool %{{.*}} {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 1>, tgr.name = "d"} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @defaults_and_dilations(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x4xf32> {
  %y = onnx.generic %x {op_type = "LpPool", domain = "ai.onnx", node_attributes = {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 1>}, tgr.name = "d"} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x4xf32>
  func.return %y : tensor<1x1x3x4xf32>
}

// -----

// p = 3 has no kernel; auto_pad SAME_UPPER pads by a rule of its own; ceil_mode adds a window:
// none is converted, and check-legal names them.
// CHECK-LABEL: func.func @negative_unsupported
// CHECK-NEXT:    %[[A:.*]] = onnx.generic %{{.*}} {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, p = 3 : i64}
// CHECK-NEXT:    %[[B:.*]] = onnx.generic %{{.*}} {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, auto_pad = "SAME_UPPER"}
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, ceil_mode = 1 : i64}
// CHECK-NOT:     ext.lp_pool
// LEGAL:         3 operators are not supported: LpPool 'cube', LpPool 'same', LpPool 'ceil'
func.func @negative_unsupported(%x: tensor<1x1x6x6xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x6x6xf32>, tensor<1x1x4x4xf32>) {
  %a = onnx.generic %x {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, p = 3 : i64}, tgr.name = "cube"} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32>
  %b = onnx.generic %x {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, auto_pad = "SAME_UPPER"}, tgr.name = "same"} : (tensor<1x1x6x6xf32>) -> tensor<1x1x6x6xf32>
  %c = onnx.generic %x {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3, 3>, ceil_mode = 1 : i64}, tgr.name = "ceil"} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32>
  func.return %a, %b, %c : tensor<1x1x4x4xf32>, tensor<1x1x6x6xf32>, tensor<1x1x4x4xf32>
}

// -----

// A 1-D LpPool ([N, C, L]) is not the 2-D op the kernel runs.
// CHECK-LABEL: func.func @negative_1d
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "LpPool"
// CHECK-NOT:     ext.lp_pool
// LEGAL:         1 operator is not supported: LpPool 'seq'
func.func @negative_1d(%x: tensor<1x2x8xf32>) -> tensor<1x2x6xf32> {
  %y = onnx.generic %x {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 3>}, tgr.name = "seq"} : (tensor<1x2x8xf32>) -> tensor<1x2x6xf32>
  func.return %y : tensor<1x2x6xf32>
}

// -----

// A negative pad (a crop) is not a window the kernel runs.
// CHECK-LABEL: func.func @negative_crop
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 2, 2>, pads = array<i64: -1, 0, 0, 0>}
// CHECK-NOT:     ext.lp_pool
// LEGAL:         1 operator is not supported: LpPool 'crop'
func.func @negative_crop(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x4x5xf32> {
  %y = onnx.generic %x {op_type = "LpPool", node_attributes = {kernel_shape = array<i64: 2, 2>, pads = array<i64: -1, 0, 0, 0>}, tgr.name = "crop"} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x5xf32>
  func.return %y : tensor<1x1x4x5xf32>
}
