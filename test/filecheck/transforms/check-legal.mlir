// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p check-legal | filecheck %s

// check-legal: after normalization only tgr ops (and func/builtin structure) may
// remain. One error lists every leftover as `<op type> '<node name>'`.
// (--verify-diagnostics: the error is printed and the run goes on to the next chunk.)

// A module of tgr ops passes unchanged.
// CHECK-LABEL: func.func @all_tgr
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[W:.*]] = tgr.weight dense<1.000000e+00> : tensor<4x1x3x3xf32>
// CHECK-NEXT:    %[[D:.*]] = tgr.depthwise_conv %[[X]], %[[W]] {pads = array<i64: 1, 1, 1, 1>, fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %[[D]] : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[G]] : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  }
func.func @all_tgr(%x: tensor<1x4x8x8xf32>) -> tensor<1x4xf32> {
  %w = tgr.weight dense<1.0> : tensor<4x1x3x3xf32>
  %d = tgr.depthwise_conv %x, %w {pads = array<i64: 1, 1, 1, 1>, fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %g = tgr.global_avg_pool %d : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %r = tgr.reshape %g : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  func.return %r : tensor<1x4xf32>
}

// -----

// Two typed LRN nodes and an unknown op (onnx.generic, named by its op_type), in
// program order, counted once each.
// CHECK: {{^}}3 operators are not supported: LRN 'norm1', LRN 'norm2', Foo 'x'{{$}}
func.func @three_illegal(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = onnx.LRN %x {size = 3 : i64, tgr.name = "norm1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = tgr.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = onnx.LRN %1 {size = 5 : i64, tgr.name = "norm2"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = onnx.generic %2 {op_type = "Foo", domain = "my.domain", tgr.name = "x"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %3 : tensor<1x4x8x8xf32>
}

// -----

// One leftover: singular wording.
// CHECK: {{^}}1 operator is not supported: LRN 'lrn_only'{{$}}
func.func @one_illegal(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = onnx.LRN %x {size = 3 : i64, tgr.name = "lrn_only"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %0 : tensor<1x4x8x8xf32>
}

// -----

// A typed onnx op that a normalization pass should have removed is illegal too; an
// unnamed node shows '?'.
// CHECK: {{^}}2 operators are not supported: ReduceMax '?', Constant 'c'{{$}}
func.func @leftover_typed_ops(%x: tensor<2x3x4x5xf32>) -> (tensor<2x1x4x5xf32>, tensor<2xi64>) {
  %0 = onnx.ReduceMax %x {axes = array<i64: 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
  %1 = onnx.Constant {value = dense<[1, 2]> : tensor<2xi64>, tgr.name = "c"} : () -> tensor<2xi64>
  func.return %0, %1 : tensor<2x1x4x5xf32>, tensor<2xi64>
}

// -----

// An empty function is legal.
// CHECK-LABEL: func.func @negative_empty
// CHECK-NEXT:    func.return %{{.*}} : tensor<2xf32>
// CHECK-NOT:     not supported
func.func @negative_empty(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
