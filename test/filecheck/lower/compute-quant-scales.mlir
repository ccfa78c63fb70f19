// RUN: tigris-opt %s --split-input-file -p compute-quant-scales | filecheck %s

// compute-quant-scales: the compile-time numbers of int8 ops (onnxruntime's QDQ meaning, see
// docs/int8.md). Dense ops get float32 requantization scales S[c] = s_x s_w[c] / s_y and their
// clamp; lookup-table activations their 256 entries; a pad its stored pad value. quantize(y) is
// clamp(rint(y / s) + zp) with ties to even.

// conv: s_x 0.5, s_w {0.125, 0.375}, s_y 0.25 -> S = {0.25, 0.75} (exact in float32).
// relu6 narrows the clamp: [max(-128, zp), quantize(6)] = [-10, rint(6 / 0.25) - 10] = [-10, 14].
// CHECK-LABEL: func.func @conv_per_channel
// CHECK:         tgr.conv
// CHECK-SAME:        tgr.requant_scales = array<f32: 2.500000e-01, 7.500000e-01>, tgr.act_range = array<i32: -10, 14>
func.func @conv_per_channel(%x: tensor<1x1x2x2x!tgr.quant<i8, 0.5:0>>) -> tensor<1x2x2x2x!tgr.quant<i8, 0.25:-10>> {
  %w = tgr.weight dense_resource<cw> : tensor<2x1x1x1x!tgr.quant<i8:0, {0.125:0, 0.375:0}>>
  %y = tgr.conv %x, %w {fused_activation = "relu6"} : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:0>>, tensor<2x1x1x1x!tgr.quant<i8:0, {0.125:0, 0.375:0}>>) -> tensor<1x2x2x2x!tgr.quant<i8, 0.25:-10>>
  func.return %y : tensor<1x2x2x2x!tgr.quant<i8, 0.25:-10>>
}
{-#
  dialect_resources: {
    tgr: {
      cw: "0x100000000102"
    }
  }
#-}

// -----

// relu6 at s_y 12: 6 / 12 = 0.5 is a tie; rint rounds it to the even 0, so the clamp is
// [zp, zp] = [3, 3] (TFLite's rounding half away from zero would have allowed 4).
// matmul of two activations, per rhs column: s_a 0.5, s_b 2, s_y 4 -> S = 0.25, the storage clamp.
// CHECK-LABEL: func.func @relu6_tie_and_matmul
// CHECK:         tgr.fully_connected
// CHECK-SAME:        tgr.requant_scales = array<f32: 1.250000e-01>, tgr.act_range = array<i32: 3, 3>
// CHECK:         tgr.matmul
// CHECK-SAME:        tgr.requant_scales = array<f32: 2.500000e-01, 2.500000e-01, 2.500000e-01>, tgr.act_range = array<i32: -128, 127>
func.func @relu6_tie_and_matmul(%x: tensor<1x2x!tgr.quant<i8, 3.0:0>>, %a: tensor<2x4x!tgr.quant<i8, 0.5:1>>, %b: tensor<4x3x!tgr.quant<i8, 2.0:-2>>) -> (tensor<1x1x!tgr.quant<i8, 12.0:3>>, tensor<2x3x!tgr.quant<i8, 4.0:0>>) {
  %w = tgr.weight dense_resource<fw> : tensor<1x2x!tgr.quant<i8, 0.5:0>>
  %y = tgr.fully_connected %x, %w {fused_activation = "relu6"} : (tensor<1x2x!tgr.quant<i8, 3.0:0>>, tensor<1x2x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x!tgr.quant<i8, 12.0:3>>
  %m = tgr.matmul %a, %b : (tensor<2x4x!tgr.quant<i8, 0.5:1>>, tensor<4x3x!tgr.quant<i8, 2.0:-2>>) -> tensor<2x3x!tgr.quant<i8, 4.0:0>>
  func.return %y, %m : tensor<1x1x!tgr.quant<i8, 12.0:3>>, tensor<2x3x!tgr.quant<i8, 4.0:0>>
}
{-#
  dialect_resources: {
    tgr: {
      fw: "0x100000000102"
    }
  }
#-}

// -----

// pad: the constant, quantized at the result's parameters (0.5, 3): rint(0.25 / 0.5) + 3, a tie
// rounded to the even 0, so 3; and 1.0 at (0.25, -1): rint(1 / 0.25) - 1 = 3 whatever the input's.
// CHECK-LABEL: func.func @pad_values
// CHECK:         tgr.pad {{.*}}{{{.*}}tgr.pad_value = 3 : i32}
// CHECK:         tgr.pad {{.*}}{{{.*}}tgr.pad_value = 3 : i32}
func.func @pad_values(%a: tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> (tensor<1x1x2x4x!tgr.quant<i8, 0.5:3>>, tensor<1x1x2x4x!tgr.quant<i8, 0.25:-1>>) {
  %p = tgr.pad %a {pads = array<i64: 0, 0, 0, 1, 0, 0, 0, 1>, value = 0.25 : f32} : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> tensor<1x1x2x4x!tgr.quant<i8, 0.5:3>>
  %q = tgr.pad %a {pads = array<i64: 0, 0, 0, 1, 0, 0, 0, 1>, value = 1.0 : f32} : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> tensor<1x1x2x4x!tgr.quant<i8, 0.25:-1>>
  func.return %p, %q : tensor<1x1x2x4x!tgr.quant<i8, 0.5:3>>, tensor<1x1x2x4x!tgr.quant<i8, 0.25:-1>>
}

// -----

// relu6 between (1, 0) and (1, 0): entry v + 128 is clamp(v, 0, 6) for v = -128 .. 127:
// 129 zeros (v <= 0), then 1, 2, 3, 4, 5, then 6 for v = 6 .. 127 (122 entries).
// leaky_relu alpha 0.5 between (1, 0) and (1, 0): entry v + 128 is rint(v / 2) for v < 0, ties
// to even: v = -128 -> -64, -127 -> -63.5 -> -64, -126 -> -63, -125 -> -62.5 -> -62, -124 -> -62,
// -123 -> -61.5 -> -62, -122 -> -61, -121 -> -60.5 -> -60.
// CHECK-LABEL: func.func @lookup_tables
// CHECK:         tgr.relu6 {{.*}}{tgr.table = array<i8: {{(0, ){129}1, 2, 3, 4, 5(, 6){122}>}}}
// CHECK:         tgr.leaky_relu {{.*}}tgr.table = array<i8: -64, -64, -63, -62, -62, -62, -61, -60, {{.*}}>
func.func @lookup_tables(%x: tensor<4x!tgr.quant<i8, 1.0:0>>) -> (tensor<4x!tgr.quant<i8, 1.0:0>>, tensor<4x!tgr.quant<i8, 1.0:0>>) {
  %y = tgr.relu6 %x : (tensor<4x!tgr.quant<i8, 1.0:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>>
  %l = tgr.leaky_relu %x {alpha = 0.5 : f32} : (tensor<4x!tgr.quant<i8, 1.0:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>>
  func.return %y, %l : tensor<4x!tgr.quant<i8, 1.0:0>>, tensor<4x!tgr.quant<i8, 1.0:0>>
}

// -----

// Left alone: int8 ops whose formula reads only their tensors' parameters (add, mul, softmax,
// the means, concat, moves), float ops, and the conversions.
// CHECK-LABEL: func.func @negative_no_parameters
// CHECK-NOT:     tgr.requant_scales
// CHECK-NOT:     tgr.table
// CHECK-NOT:     tgr.act_range
// CHECK-NOT:     tgr.pad_value
// CHECK:         func.return
func.func @negative_no_parameters(%x: tensor<1x1x4x4xf32>, %a: tensor<1x1x4x4x!tgr.quant<i8, 0.5:3>>) -> (tensor<1x1x2x2xf32>, tensor<1x2x4x4x!tgr.quant<i8, 0.25:3>>, tensor<1x16x!tgr.quant<i8, 0.5:3>>, tensor<1x1x1x1x!tgr.quant<i8, 0.125:0>>) {
  %r = tgr.relu %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %q = tgr.quantize %r : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4x!tgr.quant<i8, 0.5:0>>
  %m = tgr.max_pool %q {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x2x2x!tgr.quant<i8, 0.5:0>>
  %d = tgr.dequantize %m : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x2x2xf32>
  %s = tgr.add %a, %q : (tensor<1x1x4x4x!tgr.quant<i8, 0.5:3>>, tensor<1x1x4x4x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x4x4x!tgr.quant<i8, 0.25:3>>
  %p = tgr.mul %s, %a : (tensor<1x1x4x4x!tgr.quant<i8, 0.25:3>>, tensor<1x1x4x4x!tgr.quant<i8, 0.5:3>>) -> tensor<1x1x4x4x!tgr.quant<i8, 0.25:3>>
  %c = tgr.concat %p, %a {axis = 1 : i64} : (tensor<1x1x4x4x!tgr.quant<i8, 0.25:3>>, tensor<1x1x4x4x!tgr.quant<i8, 0.5:3>>) -> tensor<1x2x4x4x!tgr.quant<i8, 0.25:3>>
  %f = tgr.reshape %a : (tensor<1x1x4x4x!tgr.quant<i8, 0.5:3>>) -> tensor<1x16x!tgr.quant<i8, 0.5:3>>
  %sm = tgr.softmax %f : (tensor<1x16x!tgr.quant<i8, 0.5:3>>) -> tensor<1x16x!tgr.quant<i8, 0.5:3>>
  %g = tgr.global_avg_pool %a : (tensor<1x1x4x4x!tgr.quant<i8, 0.5:3>>) -> tensor<1x1x1x1x!tgr.quant<i8, 0.125:0>>
  func.return %d, %c, %sm, %g : tensor<1x1x2x2xf32>, tensor<1x2x4x4x!tgr.quant<i8, 0.25:3>>, tensor<1x16x!tgr.quant<i8, 0.5:3>>, tensor<1x1x1x1x!tgr.quant<i8, 0.125:0>>
}
