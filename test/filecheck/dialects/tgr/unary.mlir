// RUN: tigris-opt %s | filecheck %s
// RUN: tigris-opt %s --print-op-generic | tigris-opt | filecheck %s

// The element-wise math ops (ops_unary.py): positional syntax, properties printed only when
// they differ from the ONNX default. Verifier messages: unary-invalid.mlir.

// CHECK-LABEL: func.func @math
// CHECK-NEXT:    tgr.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.silu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.elu %x {alpha = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.selu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.hard_sigmoid %x {beta = 6.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.shrink %x {bias = 1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.pow %x {exponent = 3.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.gelu %q {approximate = "tanh"} : (tensor<4x!tgr.quant<i8, 0.05:3>>) -> tensor<4x!tgr.quant<i8, 0.04:-10>>
func.func @math(%x: tensor<2x3xf32>, %q: tensor<4x!tgr.quant<i8, 0.05:3>>) {
  %0 = tgr.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tgr.silu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tgr.elu %x {alpha = 0.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tgr.selu %x {alpha = 1.67326319217681884765625 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tgr.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.6 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = tgr.shrink %x {bias = 1.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = tgr.pow %x {exponent = 3.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = tgr.gelu %q {approximate = "tanh"} : (tensor<4x!tgr.quant<i8, 0.05:3>>) -> tensor<4x!tgr.quant<i8, 0.04:-10>>
  func.return
}

