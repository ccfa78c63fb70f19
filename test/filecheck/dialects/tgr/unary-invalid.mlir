// RUN: tigris-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier messages of the element-wise math ops (tgr/ops_unary.py, onnx/ops_unary.py).


%x = "test.op"() : () -> tensor<1x2xf32>
%y = tgr.exp %x : (tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK: tgr.exp: result shape (2, 2) does not match expected (1, 2)

// -----

%x = "test.op"() : () -> tensor<1x2xf32>
%y = tgr.gelu %x {approximate = "fast"} : (tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK: tgr.gelu: approximate must be one of ('none', 'tanh'), got 'fast'

// -----

%x = "test.op"() : () -> tensor<1x2xf32>
%y = onnx.Gelu %x {approximate = "erf"} : (tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK: onnx.Gelu: approximate must be 'none' or 'tanh', got 'erf'
