// RUN: tigris-opt %s --split-input-file -p convert-plugin-ops | filecheck %s
// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-plugin-ops,check-legal | filecheck %s --check-prefix=LEGAL

// The plugin's pattern, run by TiGrIS's convert-plugin-ops pass: a float32 HardSigmoid,
// typed (`onnx.HardSigmoid`) or generic (another domain's), becomes ext.hard_sigmoid with
// the same alpha and beta; check-legal then accepts it. Anything else is left alone.

// CHECK-LABEL: func.func @typed
// CHECK-NEXT:    %[[Y:.*]] = ext.hard_sigmoid %{{.*}} {alpha = 2.500000e-01 : f32, beta = 4.000000e-01 : f32, tgr.name = "hs"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// LEGAL-LABEL: func.func @typed
// LEGAL:         ext.hard_sigmoid
func.func @typed(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = onnx.HardSigmoid %x {alpha = 0.25 : f32, beta = 0.4 : f32, tgr.name = "hs"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// ONNX's defaults (alpha 0.2, beta 0.5) are ext.hard_sigmoid's: nothing is printed.
// CHECK-LABEL: func.func @defaults
// CHECK-NEXT:    %[[Y:.*]] = ext.hard_sigmoid %{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @defaults(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = onnx.HardSigmoid %x : (tensor<8xf32>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

// An exporter's own domain: the importer keeps the node as onnx.generic.
// CHECK-LABEL: func.func @generic
// CHECK-NEXT:    %[[Y:.*]] = ext.hard_sigmoid %{{.*}} {alpha = 1.000000e-01 : f32, tgr.name = "g"} : (tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @generic(%x: tensor<1x3x5xf32>) -> tensor<1x3x5xf32> {
  %y = onnx.generic %x {op_type = "HardSigmoid", domain = "com.example", node_attributes = {alpha = 0.1 : f32}, tgr.name = "g"} : (tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  func.return %y : tensor<1x3x5xf32>
}

// -----

// float16 has no kernel: the op stays, and check-legal names it.
// CHECK-LABEL: func.func @negative_f16
// CHECK-NEXT:    onnx.HardSigmoid
// CHECK-NOT:     ext.hard_sigmoid
// LEGAL:         1 operator is not supported: HardSigmoid 'half'
func.func @negative_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = onnx.HardSigmoid %x {tgr.name = "half"} : (tensor<4xf16>) -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}

// -----

// Other generic ops are not the plugin's, whatever their attributes.
// CHECK-LABEL: func.func @negative_other_op
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "HardSwishish"
// CHECK-NOT:     ext.hard_sigmoid
// LEGAL:         1 operator is not supported: HardSwishish 'other'
func.func @negative_other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = onnx.generic %x {op_type = "HardSwishish", node_attributes = {alpha = 0.1 : f32}, tgr.name = "other"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
