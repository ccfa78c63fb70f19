// RUN: tigris-opt %s --split-input-file -p convert-plugin-ops | filecheck %s
// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-plugin-ops,check-legal | filecheck %s --check-prefix=LEGAL

// The plugin's pattern, run by TiGrIS's convert-plugin-ops pass. The onnx dialect has no typed
// ThresholdedRelu, so the importer keeps the node as onnx.generic; a float32 one of the
// standard domain becomes ext.thresholded_relu with the same alpha, and check-legal then
// accepts it. Anything else is left alone.

// CHECK-LABEL: func.func @standard
// CHECK-NEXT:    %[[Y:.*]] = ext.thresholded_relu %{{.*}} {alpha = 2.500000e-01 : f32, tgr.name = "tr"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// LEGAL-LABEL: func.func @standard
// LEGAL:         ext.thresholded_relu
func.func @standard(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = onnx.generic %x {op_type = "ThresholdedRelu", node_attributes = {alpha = 0.25 : f32}, tgr.name = "tr"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// A node without alpha has ONNX's default, 1.0, which is ext.thresholded_relu's: nothing is
// printed. The domain may also be spelled "ai.onnx".
// CHECK-LABEL: func.func @defaults
// CHECK-NEXT:    %[[Y:.*]] = ext.thresholded_relu %{{.*}} {tgr.name = "d"} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @defaults(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = onnx.generic %x {op_type = "ThresholdedRelu", domain = "ai.onnx", tgr.name = "d"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

// float16 has no kernel: the op stays, and check-legal names it.
// CHECK-LABEL: func.func @negative_f16
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "ThresholdedRelu"
// CHECK-NOT:     ext.thresholded_relu
// LEGAL:         1 operator is not supported: ThresholdedRelu 'half'
func.func @negative_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = onnx.generic %x {op_type = "ThresholdedRelu", tgr.name = "half"} : (tensor<4xf16>) -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}

// -----

// The same name in an exporter's own domain is that exporter's op, whatever it computes.
// CHECK-LABEL: func.func @negative_other_domain
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "ThresholdedRelu", domain = "com.example"
// CHECK-NOT:     ext.thresholded_relu
// LEGAL:         1 operator is not supported: ThresholdedRelu 'mine'
func.func @negative_other_domain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = onnx.generic %x {op_type = "ThresholdedRelu", domain = "com.example", node_attributes = {alpha = 0.1 : f32}, tgr.name = "mine"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// An attribute ThresholdedRelu does not have, or an alpha that is not a float: not the op
// the kernel runs.
// CHECK-LABEL: func.func @negative_attributes
// CHECK-NEXT:    %[[A:.*]] = onnx.generic %{{.*}} {op_type = "ThresholdedRelu", node_attributes = {alpha = 1.000000e-01 : f32, beta = 2.000000e-01 : f32}
// CHECK-NEXT:    onnx.generic %[[A]] {op_type = "ThresholdedRelu", node_attributes = {alpha = 2 : i64}
// CHECK-NOT:     ext.thresholded_relu
// LEGAL:         2 operators are not supported: ThresholdedRelu 'extra', ThresholdedRelu 'int'
func.func @negative_attributes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = onnx.generic %x {op_type = "ThresholdedRelu", node_attributes = {alpha = 0.1 : f32, beta = 0.2 : f32}, tgr.name = "extra"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = onnx.generic %a {op_type = "ThresholdedRelu", node_attributes = {alpha = 2 : i64}, tgr.name = "int"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// Other generic ops are not the plugin's, whatever their attributes.
// CHECK-LABEL: func.func @negative_other_op
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "ThresholdedReluish"
// CHECK-NOT:     ext.thresholded_relu
// LEGAL:         1 operator is not supported: ThresholdedReluish 'other'
func.func @negative_other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = onnx.generic %x {op_type = "ThresholdedReluish", node_attributes = {alpha = 0.1 : f32}, tgr.name = "other"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
