// RUN: tigris-opt %s --split-input-file -p fold-batchnorm | filecheck %s

// fold-batchnorm: w' = w * k, b' = (b - mean) * k + beta per output channel,
// k = gamma / sqrt(var + eps). Expected values are worked out by hand next to each case
// (eps = 1 everywhere so the square roots come out whole). The batch norm's parameters,
// the old weight and the old conv are all erased.

// Worked example: 1x1 conv, weights [[1], [2]], no bias; gamma [2, 1], beta [0.5, 0],
// mean [1, 0], var [3, 0.25], eps 1.
// k = gamma / sqrt(var + eps) = [2 / 2, 1 / sqrt(1.25)] = [1, 0.894427]
// w' = w * k = [1, 1.788854]; b' = (0 - mean) * k + beta = [-1 + 0.5, 0] = [-0.5, 0]
// CHECK-LABEL: func.func @conv_no_bias
// CHECK-SAME:      (%[[X:.*]]: tensor<1x1x2x2xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "bn1.folded_weight"} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]]], {{\[}}{{\[}}[1.788854{{[0-9]*}}{{(e\+00)?}}]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "bn1.folded_bias"} dense<[-5.000000e-01, 0.000000e+00]> : tensor<2xf32>
// The conv keeps its own name and now produces the batch norm's result.
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {tgr.name = "conv1"} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.batch_norm
func.func @conv_no_bias(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = tgr.weight dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = tgr.weight dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = tgr.weight dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = tgr.weight dense<[1.0, 0.0]> : tensor<2xf32>
  %var = tgr.weight dense<[3.0, 0.25]> : tensor<2xf32>
  %c = tgr.conv %x, %w {tgr.name = "conv1"} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = tgr.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32, tgr.name = "bn1"} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Conv with bias [1, -1]; w [[1, 2], [3, 4]]; gamma [1, 2], var [3, 0], eps 1 -> k = [1/2, 2/1] = [0.5, 2]
