// RUN: tigris-opt %s --split-input-file -p layout-nhwc | filecheck %s

// layout-nhwc: each weighted op gets a new tgr.weight in the runtime's layout and
// weight_layout naming it; biases, activations and the result types stay as they are.
// Weights hold 1, 2, 3, ... in ONNX order, so each permuted array is written out by hand.

// conv OIHW -> OHWI. w[o][i][0][k]: o0 = {i0: [1, 2], i1: [3, 4]}, o1 = {i0: [5, 6], i1: [7, 8]}.
// OHWI w'[o][0][k][i] = w[o][i][0][k]: o0 = [[1, 3], [2, 4]], o1 = [[5, 7], [6, 8]].
// CHECK-LABEL: func.func @conv_ohwi
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x3x3xf32>)
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "b"} dense<[5.000000e-01, -5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "w.ohwi"} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]], {{\[}}{{\[}}[5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]]]> : tensor<2x1x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {weight_layout = "ohwi", tgr.name = "conv"} : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_ohwi(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x2xf32> {
  %w = tgr.weight {tgr.name = "w"} dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32>
  %b = tgr.weight {tgr.name = "b"} dense<[0.5, -0.5]> : tensor<2xf32>
  %y = tgr.conv %x, %w, %b {tgr.name = "conv"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  func.return %y : tensor<1x2x3x2xf32>
}

// -----

// depthwise [C, 1, KH, KW] -> HWC [KH, KW, C]: c0 = [[1, 2], [3, 4]], c1 = [[5, 6], [7, 8]],
// w'[h][w][c] = [[[1, 5], [2, 6]], [[3, 7], [4, 8]]], stored bytes 01 05 02 06 03 07 04 08.
// The per-channel int8 weight keeps its scales; their axis follows the channels (0 -> 2).
// CHECK-LABEL: func.func @depthwise_quantized_hwc
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "dw.hwc"} dense_resource<dw.hwc> : tensor<2x2x2x!tgr.quant<i8:2, {0.25:0, 0.125:0}>>
// CHECK-NEXT:    tgr.depthwise_conv %{{.*}}, %[[W]] {weight_layout = "hwc"} : (tensor<1x2x3x3x!tgr.quant<i8, 0.5:0>>, tensor<2x2x2x!tgr.quant<i8:2, {0.25:0, 0.125:0}>>) -> tensor<1x2x2x2x!tgr.quant<i8, 0.5:0>>
// CHECK:         dw.hwc: "0x100000000105020603070408"
func.func @depthwise_quantized_hwc(%x: tensor<1x2x3x3x!tgr.quant<i8, 0.5:0>>) -> tensor<1x2x2x2x!tgr.quant<i8, 0.5:0>> {
  %w = tgr.weight {tgr.name = "dw"} dense_resource<dw> : tensor<2x1x2x2x!tgr.quant<i8:0, {0.25:0, 0.125:0}>>
  %y = tgr.depthwise_conv %x, %w : (tensor<1x2x3x3x!tgr.quant<i8, 0.5:0>>, tensor<2x1x2x2x!tgr.quant<i8:0, {0.25:0, 0.125:0}>>) -> tensor<1x2x2x2x!tgr.quant<i8, 0.5:0>>
  func.return %y : tensor<1x2x2x2x!tgr.quant<i8, 0.5:0>>
}
{-#
  dialect_resources: {
    tgr: {
      dw: "0x100000000102030405060708"
    }
  }
#-}

// -----

// conv1d [O, I, K] -> OKI [O, K, I]: o0 = {i0: [1, 2, 3], i1: [4, 5, 6]} -> [[1, 4], [2, 5], [3, 6]],
// o1 = {i0: [7, 8, 9], i1: [10, 11, 12]} -> [[7, 10], [8, 11], [9, 12]].
// CHECK-LABEL: func.func @conv1d_oki
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "k.oki"} dense<{{\[}}{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]], {{\[}}[7.000000e+00, 1.000000e+01], [8.000000e+00, 1.100000e+01], [9.000000e+00, 1.200000e+01]]]> : tensor<2x3x2xf32>
// CHECK-NEXT:    tgr.conv1d %{{.*}}, %[[W]] {weight_layout = "oki"} : (tensor<1x2x5xf32>, tensor<2x3x2xf32>) -> tensor<1x2x3xf32>
func.func @conv1d_oki(%x: tensor<1x2x5xf32>) -> tensor<1x2x3xf32> {
  %w = tgr.weight {tgr.name = "k"} dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]]> : tensor<2x2x3xf32>
  %y = tgr.conv1d %x, %w : (tensor<1x2x5xf32>, tensor<2x2x3xf32>) -> tensor<1x2x3xf32>
  func.return %y : tensor<1x2x3xf32>
}

// -----

