// RUN: tigris-opt %s --split-input-file -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr, reductions and normalizations (transforms/normalize/convert_reduce.py):
// ReduceSum/Max/Min with axes as attribute or constant input, LogSoftmax, LRN, LayerNormalization.

// CHECK-LABEL: func.func @reduce_sum_max_min
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>)
// ReduceSum, axes attribute (opset < 13), keepdims 0
// CHECK-NEXT:    %[[S0:.*]] = tgr.reduce_sum %[[X]] {axes = array<i64: 2>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>
// ReduceSum, axes input [-1, 1] -> sorted [1, 3]
// CHECK-NEXT:    %[[S1:.*]] = tgr.reduce_sum %[[X]] {axes = array<i64: 1, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x1xf32>
// no axes: every axis
// CHECK-NEXT:    %[[S2:.*]] = tgr.reduce_sum %[[X]] {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<1x1x1x1xf32>
// ReduceMax over the channels: not a global max pool, a tgr.reduce_max
// CHECK-NEXT:    %[[M0:.*]] = tgr.reduce_max %[[X]] {axes = array<i64: 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
// ReduceMax over the spatial axes without keepdims: not a global max pool either
// CHECK-NEXT:    %[[M1:.*]] = tgr.reduce_max %[[X]] {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[N0:.*]] = tgr.reduce_min %[[X]] {axes = array<i64: 0, 2>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %[[S0]], %[[S1]], %[[S2]], %[[M0]], %[[M1]], %[[N0]] :
// CHECK-NOT:     onnx.
func.func @reduce_sum_max_min(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x1x4x1xf32>, tensor<1x1x1x1xf32>, tensor<2x1x4x5xf32>, tensor<2x3xf32>, tensor<3x5xf32>) {
  %0 = onnx.ReduceSum %x {axes = array<i64: 2>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>
  %ax = onnx.Constant {value = dense<[-1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %1 = onnx.ReduceSum %x, %ax : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x1x4x1xf32>
  %2 = onnx.ReduceSum %x : (tensor<2x3x4x5xf32>) -> tensor<1x1x1x1xf32>
  %3 = onnx.ReduceMax %x {axes = array<i64: 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
  %4 = onnx.ReduceMax %x {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
  %5 = onnx.ReduceMin %x {axes = array<i64: 0, -2>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<3x5xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x3x5xf32>, tensor<2x1x4x1xf32>, tensor<1x1x1x1xf32>, tensor<2x1x4x5xf32>, tensor<2x3xf32>, tensor<3x5xf32>
}

// -----

// Left alone: ReduceMax over every spatial axis with keepdims stays a global max pool, and
// ReduceSum with empty axes and noop_with_empty_axes is the identity (the op disappears).
// CHECK-LABEL: func.func @reduce_left_to_others
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT:    %[[G:.*]] = tgr.global_max_pool %[[X]] : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    func.return %[[G]], %[[R]] :
// CHECK-NOT:     reduce
func.func @reduce_left_to_others(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x4x5xf32>) {
  %0 = onnx.ReduceMax %x {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %1 = onnx.ReduceSum %x {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %2 = onnx.Relu %1 : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %0, %2 : tensor<2x3x1x1xf32>, tensor<2x3x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @log_softmax_lrn
// CHECK-SAME:      (%[[X:.*]]: tensor<1x6x4x4xf32>)
// CHECK-NEXT:    %[[L:.*]] = tgr.log_softmax %[[X]] {axis = 1 : i64, tgr.name = "ls"} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NEXT:    %[[N:.*]] = tgr.lrn %[[L]] {size = 5 : i64, alpha = 2.000000e-04 : f32, bias = 2.000000e+00 : f32} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NEXT:    func.return %[[N]] :
// CHECK-NOT:     onnx.
func.func @log_softmax_lrn(%x: tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %0 = onnx.LogSoftmax %x {axis = 1 : i64, tgr.name = "ls"} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %1 = onnx.LRN %0 {size = 5 : i64, alpha = 2.0e-04 : f32, bias = 2.0 : f32} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %1 : tensor<1x6x4x4xf32>
}

// -----

// LayerNormalization: a scale of X.shape[axis:] passes as is; a constant bias that only
// broadcasts to it becomes a weight of that shape.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<3x4xf32>)
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "ln.bias"} dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : tensor<3x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.layer_norm %[[X]], %[[S]], %[[B]] {axis = 1 : i64, epsilon = 1.000000e-03 : f32, tgr.name = "ln"} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// A scale of exactly [4] with axis -1 (the default) and no bias is taken as it is.
// CHECK-NEXT:    %[[S2:.*]] = onnx.Constant
// CHECK-NEXT:    %[[Z:.*]] = tgr.layer_norm %[[X]], %[[S2]] {tgr.name = "ln2"} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[Z]] :
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %b = onnx.Constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = onnx.LayerNormalization %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-03 : f32, tgr.name = "ln"} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %s2 = onnx.Constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %1 = onnx.LayerNormalization %x, %s2 {tgr.name = "ln2"} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
