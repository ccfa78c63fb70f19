// RUN: tigris-opt %s --split-input-file -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr, element-wise math (convert_unary.py): one tgr op per ONNX op,
// attributes kept under their names (ONNX defaults are tgr's, so not printed); SiLU
// (Silu, Swish with alpha 1) becomes tgr.silu; Pow with a constant scalar exponent
// becomes tgr.pow, any other float Pow tgr.pow_tensor. Refused forms are in
// convert-unary-invalid.mlir.

// CHECK-LABEL: func.func @math
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R0:.*]] = tgr.neg %[[X]] {tgr.name = "neg1"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R1:.*]] = tgr.abs %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R2:.*]] = tgr.exp %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R3:.*]] = tgr.log %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R4:.*]] = tgr.sqrt %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R5:.*]] = tgr.reciprocal %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R6:.*]] = tgr.softplus %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R7:.*]] = tgr.softsign %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R8:.*]] = tgr.erf %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R9:.*]] = tgr.sign %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[R8]], %[[R9]] :
// CHECK-NOT:     onnx.
func.func @math(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = onnx.Neg %x {tgr.name = "neg1"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = onnx.Exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = onnx.Log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = onnx.Sqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = onnx.Reciprocal %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = onnx.Softplus %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = onnx.Softsign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = onnx.Erf %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = onnx.Sign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @with_attributes
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    tgr.elu %[[X]] {alpha = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.selu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.selu %[[X]] {alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// beta absent: ONNX's 0.5, tgr's default too.
// CHECK-NEXT:    tgr.hard_sigmoid %[[X]] {alpha = 2.500000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.shrink %[[X]] {lambd = 1.500000e+00 : f32, bias = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.gelu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.gelu %[[X]] {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return
func.func @with_attributes(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = onnx.Elu %x {alpha = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Selu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = onnx.Selu %x {alpha = 1.5 : f32, gamma = 2.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = onnx.HardSigmoid %x {alpha = 0.25 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = onnx.Shrink %x {lambd = 1.5 : f32, bias = 0.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = onnx.Gelu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = onnx.Gelu %x {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// SiLU in its three spellings is one op; Swish with another alpha is not SiLU: left for
// decompose-silu, which refuses it naming the node.
// CHECK-LABEL: func.func @silu
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[S0:.*]] = tgr.silu %[[X]] {tgr.name = "silu1"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S1:.*]] = tgr.silu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S2:.*]] = tgr.silu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S3:.*]] = onnx.Swish %[[X]] {alpha = 1.702000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[S0]], %[[S1]], %[[S2]], %[[S3]] :
func.func @silu(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = onnx.Silu %x {tgr.name = "silu1"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Swish %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = onnx.Swish %x {alpha = 1.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = onnx.Swish %x {alpha = 1.702 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A hand-written x * sigmoid(x) is two ops, not a SiLU node: only its parts convert.
// CHECK-LABEL: func.func @mul_of_sigmoid_is_not_silu
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %x
// CHECK-NEXT:    tgr.mul %x, %[[S]]
// CHECK-NOT:     tgr.silu
func.func @mul_of_sigmoid_is_not_silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Mul %x, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// The exponent is a constant of one element (any rank that does not grow x): tgr.pow.
// CHECK-LABEL: func.func @pow_constant_exponent
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[P0:.*]] = tgr.pow %[[X]] {exponent = 2.000000e+00 : f32, tgr.name = "square"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[P1:.*]] = tgr.pow %[[X]] {exponent = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[P0]], %[[P1]] :
func.func @pow_constant_exponent(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %two = tgr.weight dense<2.0> : tensor<f32>
  %half = tgr.weight dense<[0.5]> : tensor<1xf32>
  %0 = onnx.Pow %x, %two {tgr.name = "square"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = onnx.Pow %x, %half : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Any other exponent: an activation, a constant of several elements, a constant that grows
// x's shape. Each is the broadcasting binary tgr.pow_tensor, the exponent an operand.
// CHECK-LABEL: func.func @pow_tensor_exponent
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>, %[[E:.*]]: tensor<2x3xf32>)
// CHECK:         %[[COLS:.*]] = tgr.weight dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK:         %[[TWO:.*]] = tgr.weight dense<2.000000e+00> : tensor<1x1x1xf32>
// CHECK-NEXT:    %[[P0:.*]] = tgr.pow_tensor %[[X]], %[[E]] {tgr.name = "by_activation"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[P1:.*]] = tgr.pow_tensor %[[X]], %[[COLS]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[P2:.*]] = tgr.pow_tensor %[[X]], %[[TWO]] : (tensor<2x3xf32>, tensor<1x1x1xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:    func.return %[[P0]], %[[P1]], %[[P2]] :
func.func @pow_tensor_exponent(%x: tensor<2x3xf32>, %e: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2x3xf32>) {
  %cols = tgr.weight dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %two = tgr.weight dense<2.0> : tensor<1x1x1xf32>
  %0 = onnx.Pow %x, %e {tgr.name = "by_activation"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.Pow %x, %cols : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = onnx.Pow %x, %two : (tensor<2x3xf32>, tensor<1x1x1xf32>) -> tensor<1x2x3xf32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2x3xf32>
}
