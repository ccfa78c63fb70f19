// RUN: tigris-opt %s --split-input-file -p compute-quant-scales | filecheck %s

// compute-quant-scales: each int8 op gets the integer parameters its kernel uses.
// M(r) = (multiplier, shift) with r = multiplier * 2**shift / 2**31 and multiplier in
// [2**30, 2**31): M(0.25) = (2**30, -1), M(0.75) = (0.75 * 2**31, 0) = (1610612736, 0),
// M(2) = (2**30, 2), M(2**-20) = (2**30, -19), M(1) = (2**30, 1), with 2**30 = 1073741824.

// conv: s_x 0.5, s_w {0.125, 0.375}, s_y 0.25 -> s_x s_w / s_y = {0.25, 0.75}.
// relu6 narrows the clamp: [max(-128, zp), zp + round(6 / 0.25)] = [-10, -10 + 24] = [-10, 14].
// CHECK-LABEL: func.func @conv_per_channel
// CHECK:         tgr.conv
// CHECK-SAME:        tgr.multipliers = array<i32: 1073741824, 1610612736>, tgr.shifts = array<i32: -1, 0>, tgr.act_range = array<i32: -10, 14>
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

// add: s1 0.5, s2 0.25, s_y 1. twice_max = 2 * 0.5 = 1; inputs M(0.5 / 1) = (2**30, 0) and
// M(0.25) = (2**30, -1); output M(1 / (2**20 * 1)) = (2**30, -19); left shift 20.
// mul: M(0.5 * 0.5 / 0.125) = M(2) = (2**30, 2).
// CHECK-LABEL: func.func @add_and_mul
// CHECK:         tgr.add {{.*}}{tgr.add_params = array<i32: 20, 1073741824, 0, 1073741824, -1, 1073741824, -19>, tgr.act_range = array<i32: -128, 127>}
// CHECK:         tgr.mul {{.*}}{tgr.multipliers = array<i32: 1073741824>, tgr.shifts = array<i32: 2>, tgr.act_range = array<i32: -128, 127>}
func.func @add_and_mul(%a: tensor<4x!tgr.quant<i8, 0.5:0>>, %b: tensor<4x!tgr.quant<i8, 0.25:0>>) -> (tensor<4x!tgr.quant<i8, 1.0:0>>, tensor<4x!tgr.quant<i8, 0.125:0>>) {
  %s = tgr.add %a, %b : (tensor<4x!tgr.quant<i8, 0.5:0>>, tensor<4x!tgr.quant<i8, 0.25:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>>
  %p = tgr.mul %a, %a : (tensor<4x!tgr.quant<i8, 0.5:0>>, tensor<4x!tgr.quant<i8, 0.5:0>>) -> tensor<4x!tgr.quant<i8, 0.125:0>>
  func.return %s, %p : tensor<4x!tgr.quant<i8, 1.0:0>>, tensor<4x!tgr.quant<i8, 0.125:0>>
}

// -----

// global_avg_pool over 2x2 = 4 values: M(s_x / (s_y 4)) = M(0.5 / 2) = M(0.25) = (2**30, -1).
// A requantizing reshape: M(0.5 / 0.25) = M(2); one at the input's parameters gets nothing.
// CHECK-LABEL: func.func @mean_and_moves
// CHECK:         tgr.global_avg_pool {{.*}}{tgr.multipliers = array<i32: 1073741824>, tgr.shifts = array<i32: -1>, tgr.act_range = array<i32: -128, 127>}
// CHECK:         tgr.reshape {{.*}}{tgr.multipliers = array<i32: 1073741824>, tgr.shifts = array<i32: 2>, tgr.act_range = array<i32: -128, 127>}
// CHECK:         tgr.reshape %{{[^ ]*}} : (
func.func @mean_and_moves(%x: tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> (tensor<1x1x1x1x!tgr.quant<i8, 0.5:3>>, tensor<1x4x!tgr.quant<i8, 0.25:3>>, tensor<1x4x!tgr.quant<i8, 0.5:3>>) {
  %g = tgr.global_avg_pool %x : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> tensor<1x1x1x1x!tgr.quant<i8, 0.5:3>>
  %r = tgr.reshape %x : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> tensor<1x4x!tgr.quant<i8, 0.25:3>>
  %same = tgr.reshape %x : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> tensor<1x4x!tgr.quant<i8, 0.5:3>>
  func.return %g, %r, %same : tensor<1x1x1x1x!tgr.quant<i8, 0.5:3>>, tensor<1x4x!tgr.quant<i8, 0.25:3>>, tensor<1x4x!tgr.quant<i8, 0.5:3>>
}

// -----

// concat to s_y 0.25: input 0 (s 0.5) needs M(2) = (2**30, 2); input 1 is already at the
// result's parameters: the identity M(1) = (2**30, 1).
// pad: the constant 1.0 stored at (0.5, 3) is round(1 / 0.5) + 3 = 5.
// CHECK-LABEL: func.func @concat_and_pad
// CHECK:         tgr.concat {{.*}}tgr.multipliers = array<i32: 1073741824, 1073741824>, tgr.shifts = array<i32: 2, 1>, tgr.act_range = array<i32: -128, 127>}
// CHECK:         tgr.pad {{.*}}{{{.*}}tgr.pad_value = 5 : i32}
func.func @concat_and_pad(%a: tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>, %b: tensor<1x1x2x2x!tgr.quant<i8, 0.25:3>>) -> (tensor<1x2x2x2x!tgr.quant<i8, 0.25:3>>, tensor<1x1x2x4x!tgr.quant<i8, 0.5:3>>) {
  %c = tgr.concat %a, %b {axis = 1 : i64} : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>, tensor<1x1x2x2x!tgr.quant<i8, 0.25:3>>) -> tensor<1x2x2x2x!tgr.quant<i8, 0.25:3>>
  %p = tgr.pad %a {pads = array<i64: 0, 0, 0, 1, 0, 0, 0, 1>, value = 1.0 : f32} : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:3>>) -> tensor<1x1x2x4x!tgr.quant<i8, 0.5:3>>
  func.return %c, %p : tensor<1x2x2x2x!tgr.quant<i8, 0.25:3>>, tensor<1x1x2x4x!tgr.quant<i8, 0.5:3>>
}

