// RUN: tigris-opt %s --split-input-file | filecheck %s
// RUN: tigris-opt %s --split-input-file --print-op-generic | tigris-opt --split-input-file | filecheck %s

// Every tgr op in the positional syntax, with properties (defaults elided),
// !tgr.quant element types, the #tgr plan attributes and tgr.weight in both
// forms. Result shapes are hand-derived and checked by the verifiers.

// CHECK-LABEL: func.func @window
// CHECK-NEXT:    %[[X:.*]], %[[W:.*]], %[[B:.*]], %[[WG:.*]], %[[WD:.*]] = "test.op"()
// (8 + 2 - 3) / 2 + 1 = 4
// CHECK-NEXT:    tgr.conv %[[X]], %[[W]], %[[B]] {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, fused_activation = "relu"} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    tgr.conv %[[X]], %[[WG]] {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
// (8 + 4 - 2 * 2 - 1) / 1 + 1 = 8
// CHECK-NEXT:    tgr.depthwise_conv %[[X]], %[[WD]] {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
// ceil((8 - 3) / 2) + 1 = 4
// CHECK-NEXT:    tgr.max_pool %[[X]] {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// (8 + 1 - 2) / 1 + 1 = 8
// CHECK-NEXT:    tgr.avg_pool %[[X]] {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, count_include_pad = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    tgr.global_avg_pool %[[X]] : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    tgr.global_max_pool %[[X]] : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
func.func @window() {
  %x, %w, %b, %wg, %wd = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>, tensor<8x2x3x3xf32>, tensor<4x1x3x3xf32>)
  %0 = tgr.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, fused_activation = "relu"} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %1 = tgr.conv %x, %wg, none {group = 2 : i64, fused_activation = "none"} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  %2 = tgr.depthwise_conv %x, %wd {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %3 = tgr.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %4 = tgr.avg_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, count_include_pad = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %5 = tgr.global_avg_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %6 = tgr.global_max_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @dense
// CHECK-NEXT:    %[[L:.*]], %[[W1:.*]], %[[X:.*]], %[[WT:.*]], %[[V:.*]], %[[FW:.*]], %[[FB:.*]], %[[A:.*]], %[[M:.*]] = "test.op"()
// (16 - 3) / 2 + 1 = 7
// CHECK-NEXT:    tgr.conv1d %[[L]], %[[W1]] {strides = array<i64: 2>} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>) -> tensor<1x8x7xf32>
// 2 * (8 - 1) + 1 + (2 - 1) + 1 = 17; out channels W[1] * group = 4
// CHECK-NEXT:    tgr.conv_transpose %[[X]], %[[WT]] {strides = array<i64: 2, 2>, output_padding = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>) -> tensor<1x4x17x17xf32>
// CHECK-NEXT:    tgr.fully_connected %[[V]], %[[FW]], %[[FB]] {fused_activation = "relu"} : (tensor<2x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    tgr.fully_connected %[[V]], %[[FW]] : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    tgr.matmul %[[A]], %[[M]] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
func.func @dense() {
  %l, %w1, %x, %wt, %v, %fw, %fb, %a, %m = "test.op"() : () -> (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>, tensor<2x16xf32>, tensor<10x16xf32>, tensor<10xf32>, tensor<2x3x4xf32>, tensor<4x5xf32>)
  %0 = tgr.conv1d %l, %w1 {strides = array<i64: 2>} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>) -> tensor<1x8x7xf32>
  %1 = tgr.conv_transpose %x, %wt {strides = array<i64: 2, 2>, output_padding = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>) -> tensor<1x4x17x17xf32>
  %2 = tgr.fully_connected %v, %fw, %fb {fused_activation = "relu"} : (tensor<2x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %3 = tgr.fully_connected %v, %fw : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
  %4 = tgr.matmul %a, %m : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT:    %[[X:.*]], %[[K:.*]], %[[C:.*]] = "test.op"()
// CHECK-NEXT:    tgr.relu %[[X]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.relu6 %[[X]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.sigmoid %[[X]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.tanh %[[X]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.leaky_relu %[[X]] {alpha = 2.000000e-01 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.leaky_relu %[[X]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.clip %[[X]] {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.clip %[[X]] {max = 1.000000e+00 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.add %[[X]], %[[K]] : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.sub %[[K]], %[[X]] : (tensor<4x1x1xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.mul %[[X]], %[[X]] : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.div %[[X]], %[[K]] : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.softmax %[[X]] {axis = 1 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.softmax %[[X]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.batch_norm %[[X]], %[[C]], %[[C]], %[[C]], %[[C]] {epsilon = 1.000000e-03 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    tgr.instance_norm %[[X]], %[[C]], %[[C]] : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
func.func @elementwise() {
  %x, %k, %c = "test.op"() : () -> (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>, tensor<4xf32>)
  %0 = tgr.relu %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = tgr.relu6 %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %2 = tgr.sigmoid %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %3 = tgr.tanh %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %4 = tgr.leaky_relu %x {alpha = 0.2 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %5 = tgr.leaky_relu %x {alpha = 0.01 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %6 = tgr.clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %7 = tgr.clip %x {max = 1.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %8 = tgr.add %x, %k : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %9 = tgr.sub %k, %x : (tensor<4x1x1xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %10 = tgr.mul %x, %x : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %11 = tgr.div %x, %k : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %12 = tgr.softmax %x {axis = 1 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %13 = tgr.softmax %x {axis = -1 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %14 = tgr.batch_norm %x, %c, %c, %c, %c {epsilon = 0.001 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %15 = tgr.instance_norm %x, %c, %c : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @shape
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]], %[[S:.*]] = "test.op"()
// CHECK-NEXT:    tgr.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
// NHWC axis 3 is the channel axis (NCHW axis 1) of these NCHW shapes.
// CHECK-NEXT:    tgr.concat %[[A]], %[[B]], %[[A]] {axis = 3 : i64, layout = "nhwc"} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x7x4x4xf32>
// CHECK-NEXT:    tgr.pad %[[A]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
// CHECK-NEXT:    tgr.pad %[[A]] {pads = array<i64: 0, 0, 0, 2, 0, 0, 0, 0>, value = 5.000000e-01 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    tgr.resize %[[A]] {scales = array<i64: 1, 1, 2, 3>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x12xf32>
// CHECK-NEXT:    tgr.resize %[[A]] {scales = array<i64: 1, 1, 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    tgr.flatten %[[A]] : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
// CHECK-NEXT:    tgr.flatten %[[A]] {axis = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<2x16xf32>
// CHECK-NEXT:    tgr.reshape %[[A]] : (tensor<1x2x4x4xf32>) -> tensor<2x16xf32>
// CHECK-NEXT:    tgr.squeeze %[[A]] {axes = array<i64: 0>} : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT:    tgr.squeeze %[[A]] : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT:    tgr.unsqueeze %[[S]] {axes = array<i64: 0, 3>} : (tensor<2x4xf32>) -> tensor<1x2x4x1xf32>
// CHECK-NEXT:    tgr.transpose %[[A]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    tgr.reduce_mean %[[A]] {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:    tgr.reduce_mean %[[A]] {axes = array<i64: -1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1xf32>
func.func @shape() {
  %a, %b, %s = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>, tensor<2x4xf32>)
  %0 = tgr.concat %a, %b {axis = 1 : i64, layout = "nchw"} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
  %1 = tgr.concat %a, %b, %a {axis = 3 : i64, layout = "nhwc"} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x7x4x4xf32>
  %2 = tgr.pad %a {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %3 = tgr.pad %a {pads = array<i64: 0, 0, 0, 2, 0, 0, 0, 0>, mode = "constant", value = 0.5 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x6xf32>
  %4 = tgr.resize %a {scales = array<i64: 1, 1, 2, 3>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x12xf32>
  %5 = tgr.resize %a {scales = array<i64: 1, 1, 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %6 = tgr.flatten %a : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %7 = tgr.flatten %a {axis = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<2x16xf32>
  %8 = tgr.reshape %a : (tensor<1x2x4x4xf32>) -> tensor<2x16xf32>
  %9 = tgr.squeeze %a {axes = array<i64: 0>} : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
  %10 = tgr.squeeze %a : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
  %11 = tgr.unsqueeze %s {axes = array<i64: 0, 3>} : (tensor<2x4xf32>) -> tensor<1x2x4x1xf32>
  %12 = tgr.transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
  %13 = tgr.reduce_mean %a {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  %14 = tgr.reduce_mean %a {axes = array<i64: -1>, keepdims = 1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1xf32>
  func.return
}

// -----

// !tgr.quant: per-tensor `<storage, scale:zero_point>` and per-axis
// `<storage:axis, {scale:zp, ...}>`, as element types of op operands/results.
// CHECK-LABEL: func.func @quant_types
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, %[[W:.*]]: tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, %[[B:.*]]: tensor<4xi32>)
// CHECK-SAME:      -> tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {fused_activation = "relu"} : (tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[C]] : (tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>) -> tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>
// CHECK-NEXT:    %[[A:.*]] = "test.op"() : () -> tensor<2x!tgr.quant<i16:0, {1.5:-32768, 2.0:32767}>>
// CHECK-NEXT:    func.return %[[R]]
func.func @quant_types(%x: tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, %w: tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, %b: tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>> {
  %c = tgr.conv %x, %w, %b {fused_activation = "relu"} : (tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>
  %r = tgr.relu %c : (tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>) -> tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>
  %a = "test.op"() : () -> tensor<2x!tgr.quant<i16:0, {1.5:-32768, 2.0:32767}>>
  func.return %r : tensor<1x4x4x4x!tgr.quant<ui8, 0.125:128>>
}

// -----

// The plan attributes the planning passes attach, as discardable attributes. A stage's
// strategy is printed when it is not normal (the default), right before its tile plan.
// CHECK-LABEL: func.func @plan_attributes
// CHECK-NEXT:    %[[X:.*]] = "test.op"() {tgr.lifetime = #tgr.lifetime<birth = -1, death = 2>} : () -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    tgr.relu %[[X]] {tgr.lifetime = #tgr.lifetime<birth = 0, death = 0>,
// CHECK-SAME:      tgr.tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 96, chain = -1>,
// CHECK-SAME:      tgr.stage = #tgr.stage<index = 0, steps = [0, 1], peak = 1024, inputs = [-1], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 512, chain = 0>>}
// CHECK-NEXT:    tgr.sigmoid %{{.*}} {tgr.stage = #tgr.stage<index = 1, steps = [2, 2], peak = 0, inputs = [], outputs = []>,
// CHECK-SAME:      tgr.blocks = [#tgr.weight_block<stage = 1, raw_bytes = 160, compressed_bytes = 17>]}
// CHECK-NEXT:    "test.op"() {s = #tgr.stage<index = 2, steps = [3, 3], peak = 64, inputs = [], outputs = [], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 1, halo = 0, out_h = 1, peak = 32, chain = -1>>, e = #tgr<strategy chain>}
func.func @plan_attributes() {
  %x = "test.op"() {tgr.lifetime = #tgr.lifetime<birth = -1, death = 2>} : () -> tensor<1x2x8x8xf32>
  %0 = tgr.relu %x {tgr.lifetime = #tgr.lifetime<birth = 0, death = 0>, tgr.tile = #tgr.tile_plan<tile_h = 3, num_tiles = 3, halo = 2, out_h = 8, peak = 96, chain = -1>, tgr.stage = #tgr.stage<index = 0, steps = [0, 1], peak = 1024, inputs = [-1], outputs = [1], strategy = chain, tile = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 512, chain = 0>>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %1 = tgr.sigmoid %0 {tgr.stage = #tgr.stage<peak = 0, index = 1, outputs = [], steps = [2, 2], inputs = [], strategy = normal>, tgr.blocks = [#tgr.weight_block<stage = 1, raw_bytes = 160, compressed_bytes = 17>]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  "test.op"() {s = #tgr.stage<tile = #tgr.tile_plan<tile_h = 1, num_tiles = 1, halo = 0, out_h = 1, peak = 32, chain = -1>, strategy = tiled, index = 2, steps = [3, 3], peak = 64, inputs = [], outputs = []>, e = #tgr<strategy chain>} : () -> ()
  func.return
}

// -----

// tgr.weight: inline dense values (splat included) and dense_resource handles
// whose bytes live in the trailer (blob = 4-byte LE alignment 16 + LE data):
// fw holds 1.0 ... 18.0 as f32, qw the int8 values -1 0 1 2 -128 127 5 -5
// (quantized weights always live in the resource table).
// CHECK-LABEL: func.func @weights
// CHECK-NEXT:    tgr.weight {tgr.name = "b"} dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    tgr.weight dense<1> : tensor<2x2xi8>
// CHECK-NEXT:    tgr.weight dense_resource<fw> : tensor<2x3x3xf32>
// CHECK-NEXT:    tgr.weight {tgr.name = "conv.weight"} dense_resource<qw> : tensor<8x!tgr.quant<i8, 0.5:0>>
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      tgr: {
// CHECK-DAG:         fw: "0x100000000000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041"
// CHECK-DAG:         qw: "0x10000000ff000102807f05fb"
// CHECK:           }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
func.func @weights() {
  %b = tgr.weight {tgr.name = "b"} dense<[0.5, -1.0]> : tensor<2xf32>
  %s = tgr.weight dense<1> : tensor<2x2xi8>
  %fw = tgr.weight dense_resource<fw> : tensor<2x3x3xf32>
  %qw = tgr.weight {tgr.name = "conv.weight"} dense_resource<qw> : tensor<8x!tgr.quant<i8, 0.5:0>>
  func.return
}
{-#
  dialect_resources: {
    tgr: {
      fw: "0x100000000000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041",
      qw: "0x10000000ff000102807f05fb"
    }
  }
#-}

// -----

// A resource handle inside a property: onnx.Constant with a large value.
// CHECK-LABEL: func.func @constant_resource
// CHECK-NEXT:    onnx.Constant {value = #tgr.dense_resource<cst : tensor<4xi32>>} : () -> tensor<4xi32>
// CHECK:         cst: "0x1000000001000000020000000300000004000000"
func.func @constant_resource() {
  %0 = onnx.Constant {value = #tgr.dense_resource<cst : tensor<4xi32>>} : () -> tensor<4xi32>
  func.return
}
{-#
  dialect_resources: {
    tgr: {
      cst: "0x1000000001000000020000000300000004000000"
    }
  }
#-}

// -----

// Pow with a tensor exponent: a broadcasting binary op like tgr.add.
// CHECK-LABEL: func.func @pow_tensor
// CHECK-NEXT:    tgr.pow_tensor %{{.*}}, %{{.*}} : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
func.func @pow_tensor(%x: tensor<2x1x3xf32>, %e: tensor<4x1xf32>) -> tensor<2x4x3xf32> {
  %0 = tgr.pow_tensor %x, %e : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  func.return %0 : tensor<2x4x3xf32>
}
