// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr rejections of reductions and normalizations (convert_reduce.py): each
// names the ONNX node and says why; each message is unique in this file.

// Axes computed at run time cannot become the op's axes property.
// CHECK: {{^}}node 'sum1' (onnx.ReduceSum): reduction axes must be constant
func.func @reduce_sum_runtime_axes(%x: tensor<2x3x4xf32>, %a: tensor<1xi64>) -> tensor<2x1x4xf32> {
  %0 = onnx.ReduceSum %x, %a {tgr.name = "sum1"} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  func.return %0 : tensor<2x1x4xf32>
}

// -----

// A scale that only broadcasts to X.shape[axis:] must be a constant to be expanded.
// CHECK: {{^}}node 'ln1' (onnx.LayerNormalization): LayerNormalization scale of shape (1,) must be a constant to broadcast to (3, 4)
func.func @layer_norm_runtime_scale(%x: tensor<2x3x4xf32>, %s: tensor<1xf32>) -> tensor<2x3x4xf32> {
  %0 = onnx.LayerNormalization %x, %s {axis = 1 : i64, tgr.name = "ln1"} : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}

// -----

// A constant that does not broadcast to X.shape[axis:] is a model error.
// CHECK: {{^}}node 'ln2' (onnx.LayerNormalization): LayerNormalization bias of shape (3,) does not broadcast to (4,)
func.func @layer_norm_bad_bias(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %b = onnx.Constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = onnx.LayerNormalization %x, %s, %b {tgr.name = "ln2"} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}

// -----

// LRN works across the channel axis (1): a rank-1 input has none.
// CHECK: {{^}}node 'lrn1' (onnx.LRN): LRN needs an input with a channel axis (rank >= 2)
func.func @lrn_rank1(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = onnx.LRN %x {size = 3 : i64, tgr.name = "lrn1"} : (tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
