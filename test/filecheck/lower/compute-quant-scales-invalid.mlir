// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p compute-quant-scales | filecheck %s

// Errors name the node: what the device could not compute. (fold-qdq leaves an op without an
// int8 kernel in float, so only hand-written IR reaches this pass with one.)

// A quantized runtime op without an int8 kernel.
// CHECK: node 'norm' (tgr.instance_norm): no int8 kernel for this op: quantized tensors are not supported by it
func.func @no_int8_kernel(%x: tensor<1x2x4x4x!tgr.quant<i8, 0.5:0>>) -> tensor<1x2x4x4x!tgr.quant<i8, 0.5:0>> {
  %s = tgr.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %b = tgr.weight dense<[0.0, 1.0]> : tensor<2xf32>
  %y = tgr.instance_norm %x, %s, %b {tgr.name = "norm"} : (tensor<1x2x4x4x!tgr.quant<i8, 0.5:0>>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4x!tgr.quant<i8, 0.5:0>>
  func.return %y : tensor<1x2x4x4x!tgr.quant<i8, 0.5:0>>
}

// -----

// The int32 accumulator could overflow: 70000 taps x |a - zp| <= 255 (zp -128) x |b - zp| <= 128
// = 2,284,800,000 > 2**31 - 1.
// CHECK: node 'wide' (tgr.matmul): the int32 accumulator may overflow: 70000 taps x |x - zp| <= 255 x |w - zp| <= 128 + |bias| <= 0 exceeds 2147483647
func.func @accumulator_overflow(%a: tensor<1x70000x!tgr.quant<i8, 0.5:-128>>, %b: tensor<70000x1x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x!tgr.quant<i8, 1.0:0>> {
  %y = tgr.matmul %a, %b {tgr.name = "wide"} : (tensor<1x70000x!tgr.quant<i8, 0.5:-128>>, tensor<70000x1x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x!tgr.quant<i8, 1.0:0>>
  func.return %y : tensor<1x1x!tgr.quant<i8, 1.0:0>>
}

// -----

// A mean of 3000 x 3000 = 9,000,000 elements: more than (2**31 - 1) / 255 = 8,421,504.
// CHECK: node 'gap' (tgr.global_avg_pool): a mean of 9000000 elements may overflow the int32 sum (at most 8421504)
func.func @mean_overflow(%x: tensor<1x1x3000x3000x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x1x1x!tgr.quant<i8, 0.5:0>> {
  %y = tgr.global_avg_pool %x {tgr.name = "gap"} : (tensor<1x1x3000x3000x!tgr.quant<i8, 0.5:0>>) -> tensor<1x1x1x1x!tgr.quant<i8, 0.5:0>>
  func.return %y : tensor<1x1x1x1x!tgr.quant<i8, 0.5:0>>
}

// -----

// s_a s_b / s_y = 1e-30 * 1e-30 / 1e30 = 1e-90 is zero in float32.
// CHECK: node 'tiny' (tgr.matmul): an accumulator scale sx * sw / sy is not a normal float32 (zero or infinite)
func.func @scale_underflow(%a: tensor<1x2x!tgr.quant<i8, 1.0e-30:0>>, %b: tensor<2x1x!tgr.quant<i8, 1.0e-30:0>>) -> tensor<1x1x!tgr.quant<i8, 1.0e30:0>> {
  %y = tgr.matmul %a, %b {tgr.name = "tiny"} : (tensor<1x2x!tgr.quant<i8, 1.0e-30:0>>, tensor<2x1x!tgr.quant<i8, 1.0e-30:0>>) -> tensor<1x1x!tgr.quant<i8, 1.0e30:0>>
  func.return %y : tensor<1x1x!tgr.quant<i8, 1.0e30:0>>
}

// -----

// int8 kernels take 8-bit activations quantized per tensor.
// CHECK: node 'per_axis' (tgr.add): operand 0 has per-axis parameters (axis 1); this kernel needs per-tensor ones
func.func @per_axis_activation(%a: tensor<1x2x!tgr.quant<i8:1, {0.5:0, 0.25:0}>>, %b: tensor<1x2x!tgr.quant<i8, 0.5:0>>) -> tensor<1x2x!tgr.quant<i8, 1.0:0>> {
  %y = tgr.add %a, %b {tgr.name = "per_axis"} : (tensor<1x2x!tgr.quant<i8:1, {0.5:0, 0.25:0}>>, tensor<1x2x!tgr.quant<i8, 0.5:0>>) -> tensor<1x2x!tgr.quant<i8, 1.0:0>>
  func.return %y : tensor<1x2x!tgr.quant<i8, 1.0:0>>
}
