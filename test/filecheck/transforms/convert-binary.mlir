// RUN: tigris-opt %s --split-input-file -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr's patterns of transforms/normalize/convert_binary.py: PRelu, variadic
// Max/Min/Mean, and Gemm whose B is an activation.

// PRelu with a per-channel constant slope: tgr.prelu, the slope an operand.
// CHECK-LABEL: func.func @prelu
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x4xf32>)
// CHECK-NEXT:    %[[S:.*]] = tgr.weight
// CHECK-NEXT:    %[[Y:.*]] = tgr.prelu %[[X]], %[[S]] {tgr.name = "act"} : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @prelu(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %s = tgr.weight dense<[[[0.1]], [[0.2]], [[0.3]]]> : tensor<3x1x1xf32>
  %0 = onnx.PRelu %x, %s {tgr.name = "act"} : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %0 : tensor<1x3x4x4xf32>
}

// -----

// A [C] slope that does not broadcast to X [N, C, L] is opset 6's per-channel slope (the version
// converter leaves it as is): unsqueezed to [C, 1].
// CHECK-LABEL: func.func @prelu_opset6_channels
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x5xf32>, %[[S:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[U:.*]] = tgr.unsqueeze %[[S]] {axes = array<i64: 1>, tgr.name = "act"} : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.prelu %[[X]], %[[U]] {tgr.name = "act"} : (tensor<2x3x5xf32>, tensor<3x1xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @prelu_opset6_channels(%x: tensor<2x3x5xf32>, %s: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %0 = onnx.PRelu %x, %s {tgr.name = "act"} : (tensor<2x3x5xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}

// -----

// Max/Min of n inputs: a left-to-right chain of n - 1 binary ops, each typed with the broadcast
// of its operands; a single input is the input itself.
// CHECK-LABEL: func.func @max_min_chains
// CHECK-SAME:      (%[[A:.*]]: tensor<1x3x4x4xf32>, %[[B:.*]]: tensor<1x3x1x1xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[M0:.*]] = tgr.max %[[A]], %[[B]] {tgr.name = "mx"} : (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[M1:.*]] = tgr.max %[[M0]], %[[C]] {tgr.name = "mx"} : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[N:.*]] = tgr.min %[[B]], %[[A]] {tgr.name = "mn"} : (tensor<1x3x1x1xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %[[M1]], %[[N]], %[[A]]
func.func @max_min_chains(%a: tensor<1x3x4x4xf32>, %b: tensor<1x3x1x1xf32>, %c: tensor<4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %0 = onnx.Max %a, %b, %c {tgr.name = "mx"} : (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  %1 = onnx.Min %b, %a {tgr.name = "mn"} : (tensor<1x3x1x1xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %2 = onnx.Max %a {tgr.name = "one"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  func.return %0, %1, %2 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// Mean of n inputs: the adds of Sum, then a mul by float32(1/3) = 0.333333343.
// CHECK-LABEL: func.func @mean
// CHECK-SAME:      (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[S0:.*]] = tgr.add %[[A]], %[[B]] {tgr.name = "avg"}
// CHECK-NEXT:    %[[S1:.*]] = tgr.add %[[S0]], %[[C]] {tgr.name = "avg"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[K:.*]] = tgr.weight {tgr.name = "avg.inv_count"} dense<0.333333343> : tensor<1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.mul %[[S1]], %[[K]] {tgr.name = "avg"} : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @mean(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Mean %a, %b, %c {tgr.name = "avg"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Gemm of two activations with every attribute: transposes, matmul, * alpha, + beta * C.
// CHECK-LABEL: func.func @gemm_of_activations
// CHECK-SAME:      (%[[A:.*]]: tensor<4x2xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[C:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[AT:.*]] = tgr.transpose %[[A]] {perm = array<i64: 1, 0>, tgr.name = "mm"} : (tensor<4x2xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[BT:.*]] = tgr.transpose %[[B]] {perm = array<i64: 1, 0>, tgr.name = "mm"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[P:.*]] = tgr.matmul %[[AT]], %[[BT]] {tgr.name = "mm"} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[AL:.*]] = tgr.weight {tgr.name = "mm.alpha"} dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-NEXT:    %[[PA:.*]] = tgr.mul %[[P]], %[[AL]] {tgr.name = "mm"}
// CHECK-NEXT:    %[[BE:.*]] = tgr.weight {tgr.name = "mm.beta"} dense<2.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT:    %[[CB:.*]] = tgr.mul %[[C]], %[[BE]] {tgr.name = "mm"}
// CHECK-NEXT:    %[[Y:.*]] = tgr.add %[[PA]], %[[CB]] {tgr.name = "mm"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_of_activations(%a: tensor<4x2xf32>, %b: tensor<3x4xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Gemm %a, %b, %c {transA = 1 : i64, transB = 1 : i64, alpha = 0.5 : f32, beta = 2.0 : f32, tgr.name = "mm"} : (tensor<4x2xf32>, tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Defaults (alpha 1, no C): the matmul alone.
// CHECK-LABEL: func.func @gemm_of_activations_plain
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>)
// CHECK-NEXT:    %[[Y:.*]] = tgr.matmul %[[A]], %[[B]] {tgr.name = "mm"} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_of_activations_plain(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.Gemm %a, %b {tgr.name = "mm"} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// A constant C takes beta in: 2 * [1, -2, 3] = [2, -4, 6], no mul.
// CHECK-LABEL: func.func @gemm_constant_c_beta
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>)
// CHECK-NEXT:    %[[P:.*]] = tgr.matmul %[[A]], %[[B]] {tgr.name = "mm"}
// CHECK-NEXT:    %[[C:.*]] = tgr.weight {tgr.name = "mm.beta_c"} dense<[2.000000e+00, -4.000000e+00, 6.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.add %[[P]], %[[C]] {tgr.name = "mm"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_constant_c_beta(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = tgr.weight dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %0 = onnx.Gemm %a, %b, %c {beta = 2.0 : f32, tgr.name = "mm"} : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Left alone by the Gemm-of-activations pattern: a constant B is a fully_connected layer.
// CHECK-LABEL: func.func @gemm_constant_b_left_alone
// CHECK-NOT:     tgr.matmul
// CHECK:         tgr.fully_connected
// CHECK-NOT:     tgr.matmul
func.func @gemm_constant_b_left_alone(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight dense<1.0> : tensor<3x4xf32>
  %0 = onnx.Gemm %a, %w {transB = 1 : i64, tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