// -----

// relu6 between (1, 0) and (1, 0): entry v + 128 is clamp(v, 0, 6) for v = -128 .. 127:
// 129 zeros (v <= 0), then 1, 2, 3, 4, 5, then 6 for v = 6 .. 127 (122 entries).
// CHECK-LABEL: func.func @lookup_table
// CHECK:         tgr.relu6 {{.*}}{tgr.table = array<i8: {{(0, ){129}1, 2, 3, 4, 5(, 6){122}>}}}
func.func @lookup_table(%x: tensor<4x!tgr.quant<i8, 1.0:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>> {
  %y = tgr.relu6 %x : (tensor<4x!tgr.quant<i8, 1.0:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>>
  func.return %y : tensor<4x!tgr.quant<i8, 1.0:0>>
}

// -----

// Left alone: float ops, quantize/dequantize (they convert with their float scale), a
// max_pool that keeps its input's parameters (it picks stored values).
// CHECK-LABEL: func.func @negative_no_parameters
// CHECK-NOT:     tgr.multipliers
// CHECK-NOT:     tgr.table
// CHECK-NOT:     tgr.act_range
// CHECK:         func.return
func.func @negative_no_parameters(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %r = tgr.relu %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %q = tgr.quantize %r : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4x!tgr.quant<i8, 0.5:0>>
  %m = tgr.max_pool %q {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x2x2x!tgr.quant<i8, 0.5:0>>
  %d = tgr.dequantize %m : (tensor<1x1x2x2x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x2x2xf32>
  func.return %d : tensor<1x1x2x2xf32>
}
