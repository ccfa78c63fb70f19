// RUN: tigris-opt %s --split-input-file -p fold-qdq | filecheck %s

// fold-qdq, mixed precision: an op between DequantizeLinear and QuantizeLinear becomes an int8
// op only if its int8 form has int8 semantics (quant.params.folds_to_int8); otherwise it stays in
// float between tgr.dequantize and tgr.quantize, which is what the QDQ model means anyway, and a
// weight it reads through a DequantizeLinear is dequantized at compile time.

// A linear Resize (no int8 kernel: linear interpolation computes) and a grouped ConvTranspose
// whose per-channel weight scales differ between groups (the int8 kernel needs one scale per
// group) run in float. The weight w [2, 2, 2, 2] along axis 1 at scales {0.5, 0.25}:
// w[., 0] = {1, 2, 3, 4} * 0.5 = {0.5, 1, 1.5, 2}, w[., 1] = {5, 6, 7, 8} * 0.25 = {1.25, 1.5, 1.75, 2}.
// CHECK-LABEL: func.func @float_island
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x4x4x!tgr.quant<i8, 0.05000000074505806:-3>>
// CHECK-NEXT:    %[[D:.*]] = tgr.dequantize %[[X]] {{.*}} -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[SC:.*]] = tgr.weight
// CHECK-NEXT:    %[[R:.*]] = onnx.Resize %[[D]], none, %[[SC]] {mode = "linear"} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    %[[RQ:.*]] = tgr.quantize %[[R]] {{.*}} -> tensor<1x2x8x8x!tgr.quant<i8, 0.10000000149011612:2>>
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {{.*}} dense<{{\[\[\[\[}}5.000000e-01, 1.000000e+00], [1.500000e+00, 2.000000e+00]], {{\[\[}}1.250000e+00, 1.500000e+00], [1.750000e+00, 2.000000e+00]]], {{.*}} : tensor<2x2x2x2xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.conv_transpose %[[D]], %[[W]] {{.*}} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x4x5x5xf32>
// CHECK-NEXT:    %[[CQ:.*]] = tgr.quantize %[[C]] {{.*}} -> tensor<1x4x5x5x!tgr.quant<i8, 0.10000000149011612:2>>
// CHECK-NEXT:    func.return %[[RQ]], %[[CQ]]
func.func @float_island(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x4x5x5xf32>) {
  %s = tgr.weight dense<5.000000e-02> : tensor<f32>
  %zp = tgr.weight dense<-3> : tensor<i8>
  %q = onnx.QuantizeLinear %x, %s, %zp : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %d = onnx.DequantizeLinear %q, %s, %zp : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %sc = tgr.weight dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>
  %r = onnx.Resize %d, none, %sc {mode = "linear"} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  %so = tgr.weight dense<1.000000e-01> : tensor<f32>
  %zo = tgr.weight dense<2> : tensor<i8>
  %rq = onnx.QuantizeLinear %r, %so, %zo : (tensor<1x2x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x8xi8>
  %y = onnx.DequantizeLinear %rq, %so, %zo : (tensor<1x2x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x8xf32>
  %w = tgr.weight dense<[[[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]]> : tensor<2x2x2x2xi8>
  %sw = tgr.weight dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
  %zw = tgr.weight dense<0> : tensor<2xi8>
  %wd = onnx.DequantizeLinear %w, %sw, %zw {axis = 1 : i64} : (tensor<2x2x2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x2x2xf32>
  %c = tgr.conv_transpose %d, %wd {group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x4x5x5xf32>
  %cq = onnx.QuantizeLinear %c, %so, %zo : (tensor<1x4x5x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x5xi8>
  %t = onnx.DequantizeLinear %cq, %so, %zo : (tensor<1x4x5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x5xf32>
  func.return %y, %t : tensor<1x2x8x8xf32>, tensor<1x4x5x5xf32>
}

// -----

// Left alone as an int8 op: add, and a ConvTranspose whose per-channel scales are the same in
// every group, both have int8 kernels, so they are folded (no conversion remains around them).
// CHECK-LABEL: func.func @int8_ops_fold
// CHECK-NOT:     tgr.dequantize
// CHECK-NOT:     tgr.quantize
// CHECK:         tgr.add %{{.*}} -> tensor<1x2x4x4x!tgr.quant<i8, 0.10000000149011612:2>>
// CHECK:         tgr.weight {{.*}} : tensor<2x2x2x2x!tgr.quant<i8:1, {0.5:0, 0.5:0}>>
// CHECK:         tgr.conv_transpose {{.*}} -> tensor<1x4x5x5x!tgr.quant<i8, 0.10000000149011612:2>>
// CHECK-NOT:     tgr.dequantize
// CHECK-NOT:     tgr.quantize
func.func @int8_ops_fold(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x4x5x5xf32>) {
  %s = tgr.weight dense<5.000000e-02> : tensor<f32>
  %zp = tgr.weight dense<-3> : tensor<i8>
  %q = onnx.QuantizeLinear %x, %s, %zp : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %d = onnx.DequantizeLinear %q, %s, %zp : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %a = tgr.add %d, %d : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %so = tgr.weight dense<1.000000e-01> : tensor<f32>
  %zo = tgr.weight dense<2> : tensor<i8>
  %aq = onnx.QuantizeLinear %a, %so, %zo : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %z = onnx.DequantizeLinear %aq, %so, %zo : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = tgr.weight dense<[[[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]]> : tensor<2x2x2x2xi8>
  %sw = tgr.weight dense<[5.000000e-01, 5.000000e-01]> : tensor<2xf32>
  %zw = tgr.weight dense<0> : tensor<2xi8>
  %wd = onnx.DequantizeLinear %w, %sw, %zw {axis = 1 : i64} : (tensor<2x2x2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x2x2xf32>
  %c = tgr.conv_transpose %d, %wd {group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x4x5x5xf32>
  %cq = onnx.QuantizeLinear %c, %so, %zo : (tensor<1x4x5x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x5xi8>
  %t = onnx.DequantizeLinear %cq, %so, %zo : (tensor<1x4x5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x5xf32>
  func.return %z, %t : tensor<1x2x4x4xf32>, tensor<1x4x5x5xf32>
}