// conv_transpose [I, O, KH, KW] -> OHWI [O, KH, KW, I]: i0 = [1, 2], i1 = [3, 4] (O = KH = 1)
// -> w'[0][0][k][i] = [[1, 3], [2, 4]].
// CHECK-LABEL: func.func @conv_transpose_ohwi
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "t.ohwi"} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-NEXT:    tgr.conv_transpose %{{.*}}, %[[W]] {weight_layout = "ohwi"} : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x3xf32>
func.func @conv_transpose_ohwi(%x: tensor<1x2x2x2xf32>) -> tensor<1x1x2x3xf32> {
  %w = tgr.weight {tgr.name = "t"} dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %y = tgr.conv_transpose %x, %w : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>) -> tensor<1x1x2x3xf32>
  func.return %y : tensor<1x1x2x3xf32>
}

// -----

// 1-D conv_transpose [I, O, K] -> OKI [O, K, I]: i0 = [1, 2], i1 = [3, 4] (O = 1)
// -> w'[0][k][i] = [[1, 3], [2, 4]].
// CHECK-LABEL: func.func @conv_transpose_1d_oki
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "t1.oki"} dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]> : tensor<1x2x2xf32>
// CHECK-NEXT:    tgr.conv_transpose %{{.*}}, %[[W]] {weight_layout = "oki"} : (tensor<1x2x3xf32>, tensor<1x2x2xf32>) -> tensor<1x1x4xf32>
func.func @conv_transpose_1d_oki(%x: tensor<1x2x3xf32>) -> tensor<1x1x4xf32> {
  %w = tgr.weight {tgr.name = "t1"} dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %y = tgr.conv_transpose %x, %w : (tensor<1x2x3xf32>, tensor<2x1x2xf32>) -> tensor<1x1x4xf32>
  func.return %y : tensor<1x1x4xf32>
}

// -----

// fully_connected on flatten([1, C=2, H=1, W=2]): ONNX columns (c, h, w) = c0w0 c0w1 c1w0 c1w1
// hold 1, 2, 3, 4; the flatten, read by the dense layer only, is marked tgr.stored_order (the
// runtime copies the NHWC bytes as they are), so the layer reads (h, w, c) = w0c0 w0c1 w1c0 w1c1
// -> 1, 3, 2, 4.
// CHECK-LABEL: func.func @dense_after_flatten
// CHECK:         %[[F:.*]] = tgr.flatten %{{.*}} {tgr.stored_order}
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "fc.nk_hwc"} dense<{{\[}}[1.000000e+00, 3.000000e+00, 2.000000e+00, 4.000000e+00]]> : tensor<1x4xf32>
// CHECK-NEXT:    tgr.fully_connected %[[F]], %[[W]] {weight_layout = "nk_hwc"} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x1xf32>
func.func @dense_after_flatten(%x: tensor<1x2x1x2xf32>) -> tensor<1x1xf32> {
  %w = tgr.weight {tgr.name = "fc"} dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %f = tgr.flatten %x : (tensor<1x2x1x2xf32>) -> tensor<1x4xf32>
  %y = tgr.fully_connected %f, %w : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x1xf32>
  func.return %y : tensor<1x1xf32>
}

// -----