// w' = [[0.5, 1], [6, 8]]; b' = (b - mean) * k + beta = [(1 - 3) * 0.5 + 0, (-1 - 1) * 2 + 0.25] = [-1, -3.75]
// An unnamed batch norm names the new weights after its op.
// CHECK-LABEL: func.func @conv_bias
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x3x3xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "tgr.batch_norm.folded_weight"} dense<{{\[}}{{\[}}{{\[}}[5.000000e-01]], {{\[}}[1.000000e+00]]], {{\[}}{{\[}}[6.000000e+00]], {{\[}}[8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "tgr.batch_norm.folded_bias"} dense<[-1.000000e+00, -3.750000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.batch_norm
func.func @conv_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tgr.weight dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = tgr.weight dense<[1.0, -1.0]> : tensor<2xf32>
  %gamma = tgr.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = tgr.weight dense<[0.0, 0.25]> : tensor<2xf32>
  %mean = tgr.weight dense<[3.0, 1.0]> : tensor<2xf32>
  %var = tgr.weight dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tgr.conv %x, %w, %b : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y = tgr.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// Grouped conv (4 inputs, group 2, 2 outputs): the fold is per output channel, so group
// does not matter. w [[2, 4], [-1, 0.5]] * k [0.5, 2] = [[1, 2], [-2, 1]];
// b' = -mean * k + beta = [-3 * 0.5 + 0, -1 * 2 + 0.25] = [-1.5, -1.75]. group stays.
// CHECK-LABEL: func.func @grouped_conv
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x2x2xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "bn.folded_weight"} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]], {{\[}}[2.000000e+00]]], {{\[}}{{\[}}[-2.000000e+00]], {{\[}}[1.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "bn.folded_bias"} dense<[-1.500000e+00, -1.750000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {group = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.batch_norm
func.func @grouped_conv(%x: tensor<1x4x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = tgr.weight dense<[[[[2.0]], [[4.0]]], [[[-1.0]], [[0.5]]]]> : tensor<2x2x1x1xf32>
  %gamma = tgr.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = tgr.weight dense<[0.0, 0.25]> : tensor<2xf32>
  %mean = tgr.weight dense<[3.0, 1.0]> : tensor<2xf32>
  %var = tgr.weight dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tgr.conv %x, %w {group = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = tgr.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32, tgr.name = "bn"} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Depthwise (group = C = 2, still tgr.conv before relabel-depthwise-conv):
// w [[1, 2, 3, 4], [5, 6, 7, 8]] * k [0.5, 2] = [[0.5, 1, 1.5, 2], [10, 12, 14, 16]];
// mean 0 -> b' = beta = [1, 2].
// CHECK-LABEL: func.func @depthwise_conv
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "bn.folded_weight"} dense<{{\[}}{{\[}}{{\[}}[5.000000e-01, 1.000000e+00], [1.500000e+00, 2.000000e+00]]], {{\[}}{{\[}}[1.000000e+01, 1.200000e+01], [1.400000e+01, 1.600000e+01]]]]> : tensor<2x1x2x2xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "bn.folded_bias"} dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.batch_norm
func.func @depthwise_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %w = tgr.weight dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xf32>
  %gamma = tgr.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = tgr.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %mean = tgr.weight dense<[0.0, 0.0]> : tensor<2xf32>
  %var = tgr.weight dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tgr.conv %x, %w {group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x3x3xf32>
  %y = tgr.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32, tgr.name = "bn"} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// Conv1D (rank-3 tgr.conv): w [[1, 2, 3], [4, 5, 6]] * k [0.5, 2] = [[0.5, 1, 1.5], [8, 10, 12]];
// b' = -mean * k = [-2 * 0.5, 1 * 2] = [-1, 2].
// CHECK-LABEL: func.func @conv1d
// CHECK-SAME:      (%[[X:.*]]: tensor<1x1x5xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "bn.folded_weight"} dense<{{\[}}{{\[}}[5.000000e-01, 1.000000e+00, 1.500000e+00]], {{\[}}[8.000000e+00, 1.000000e+01, 1.200000e+01]]]> : tensor<2x1x3xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "bn.folded_bias"} dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] : (tensor<1x1x5xf32>, tensor<2x1x3xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.batch_norm
func.func @conv1d(%x: tensor<1x1x5xf32>) -> tensor<1x2x3xf32> {
  %w = tgr.weight dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %gamma = tgr.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = tgr.weight dense<[0.0, 0.0]> : tensor<2xf32>
  %mean = tgr.weight dense<[2.0, -1.0]> : tensor<2xf32>
  %var = tgr.weight dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tgr.conv %x, %w : (tensor<1x1x5xf32>, tensor<2x1x3xf32>) -> tensor<1x2x3xf32>
  %y = tgr.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32, tgr.name = "bn"} : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  func.return %y : tensor<1x2x3xf32>
}

// -----

// The conv result is also used by a relu: folding would change what the relu sees,
// so the batch norm stays.
// CHECK-LABEL: func.func @negative_conv_two_users
// CHECK:         %[[C:.*]] = tgr.conv
// CHECK-NEXT:    %[[Y:.*]] = tgr.batch_norm %[[C]],
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[C]]
// CHECK-NEXT:    func.return %[[Y]], %[[R]]
// CHECK-NOT:     folded
func.func @negative_conv_two_users(%x: tensor<1x1x2x2xf32>, %p: tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = tgr.weight dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = tgr.weight dense<[2.0, 1.0]> : tensor<2xf32>
  %c = tgr.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = tgr.batch_norm %c, %gamma, %gamma, %gamma, %gamma : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = tgr.relu %c : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y, %r : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A batch norm after a non-conv op has nothing to fold into: it stays tgr.batch_norm.
// CHECK-LABEL: func.func @negative_not_after_conv
// CHECK:         %[[R:.*]] = tgr.relu
// CHECK-NEXT:    %[[Y:.*]] = tgr.batch_norm %[[R]],
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     folded
func.func @negative_not_after_conv(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %gamma = tgr.weight dense<[2.0, 1.0]> : tensor<2xf32>
  %r = tgr.relu %x : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = tgr.batch_norm %r, %gamma, %gamma, %gamma, %gamma : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The mean is a function argument, not a constant: nothing can be folded at compile time.
// CHECK-LABEL: func.func @negative_runtime_params
// CHECK:         %[[C:.*]] = tgr.conv
// CHECK-NEXT:    %[[Y:.*]] = tgr.batch_norm %[[C]],
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     folded
func.func @negative_runtime_params(%x: tensor<1x1x2x2xf32>, %mean: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = tgr.weight dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = tgr.weight dense<[2.0, 1.0]> : tensor<2xf32>
  %c = tgr.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = tgr.batch_norm %c, %gamma, %gamma, %mean, %gamma : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}


// -----

// The conv already applies a relu: BN(relu(conv)) is not a conv, so nothing folds.
// CHECK-LABEL: func.func @negative_fused_activation
// CHECK:         tgr.conv {{.*}}fused_activation = "relu"
// CHECK:         tgr.batch_norm
func.func @negative_fused_activation(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32> {
  %w = tgr.weight dense<1.0> : tensor<1x1x1x1xf32>
  %g = tgr.weight dense<-1.0> : tensor<1xf32>
  %b = tgr.weight dense<0.0> : tensor<1xf32>
  %m = tgr.weight dense<0.0> : tensor<1xf32>
  %v = tgr.weight dense<1.0> : tensor<1xf32>
  %c = tgr.conv %x, %w {fused_activation = "relu"} : (tensor<1x1x1x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x2xf32>
  %y = tgr.batch_norm %c, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
  func.return %y : tensor<1x1x1x2xf32>
}
