// RUN: tigris-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p layout-nhwc | filecheck %s --check-prefix=PASS

// The verifiers read a weight through its weight_layout: the op's own layout name only,
// a weight of that layout's rank, shapes that agree once read back in ONNX order.

// CHECK: tgr.conv: weight_layout must be "ohwi", got "hwc"
func.func @wrong_layout_name(%x: tensor<1x2x3x3xf32>, %w: tensor<2x1x1x2xf32>) -> tensor<1x2x3x3xf32> {
  %y = tgr.conv %x, %w {weight_layout = "hwc"} : (tensor<1x2x3x3xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// CHECK: tgr.depthwise_conv: weight_layout "hwc" needs a rank-3 weight, got (2, 1, 2, 2)
func.func @wrong_rank(%x: tensor<1x2x3x3xf32>, %w: tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = tgr.depthwise_conv %x, %w {weight_layout = "hwc"} : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// An OHWI weight [2, 1, 1, 3] has 3 input channels; the input has 2.
// CHECK: tgr.conv: input channels 2 != weight in-channels 3 x group 1
func.func @ohwi_channels(%x: tensor<1x2x3x3xf32>, %w: tensor<2x1x1x3xf32>) -> tensor<1x2x3x3xf32> {
  %y = tgr.conv %x, %w {weight_layout = "ohwi"} : (tensor<1x2x3x3xf32>, tensor<2x1x1x3xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// A 1-D conv_transpose's runtime layout is "oki" [O, K, I/g].
// CHECK: tgr.conv_transpose: weight_layout must be "oki", got "ohwi"
func.func @conv_transpose_1d_not_ohwi(%x: tensor<1x2x3xf32>, %w: tensor<1x2x2xf32>) -> tensor<1x1x4xf32> {
  %y = tgr.conv_transpose %x, %w {weight_layout = "ohwi"} : (tensor<1x2x3xf32>, tensor<1x2x2xf32>) -> tensor<1x1x4xf32>
  func.return %y : tensor<1x1x4xf32>
}

// -----

// CHECK: tgr.fully_connected: weight_layout "nk_hwc" needs an input flattened from a rank-4 [N, C, H, W] by tgr.flatten/tgr.reshape
func.func @nk_hwc_without_feature_map(%x: tensor<1x4xf32>, %w: tensor<3x4xf32>) -> tensor<1x3xf32> {
  %y = tgr.fully_connected %x, %w {weight_layout = "nk_hwc"} : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  func.return %y : tensor<1x3xf32>
}

// -----

// The pass moves per-channel parameters only along the output channels.
// PASS: node 'conv' (tgr.conv): weight quantized along axis 1, not its output channels (axis 0)
func.func @quantized_along_input_channels(%x: tensor<1x2x3x3x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x3x3x!tgr.quant<i8, 0.5:0>> {
  %w = tgr.weight dense_resource<qw> : tensor<1x2x1x1x!tgr.quant<i8:1, {0.25:0, 0.125:0}>>
  %y = tgr.conv %x, %w {tgr.name = "conv"} : (tensor<1x2x3x3x!tgr.quant<i8, 0.5:0>>, tensor<1x2x1x1x!tgr.quant<i8:1, {0.25:0, 0.125:0}>>) -> tensor<1x1x3x3x!tgr.quant<i8, 0.5:0>>
  func.return %y : tensor<1x1x3x3x!tgr.quant<i8, 0.5:0>>
}
{-#
  dialect_resources: {
    tgr: {
      qw: "0x100000000102"
    }
  }
#-}