// A chain of reshapes from the map, read by two dense layers (one directly, one through an identity
// reshape) and by nothing else: every reshape of the chain is marked and both layers get nk_hwc.
// The intermediate [1, 2, 4] (rank 3) does not start a chain of its own.
// CHECK-LABEL: func.func @reshape_chain_two_dense
// CHECK:         %[[R:.*]] = tgr.reshape %{{.*}} {tgr.stored_order} : (tensor<1x2x2x2xf32>) -> tensor<1x2x4xf32>
// CHECK-NEXT:    %[[F:.*]] = tgr.flatten %[[R]] {tgr.stored_order} : (tensor<1x2x4xf32>) -> tensor<1x8xf32>
// CHECK:         tgr.fully_connected %[[F]], %{{.*}} {weight_layout = "nk_hwc"}
// CHECK:         %[[G:.*]] = tgr.reshape %[[F]] {tgr.stored_order} : (tensor<1x8xf32>) -> tensor<1x8xf32>
// CHECK:         tgr.fully_connected %[[G]], %{{.*}} {weight_layout = "nk_hwc"}
func.func @reshape_chain_two_dense(%x: tensor<1x2x2x2xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %w = tgr.weight dense<1.0> : tensor<3x8xf32>
  %r = tgr.reshape %x : (tensor<1x2x2x2xf32>) -> tensor<1x2x4xf32>
  %f = tgr.flatten %r : (tensor<1x2x4xf32>) -> tensor<1x8xf32>
  %a = tgr.fully_connected %f, %w : (tensor<1x8xf32>, tensor<3x8xf32>) -> tensor<1x3xf32>
  %g = tgr.reshape %f : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %b = tgr.fully_connected %g, %w : (tensor<1x8xf32>, tensor<3x8xf32>) -> tensor<1x3xf32>
  func.return %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// Flattens another op reads stay unmarked (model order at run time) and their dense layers keep
// ONNX's columns: one that is also a model output, one also read by a softmax, and a chain that
// goes back to rank 4 before another reader. A flatten read by nothing but a softmax is unmarked too.
// CHECK-LABEL: func.func @flatten_read_elsewhere
// CHECK-NOT:     tgr.stored_order
// CHECK-NOT:     nk_hwc
// CHECK:         func.return
func.func @flatten_read_elsewhere(%x: tensor<1x2x2x2xf32>) -> (tensor<1x8xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x8xf32>, tensor<1x3xf32>, tensor<1x2x1x4xf32>, tensor<1x8xf32>) {
  %w = tgr.weight dense<1.0> : tensor<3x8xf32>
  %f1 = tgr.flatten %x : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %y1 = tgr.fully_connected %f1, %w : (tensor<1x8xf32>, tensor<3x8xf32>) -> tensor<1x3xf32>
  %f2 = tgr.flatten %x : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %y2 = tgr.fully_connected %f2, %w : (tensor<1x8xf32>, tensor<3x8xf32>) -> tensor<1x3xf32>
  %s2 = tgr.softmax %f2 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %f3 = tgr.flatten %x : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %y3 = tgr.fully_connected %f3, %w : (tensor<1x8xf32>, tensor<3x8xf32>) -> tensor<1x3xf32>
  %m3 = tgr.reshape %f3 : (tensor<1x8xf32>) -> tensor<1x2x1x4xf32>
  %r3 = tgr.relu %m3 : (tensor<1x2x1x4xf32>) -> tensor<1x2x1x4xf32>
  %f4 = tgr.flatten %x : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %s4 = tgr.softmax %f4 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  func.return %f1, %y1, %y2, %s2, %y3, %r3, %s4 : tensor<1x8xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x8xf32>, tensor<1x3xf32>, tensor<1x2x1x4xf32>, tensor<1x8xf32>
}

// -----

// A weight shared by two convs is permuted per use: each conv gets its own new weight
// and the old one is erased (it has no use left).
// CHECK-LABEL: func.func @shared_weight
// CHECK-NEXT:    %[[W1:.*]] = tgr.weight {tgr.name = "s.ohwi"} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK-NEXT:    %[[A:.*]] = tgr.conv %{{.*}}, %[[W1]] {weight_layout = "ohwi"}
// CHECK-NEXT:    %[[W2:.*]] = tgr.weight {tgr.name = "s.ohwi"} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.conv %{{.*}}, %[[W2]] {weight_layout = "ohwi"}
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @shared_weight(%x: tensor<1x2x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  %w = tgr.weight {tgr.name = "s"} dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %a = tgr.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  %b = tgr.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  func.return %a, %b : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// Left alone: a fully_connected whose input is not a flattened feature map (a model input),
// one flattened from H*W = 1 (both orders agree), a conv already in its runtime layout, a conv
// whose weight is computed (not a tgr.weight), and a rank-3 tgr.conv (relabel-conv1d's job).
// CHECK-LABEL: func.func @negative_left_alone
// CHECK-NEXT:    %[[FW:.*]] = tgr.weight dense<1.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT:    tgr.fully_connected %{{.*}}, %[[FW]] : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[F:.*]] = tgr.flatten
// CHECK-NEXT:    tgr.fully_connected %[[F]], %[[FW]] : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[CW:.*]] = tgr.weight dense<1.000000e+00> : tensor<2x1x1x4xf32>
// CHECK-NEXT:    tgr.conv %{{.*}}, %[[CW]] {weight_layout = "ohwi"} : (tensor<1x4x1x1xf32>, tensor<2x1x1x4xf32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    tgr.conv %{{.*}}, %{{.*}} : (tensor<1x4x1x1xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[LW:.*]] = tgr.weight dense<1.000000e+00> : tensor<2x4x1xf32>
// CHECK-NEXT:    tgr.conv %{{.*}}, %[[LW]] : (tensor<1x4x3xf32>, tensor<2x4x1xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:    func.return
func.func @negative_left_alone(%v: tensor<1x4xf32>, %m: tensor<1x4x1x1xf32>, %dyn: tensor<2x4x1x1xf32>, %l: tensor<1x4x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x3xf32>) {
  %fw = tgr.weight dense<1.0> : tensor<3x4xf32>
  %y1 = tgr.fully_connected %v, %fw : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %f = tgr.flatten %m : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %y2 = tgr.fully_connected %f, %fw : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %cw = tgr.weight dense<1.0> : tensor<2x1x1x4xf32>
  %y3 = tgr.conv %m, %cw {weight_layout = "ohwi"} : (tensor<1x4x1x1xf32>, tensor<2x1x1x4xf32>) -> tensor<1x2x1x1xf32>
  %y4 = tgr.conv %m, %dyn : (tensor<1x4x1x1xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x1x1xf32>
  %lw = tgr.weight dense<1.0> : tensor<2x4x1xf32>
  %y5 = tgr.conv %l, %lw : (tensor<1x4x3xf32>, tensor<2x4x1xf32>) -> tensor<1x2x3xf32>
  func.return %y1, %y2, %y3, %y4, %y5 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x2x3xf32>
}
