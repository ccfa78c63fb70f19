// RUN: tigris-opt %s --split-input-file -p fold-constants | filecheck %s

// fold-constants: constants become tgr.weight; ops the shared folding rule can evaluate
// (all operands constant, or Shape/Size of a static tensor) are evaluated by the interpreter.

// Shape from axis -2 of a 2x3x4 tensor is [3, 4] (ONNX clamps negative starts from the end);
// Size is 24. Equal/Where/Range/ConstantOfShape on those fold in turn.
// CHECK-LABEL: func.func @shape_chain
// CHECK-NEXT:    %[[S:.*]] = tgr.weight {tgr.name = "tail"} dense<[3, 4]> : tensor<2xi64>
// CHECK-NEXT:    %[[N:.*]] = tgr.weight {tgr.name = "count"} dense<24> : tensor<i64>
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "where"} dense<[1, 4]> : tensor<2xi64>
// CHECK-NEXT:    %[[R:.*]] = tgr.weight {tgr.name = "range"} dense<[0, 8, 16]> : tensor<3xi64>
// CHECK-NEXT:    %[[F:.*]] = tgr.weight {tgr.name = "fill"} dense<5> : tensor<1x4xi32>
// CHECK-NEXT:    func.return %[[S]], %[[N]], %[[W]], %[[R]], %[[F]]
// CHECK-NOT:     onnx.
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> (tensor<2xi64>, tensor<i64>, tensor<2xi64>, tensor<3xi64>, tensor<1x4xi32>) {
  %s = onnx.Shape %x {start = -2 : i64, tgr.name = "tail"} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %n = onnx.Size %x {tgr.name = "count"} : (tensor<2x3x4xf32>) -> tensor<i64>
  %three = onnx.Constant {value = dense<[3, 7]> : tensor<2xi64>} : () -> tensor<2xi64>
  %one = onnx.Constant {value = dense<[1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %eq = onnx.Equal %s, %three : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  %w = onnx.Where %eq, %one, %s {tgr.name = "where"} : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %zero = onnx.Constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %step = onnx.Constant {value = dense<8> : tensor<i64>} : () -> tensor<i64>
  %r = onnx.Range %zero, %n, %step {tgr.name = "range"} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %w1 = onnx.Constant {value = dense<[1, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %f = onnx.ConstantOfShape %w1 {value = dense<5> : tensor<1xi32>, tgr.name = "fill"} : (tensor<2xi64>) -> tensor<1x4xi32>
  func.return %s, %n, %w, %r, %f : tensor<2xi64>, tensor<i64>, tensor<2xi64>, tensor<3xi64>, tensor<1x4xi32>
}

// -----

// Identity and inference-mode Dropout disappear; the Dropout mask becomes an all-true weight.
// CHECK-LABEL: func.func @identity_and_dropout
// CHECK-SAME:      (%[[X:.*]]: tensor<2x2xf32>)
// CHECK-NEXT:    %[[M:.*]] = tgr.weight {tgr.name = "drop"} dense<true> : tensor<2x2xi1>
// CHECK-NEXT:    func.return %[[X]], %[[M]]
func.func @identity_and_dropout(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xi1>) {
  %i = onnx.Identity %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y, %m = onnx.Dropout %i {ratio = 5.000000e-01 : f32, tgr.name = "drop"} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xi1>)
  func.return %y, %m : tensor<2x2xf32>, tensor<2x2xi1>
}

// -----

// Left alone: an op with a run-time operand, a DequantizeLinear of an int8 weight (fold-qdq
// keeps int8 weights), and a generic op (no semantics to evaluate).
// CHECK-LABEL: func.func @negative_not_constant
// CHECK-NEXT:    %[[C:.*]] = tgr.weight {{.*}}dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = onnx.Mul %x, %[[C]]
// CHECK-NEXT:    %[[Q:.*]] = tgr.weight dense<3> : tensor<2xi8>
// CHECK-NEXT:    %[[S:.*]] = tgr.weight dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[D:.*]] = onnx.DequantizeLinear %[[Q]], %[[S]]
// CHECK-NEXT:    %[[G:.*]] = onnx.generic %[[C]] {op_type = "Foo"}
// CHECK-NEXT:    func.return %[[M]], %[[D]], %[[G]]
func.func @negative_not_constant(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %c = onnx.Constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %m = onnx.Mul %x, %c : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %q = tgr.weight dense<3> : tensor<2xi8>
  %s = tgr.weight dense<0.5> : tensor<f32>
  %d = onnx.DequantizeLinear %q, %s : (tensor<2xi8>, tensor<f32>) -> tensor<2xf32>
  %g = onnx.generic %c {op_type = "Foo"} : (tensor<f32>) -> tensor<f32>
  func.return %m, %d, %g : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}
