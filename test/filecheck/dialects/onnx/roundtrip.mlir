// RUN: tigris-opt %s --split-input-file | filecheck %s
// RUN: tigris-opt %s --split-input-file --print-op-generic | tigris-opt --split-input-file | filecheck %s

// The positional syntax of the onnx dialect (syntax.py): custom form and the
// generic form both parse back to the same custom print.

// Conv without bias; properties equal to their ONNX default (group = 1,
// auto_pad = "NOTSET") are not printed, others keep their ONNX names.
// CHECK-LABEL: func.func @conv_defaults
// CHECK-NEXT:    %[[X:.*]], %[[W:.*]] = "test.op"()
// CHECK-NEXT:    %{{.*}} = onnx.Conv %[[X]], %[[W]] {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return
func.func @conv_defaults() {
  %x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
  %y = onnx.Conv %x, %w {group = 1 : i64, auto_pad = "NOTSET", strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  func.return
}

// -----

// A trailing `none` is dropped: it is the same op as no bias at all.
// CHECK-LABEL: func.func @conv_trailing_none
// CHECK:         onnx.Conv %{{.*}}, %{{.*}} {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x8x8xf32>
// CHECK:         onnx.Conv %{{.*}}, %{{.*}}, %{{.*}} {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
func.func @conv_trailing_none() {
  %x, %w, %b = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>)
  %y = onnx.Conv %x, %w, none {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x8x8xf32>
  %z = onnx.Conv %x, %w, %b {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  func.return
}

// -----

// Ops with several optional inputs keep each operand in its ONNX slot.
// CHECK-LABEL: func.func @optional_slots
// CHECK-NEXT:    %[[X:.*]], %[[LO:.*]], %[[HI:.*]], %[[SC:.*]], %[[SZ:.*]], %[[ROI:.*]] = "test.op"()
// CHECK-NEXT:    onnx.Clip %[[X]], none, %[[HI]] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    onnx.Clip %[[X]], %[[LO]] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    onnx.Clip %[[X]] {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    onnx.Resize %[[X]], none, %[[SC]] {mode = "linear"} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    onnx.Resize %[[X]], none, none, %[[SZ]] : (tensor<1x2x4x4xf32>, tensor<4xi64>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    onnx.Resize %[[X]], %[[ROI]], %[[SC]] {coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x2x4x4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
func.func @optional_slots() {
  %x, %lo, %hi, %sc, %sz, %roi = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<f32>, tensor<f32>, tensor<4xf32>, tensor<4xi64>, tensor<8xf32>)
  %a = onnx.Clip %x, none, %hi : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %b = onnx.Clip %x, %lo, none : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %c = onnx.Clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = onnx.Resize %x, none, %sc {mode = "linear"} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  %e = onnx.Resize %x, none, none, %sz : (tensor<1x2x4x4xf32>, tensor<4xi64>) -> tensor<1x2x8x8xf32>
  %f = onnx.Resize %x, %roi, %sc {coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x2x4x4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @slice_pad_dropout
// CHECK-NEXT:    %[[X:.*]], %[[I:.*]], %[[P:.*]], %[[V:.*]], %[[R:.*]], %[[T:.*]] = "test.op"()
// CHECK-NEXT:    onnx.Slice %[[X]], %[[I]], %[[I]], none, %[[I]] : (tensor<1x2x4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    onnx.Pad %[[X]], %[[P]], none, %[[I]] {mode = "reflect"} : (tensor<1x2x4x4xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    onnx.Pad %[[X]], %[[P]], %[[V]] : (tensor<1x2x4x4xf32>, tensor<2xi64>, tensor<f32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    onnx.Dropout %[[X]], none, %[[T]] : (tensor<1x2x4x4xf32>, tensor<i1>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    onnx.Dropout %[[X]], %[[R]] {seed = 7 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
func.func @slice_pad_dropout() {
  %x, %i, %p, %v, %r, %t = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<1xi64>, tensor<2xi64>, tensor<f32>, tensor<f32>, tensor<i1>)
  %a = onnx.Slice %x, %i, %i, none, %i : (tensor<1x2x4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x4x4xf32>
  %b = onnx.Pad %x, %p, none, %i {mode = "reflect"} : (tensor<1x2x4x4xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<1x2x4x6xf32>
  %c = onnx.Pad %x, %p, %v {mode = "constant"} : (tensor<1x2x4x4xf32>, tensor<2xi64>, tensor<f32>) -> tensor<1x2x4x6xf32>
  %d = onnx.Dropout %x, none, %t : (tensor<1x2x4x4xf32>, tensor<i1>) -> tensor<1x2x4x4xf32>
  %e = onnx.Dropout %x, %r {seed = 7 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  func.return
}

// -----

// Variadic operands: Concat and Sum with one, two and three inputs.
// CHECK-LABEL: func.func @variadic
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = "test.op"()
// CHECK-NEXT:    onnx.Concat %[[A]] {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    onnx.Concat %[[A]], %[[B]], %[[A]] {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
// CHECK-NEXT:    onnx.Sum %[[A]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    onnx.Sum %[[A]], %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @variadic() {
  %a, %b = "test.op"() : () -> (tensor<2x3xf32>, tensor<2x1xf32>)
  %c1 = onnx.Concat %a {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c3 = onnx.Concat %a, %b, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  %s1 = onnx.Sum %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s3 = onnx.Sum %a, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// onnx.generic: no operands, several results, default domain "" and empty
// node_attributes not printed; a discardable attribute shares the dictionary.
// CHECK-LABEL: func.func @generic
// CHECK-NEXT:    %[[X:.*]] = "test.op"()
// CHECK-NEXT:    %{{.*}}, %{{.*}} = onnx.generic {op_type = "Split", node_attributes = {axis = 1 : i64}} : () -> (tensor<1x2xf32>, tensor<1x2xf32>)
// CHECK-NEXT:    %{{.*}} = onnx.generic %[[X]], %[[X]] {op_type = "Foo", domain = "my.domain", tgr.name = "foo"} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    onnx.generic %[[X]] {op_type = "Print"} : (tensor<1x4xf32>) -> ()
func.func @generic() {
  %x = "test.op"() : () -> tensor<1x4xf32>
  %a, %b = onnx.generic {op_type = "Split", node_attributes = {axis = 1 : i64}} : () -> (tensor<1x2xf32>, tensor<1x2xf32>)
  %c = onnx.generic %x, %x {op_type = "Foo", domain = "my.domain", tgr.name = "foo"} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  onnx.generic %x {op_type = "Print", domain = "", node_attributes = {}} : (tensor<1x4xf32>) -> ()
  func.return
}

// -----

// Typed ops with non-default attributes of each kind: int, float, string,
// ints, floats, and dense values.
// CHECK-LABEL: func.func @attributes
// CHECK-NEXT:    %[[X:.*]], %[[M:.*]], %[[S:.*]], %[[Z:.*]] = "test.op"()
// CHECK-NEXT:    onnx.MaxPool %[[X]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    onnx.AveragePool %[[X]] {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, count_include_pad = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    onnx.Gemm %[[M]], %[[M]] {alpha = 2.500000e-01 : f32, transA = 1 : i64} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    onnx.Upsample %[[X]] {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x10x10xf32>
// CHECK-NEXT:    onnx.Constant {value = dense<[1, 2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
// CHECK-NEXT:    onnx.Constant {value = dense<5.000000e-01> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
// CHECK-NEXT:    onnx.ConstantOfShape %{{.*}} {value = dense<0> : tensor<1xi8>} : (tensor<3xi64>) -> tensor<2x3x4xi8>
// CHECK-NEXT:    onnx.QuantizeLinear %[[M]], %[[S]], %[[Z]] {axis = 0 : i64, saturate = 0 : i64} : (tensor<3x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x3xi8>
// CHECK-NEXT:    onnx.Cast %[[M]] {to = 10 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf16>
// CHECK-NEXT:    onnx.LeakyRelu %[[M]] : (tensor<3x3xf32>) -> tensor<3x3xf32>
func.func @attributes() {
  %x, %m, %s, %z = "test.op"() : () -> (tensor<1x2x5x5xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xi8>)
  %0 = onnx.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %1 = onnx.AveragePool %x {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, count_include_pad = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %2 = onnx.Gemm %m, %m {alpha = 0.25 : f32, transA = 1 : i64} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %3 = onnx.Upsample %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x10x10xf32>
  %4 = onnx.Constant {value = dense<[1, 2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
  %5 = onnx.Constant {value = dense<0.5> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %6 = onnx.ConstantOfShape %4 {value = dense<0> : tensor<1xi8>} : (tensor<3xi64>) -> tensor<2x3x4xi8>
  %7 = onnx.QuantizeLinear %m, %s, %z {axis = 0 : i64, saturate = 0 : i64} : (tensor<3x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x3xi8>
  %8 = onnx.Cast %m {to = 10 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf16>
  %9 = onnx.LeakyRelu %m {alpha = 0.01 : f32} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

// Every remaining typed op once, so each parses and prints.
// CHECK-LABEL: func.func @all_ops
// CHECK:         onnx.ConvTranspose {{.*}} {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    onnx.BatchNormalization {{.*}} {epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    onnx.InstanceNormalization
// CHECK-NEXT:    onnx.GlobalAveragePool {{.*}} -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    onnx.GlobalMaxPool {{.*}} -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    onnx.LRN {{.*}} {size = 3 : i64}
// CHECK-NEXT:    onnx.MatMul {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT:    onnx.Softmax {{.*}} {axis = 1 : i64}
// CHECK-NEXT:    onnx.Relu
// CHECK-NEXT:    onnx.Sigmoid
// CHECK-NEXT:    onnx.Tanh
// CHECK-NEXT:    onnx.HardSwish
// CHECK-NEXT:    onnx.HardSigmoid {{.*}} {alpha = 1.000000e-01 : f32}
// CHECK-NEXT:    onnx.Swish {{.*}} {alpha = 2.000000e+00 : f32}
// CHECK-NEXT:    onnx.Silu
// CHECK-NEXT:    onnx.Add
// CHECK-NEXT:    onnx.Sub
// CHECK-NEXT:    onnx.Mul
// CHECK-NEXT:    onnx.Div
// CHECK-NEXT:    onnx.Reshape {{.*}} {allowzero = 1 : i64}
// CHECK-NEXT:    onnx.Flatten {{.*}} -> tensor<2x16xf32>
// CHECK-NEXT:    onnx.Squeeze {{.*}} {axes = array<i64: 0>}
// CHECK-NEXT:    onnx.Unsqueeze {{.*}} {axes = array<i64: 0>}
// CHECK-NEXT:    onnx.Transpose {{.*}} {perm = array<i64: 1, 0>}
// CHECK-NEXT:    onnx.Shape {{.*}} {end = -1 : i64}
// CHECK-NEXT:    onnx.Gather {{.*}} {axis = -1 : i64}
// CHECK-NEXT:    onnx.Identity
// CHECK-NEXT:    onnx.ReduceMean {{.*}} {axes = array<i64: 1>, noop_with_empty_axes = 1 : i64}
// CHECK-NEXT:    onnx.ReduceMax {{.*}} {keepdims = 0 : i64}
// CHECK-NEXT:    onnx.DequantizeLinear {{.*}} {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
func.func @all_ops() {
  %x, %w, %c, %v, %m, %n, %i = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<4x3xf32>, tensor<2xi64>, tensor<i64>)
  %0 = onnx.ConvTranspose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  %1 = onnx.BatchNormalization %x, %c, %c, %c, %c {epsilon = 0.001 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = onnx.InstanceNormalization %x, %c, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %3 = onnx.GlobalAveragePool %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %4 = onnx.GlobalMaxPool %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %5 = onnx.LRN %x {size = 3 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %6 = onnx.MatMul %v, %m : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %7 = onnx.Softmax %v {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = onnx.Relu %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %9 = onnx.Sigmoid %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %10 = onnx.Tanh %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %11 = onnx.HardSwish %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %12 = onnx.HardSigmoid %x {alpha = 0.1 : f32, beta = 0.5 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %13 = onnx.Swish %x {alpha = 2.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %14 = onnx.Silu %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %15 = onnx.Add %x, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %16 = onnx.Sub %x, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %17 = onnx.Mul %x, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %18 = onnx.Div %x, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %19 = onnx.Reshape %x, %n {allowzero = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2xi64>) -> tensor<2x16xf32>
  %20 = onnx.Flatten %x : (tensor<1x2x4x4xf32>) -> tensor<2x16xf32>
  %21 = onnx.Squeeze %x {axes = array<i64: 0>} : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
  %22 = onnx.Unsqueeze %v {axes = array<i64: 0>} : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
  %23 = onnx.Transpose %v {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %24 = onnx.Shape %x {end = -1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<3xi64>
  %25 = onnx.Gather %v, %i {axis = -1 : i64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2xf32>
  %26 = onnx.Identity %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %27 = onnx.ReduceMean %v {axes = array<i64: 1>, noop_with_empty_axes = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %28 = onnx.ReduceMax %v {keepdims = 0 : i64} : (tensor<2x4xf32>) -> tensor<f32>
  %29 = onnx.DequantizeLinear %v, %c {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  func.return
}
