// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p compute-quant-scales | filecheck %s

// Errors name the node: a quantized runtime op without an int8 kernel, and an effective scale
// the multiplier/shift cannot represent (a left shift above 30: M(2**40) would need 41).

// CHECK: node 'sm' (tgr.softmax): no int8 kernel for this op: quantized tensors are not supported by it
func.func @no_int8_kernel(%x: tensor<1x4x!tgr.quant<i8, 0.5:0>>) -> tensor<1x4x!tgr.quant<i8, 0.00390625:-128>> {
  %y = tgr.softmax %x {tgr.name = "sm"} : (tensor<1x4x!tgr.quant<i8, 0.5:0>>) -> tensor<1x4x!tgr.quant<i8, 0.00390625:-128>>
  func.return %y : tensor<1x4x!tgr.quant<i8, 0.00390625:-128>>
}

// -----

// CHECK: node 'big' (tgr.mul): multiplier 1099511627776.0 needs a left shift of 41; at most 30 is supported
func.func @unrepresentable_scale(%x: tensor<4x!tgr.quant<i8, 1048576.0:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>> {
  %y = tgr.mul %x, %x {tgr.name = "big"} : (tensor<4x!tgr.quant<i8, 1048576.0:0>>, tensor<4x!tgr.quant<i8, 1048576.0:0>>) -> tensor<4x!tgr.quant<i8, 1.0:0>>
  func.return %y : tensor<4x!tgr.quant<i8, 1.0:0>>
}
