// RUN: tigris-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// One case per verifier (and parser) message of the onnx dialect. Each message
// is unique in this file, so a case that wrongly verifies cannot be masked by
// the next one.

%x, %w = "test.op"() : () -> (tensor<1x3x8xf32>, tensor<4x3x3x3xf32>)
%y = onnx.Conv %x, %w : (tensor<1x3x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6xf32>
// CHECK: onnx.Conv: input (1, 3, 8) and weight (4, 3, 3, 3) need the same rank >= 3

// -----

// Weight in-channels 2 x group 1 != 3 input channels.
%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>)
%y = onnx.Conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: onnx.Conv: 3 input channels do not match weight (4, 2, 3, 3) with group 1

// -----

// Channels match (4 = 2 x 2), but 3 output channels do not split into 2 groups.
%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>)
%y = onnx.Conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
// CHECK: onnx.Conv: 4 input channels do not match weight (3, 2, 3, 3) with group 2

// -----

%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>)
%y = onnx.Conv %x, %w {group = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: onnx.Conv: 4 input channels do not match weight (4, 4, 3, 3) with group 0

// -----

%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = onnx.Conv %x, %w {kernel_shape = array<i64: 5, 5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK: onnx.Conv: kernel_shape [5, 5] does not match weight (4, 3, 3, 3)

// -----

// ConvTranspose weight is [C_in, C_out / group, k...]: W[0] must be 4.
%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<3x2x2x2xf32>)
%y = onnx.ConvTranspose %x, %w : (tensor<1x4x8x8xf32>, tensor<3x2x2x2xf32>) -> tensor<1x2x9x9xf32>
// CHECK: onnx.ConvTranspose: weight (3, 2, 2, 2) does not match input (1, 4, 8, 8)

// -----

%x, %c, %m = "test.op"() : () -> (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<3xf32>)
%y = onnx.BatchNormalization %x, %c, %c, %m, %c : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// CHECK: onnx.BatchNormalization: per-channel inputs must have shape (4,)

// -----

%x, %c, %b = "test.op"() : () -> (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<1x2xf32>)
%y = onnx.InstanceNormalization %x, %c, %b : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<1x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: onnx.InstanceNormalization: per-channel inputs must have shape (2,)

// -----

%x = "test.op"() : () -> tensor<1x2x8x8xf32>
%y = onnx.MaxPool %x {strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK: onnx.MaxPool: kernel_shape must have 2 values (one per spatial axis)

// -----

%x = "test.op"() : () -> tensor<1x2x8xf32>
%y = onnx.AveragePool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x8xf32>) -> tensor<1x2x7xf32>
// CHECK: onnx.AveragePool: kernel_shape must have 1 values (one per spatial axis)

// -----

%x = "test.op"() : () -> tensor<1x4x2x2xf32>
%y = onnx.LRN %x {size = 0 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK: onnx.LRN: size is required and must be >= 1

// -----

%a, %b = "test.op"() : () -> (tensor<2x3x4xf32>, tensor<4x5xf32>)
%y = onnx.Gemm %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: onnx.Gemm: A (2, 3, 4) and B (4, 5) must be 2-D

// -----

// transA: K is A's dim 0 (3); B is not transposed: K is B's dim 0 (2).
%a, %b = "test.op"() : () -> (tensor<3x2xf32>, tensor<2x5xf32>)
%y = onnx.Gemm %a, %b {transA = 1 : i64} : (tensor<3x2xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: onnx.Gemm: inner dimensions 3 and 2 differ

// -----

%x = "test.op"() : () -> tensor<2x3xf32>
%y = onnx.Softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: axis 2 is out of range for rank 2

// -----

%x, %lo = "test.op"() : () -> (tensor<2x3xf32>, tensor<1xf32>)
%y = onnx.Clip %x, %lo : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
// CHECK: onnx.Clip: min and max inputs must be scalars

// -----

%a, %b = "test.op"() : () -> (tensor<2x3xf32>, tensor<2x4xf32>)
%y = onnx.Add %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: shapes (2, 3) and (2, 4) do not broadcast

// -----

%y = onnx.Sum : () -> tensor<2xf32>
// CHECK: onnx.Sum needs at least one input

// -----

%a = "test.op"() : () -> tensor<2x3xf32>
%y = onnx.Concat %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: onnx.Concat: axis is required

// -----

%a, %b = "test.op"() : () -> (tensor<2x3xf32>, tensor<2x3x1xf32>)
%y = onnx.Concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
// CHECK: onnx.Concat: all inputs must have the same rank

// -----

%a = "test.op"() : () -> tensor<2x3xf32>
%y = onnx.Concat %a, %a {axis = 3 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: axis 3 is out of range for rank 2

// -----

%x, %s = "test.op"() : () -> (tensor<2x3xf32>, tensor<1x2xi64>)
%y = onnx.Reshape %x, %s : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<3x2xf32>
// CHECK: onnx.Reshape: shape must be a 1-D tensor

// -----

%x = "test.op"() : () -> tensor<1x2x3x4xf32>
%y = onnx.Transpose %x {perm = array<i64: 0, 2, 2, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x3x2xf32>
// CHECK: onnx.Transpose: perm [0, 2, 2, 1] is not a permutation of 4 axes

// -----

%y = onnx.Constant : () -> tensor<f32>
// CHECK: onnx.Constant needs exactly one of value, value_float, value_floats, value_int, value_ints, got []

// -----

%y = onnx.Constant {value_float = 1.0 : f32, value_int = 1 : i64} : () -> tensor<f32>
// CHECK: onnx.Constant needs exactly one of value, value_float, value_floats, value_int, value_ints, got ['value_float', 'value_int']

// -----

%x, %i = "test.op"() : () -> (tensor<2x3xf32>, tensor<i64>)
%y = onnx.Gather %x, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2xf32>
// CHECK: axis -3 is out of range for rank 2

// -----

%x = "test.op"() : () -> tensor<2x3xf32>
%y = onnx.Cast %x {to = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: onnx.Cast: `to` must be an ONNX data type number (1..26)

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = onnx.ReduceMean %x {axes = array<i64: 4>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: reduce axis 4 is out of range for rank 4

// -----

%x, %s = "test.op"() : () -> (tensor<2x3xf32>, tensor<2x3xf32>)
%y = onnx.QuantizeLinear %x, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK: onnx.QuantizeLinear: scale must be a scalar or a 1-D per-axis vector

// -----

%x, %s, %z = "test.op"() : () -> (tensor<2x3xi8>, tensor<2xf32>, tensor<i8>)
%y = onnx.DequantizeLinear %x, %s, %z {axis = 0 : i64} : (tensor<2x3xi8>, tensor<2xf32>, tensor<i8>) -> tensor<2x3xf32>
// CHECK: onnx.DequantizeLinear: zero point and scale shapes differ

// -----

// One element each is per-tensor whatever the shapes (onnxruntime's quantizer writes a bias's
// scale as [1] beside a scalar zero point): no diagnostic, the op prints back.
%x, %s, %z = "test.op"() : () -> (tensor<6xi32>, tensor<1xf32>, tensor<i32>)
%y = onnx.DequantizeLinear %x, %s, %z : (tensor<6xi32>, tensor<1xf32>, tensor<i32>) -> tensor<6xf32>
// CHECK:      builtin.module {
// CHECK-NEXT:   %x, %s, %z = "test.op"() : () -> (tensor<6xi32>, tensor<1xf32>, tensor<i32>)
// CHECK-NEXT:   %y = onnx.DequantizeLinear %x, %s, %z : (tensor<6xi32>, tensor<1xf32>, tensor<i32>) -> tensor<6xf32>
// CHECK-NEXT: }

// -----

// The positional parser: a `none` in a required slot of a multi-optional op.
%lo = "test.op"() : () -> tensor<f32>
%y = onnx.Clip none, %lo : (tensor<f32>) -> tensor<f32>
// CHECK: operand 'input' of onnx.Clip is required

// -----

// `none` may only stand for an optional operand.
%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>)
%y = onnx.Conv %x, none, %w : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
// CHECK: onnx.Conv: operand 'W' is required

// -----

%x = "test.op"() : () -> tensor<4xf32>
%y = onnx.Relu %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: onnx.Relu takes at most 1 operands, got 2

// -----

%x = "test.op"() : () -> tensor<4xf32>
%y = onnx.Concat %x, none, %x {axis = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
// CHECK: onnx.Concat: 'none' cannot stand in the variadic operand list 'inputs'

// -----

// Blocked quantization (opset 21) needs a scale of the input's rank.
%x, %s = "test.op"() : () -> (tensor<2x4xf32>, tensor<2xf32>)
%y = onnx.QuantizeLinear %x, %s {block_size = 2 : i64} : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xi8>
// CHECK: onnx.QuantizeLinear: blocked quantization needs a scale of the input's rank
