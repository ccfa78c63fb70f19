// RUN: tigris-opt %s --split-input-file -p fuse-activations | filecheck %s

// fuse-activations: a relu/relu6 right after an op with the FusesActivation trait
// (conv, depthwise_conv, conv1d, fully_connected) becomes that op's fused_activation,
// when the producer has no other use, is not fused already, and the types match.

// CHECK-LABEL: func.func @relu_after_conv
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {pads = array<i64: 1, 1, 1, 1>, fused_activation = "relu"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x4x8x8xf32>
// CHECK-NOT:     tgr.relu
func.func @relu_after_conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c = tgr.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = tgr.relu %c : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @relu6_after_depthwise
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x1x3x3xf32>)
// CHECK-NEXT:    %[[D:.*]] = tgr.depthwise_conv %[[X]], %[[W]] {fused_activation = "relu6"} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
// The relu6's users now read the conv.
// CHECK-NEXT:    %[[P:.*]] = tgr.global_avg_pool %[[D]]
// CHECK-NEXT:    func.return %[[P]]
// CHECK-NOT:     tgr.relu6
func.func @relu6_after_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x1x1xf32> {
  %d = tgr.depthwise_conv %x, %w : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = tgr.relu6 %d : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %p = tgr.global_avg_pool %r : (tensor<1x4x6x6xf32>) -> tensor<1x4x1x1xf32>
  func.return %p : tensor<1x4x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @relu_after_fully_connected
// CHECK-SAME:      (%[[X:.*]]: tensor<2x16xf32>, %[[W:.*]]: tensor<10x16xf32>)
// CHECK-NEXT:    %[[F:.*]] = tgr.fully_connected %[[X]], %[[W]] {fused_activation = "relu"} : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    func.return %[[F]]
// CHECK-NOT:     tgr.relu
func.func @relu_after_fully_connected(%x: tensor<2x16xf32>, %w: tensor<10x16xf32>) -> tensor<2x10xf32> {
  %f = tgr.fully_connected %x, %w : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
  %r = tgr.relu %f : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return %r : tensor<2x10xf32>
}

// -----

// CHECK-LABEL: func.func @relu_after_conv1d
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x16xf32>, %[[W:.*]]: tensor<8x4x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgr.conv1d %[[X]], %[[W]] {fused_activation = "relu"} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>) -> tensor<1x8x14xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.relu
func.func @relu_after_conv1d(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3xf32>) -> tensor<1x8x14xf32> {
  %c = tgr.conv1d %x, %w : (tensor<1x4x16xf32>, tensor<8x4x3xf32>) -> tensor<1x8x14xf32>
  %r = tgr.relu %c : (tensor<1x8x14xf32>) -> tensor<1x8x14xf32>
  func.return %r : tensor<1x8x14xf32>
}

// -----

// Two convs in a chain each absorb their own relu.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[C1:.*]] = tgr.conv %{{.*}}, %{{.*}} {fused_activation = "relu"}
// CHECK-NEXT:    %[[C2:.*]] = tgr.conv %[[C1]], %{{.*}} {fused_activation = "relu6"}
// CHECK-NEXT:    func.return %[[C2]]
func.func @chain(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c1 = tgr.conv %x, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r1 = tgr.relu %c1 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = tgr.conv %r1, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r2 = tgr.relu6 %c2 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r2 : tensor<1x4x8x8xf32>
}

// -----

// tgr.add has no FusesActivation trait: the relu stays.
// CHECK-LABEL: func.func @negative_relu_after_add
// CHECK-NEXT:    %[[A:.*]] = tgr.add
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[A]]
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     fused_activation
func.func @negative_relu_after_add(%a: tensor<1x4x8x8xf32>, %b: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %s = tgr.add %a, %b : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = tgr.relu %s : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// The conv result is also returned un-activated: fusing would clamp that output too.
// CHECK-LABEL: func.func @negative_conv_two_users
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[C]]
// CHECK-NEXT:    func.return %[[R]], %[[C]] :
// CHECK-NOT:     fused_activation
func.func @negative_conv_two_users(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %c = tgr.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = tgr.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %r, %c : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Already fused (relu6): a second activation cannot be folded in; both stay as they are.
// CHECK-LABEL: func.func @negative_already_fused
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {fused_activation = "relu6"} :
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[C]]
// CHECK-NEXT:    func.return %[[R]]
func.func @negative_already_fused(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %c = tgr.conv %x, %w {fused_activation = "relu6"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = tgr.relu %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// -----

// int8: the relu's result has its own scale/zero point, so it requantizes and must stay.
// CHECK-LABEL: func.func @negative_quantized_type_differs
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}}, %{{.*}} : ({{.*}}) -> tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[C]] : (tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.025:-128>>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     fused_activation
func.func @negative_quantized_type_differs(%x: tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, %w: tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, %b: tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.025:-128>> {
  %c = tgr.conv %x, %w, %b : (tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>
  %r = tgr.relu %c : (tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.025:-128>>
  func.return %r : tensor<1x4x4x4x!tgr.quant<i8, 0.025:-128>>
}

// -----

// Same quantized type on both sides: fusable like float.
// CHECK-LABEL: func.func @quantized_same_type
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}}, %{{.*}} {fused_activation = "relu"} : ({{.*}}) -> tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>
// CHECK-NEXT:    func.return %[[C]]
func.func @quantized_same_type(%x: tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, %w: tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, %b: tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>> {
  %c = tgr.conv %x, %w, %b : (tensor<1x2x4x4x!tgr.quant<i8, 0.05:-3>>, tensor<4x2x1x1x!tgr.quant<i8:0, {0.1:0, 0.2:0, 0.25:0, 0.5:0}>>, tensor<4xi32>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>
  %r = tgr.relu %c : (tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>) -> tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>
  func.return %r : tensor<1x4x4x4x!tgr.quant<i8, 0.05:-3>>
}

// -----

// An activation on a function argument has no producer op at all.
// CHECK-LABEL: func.func @negative_block_argument
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %{{.*}}
// CHECK-NEXT:    func.return %[[R]]
func.func @negative_block_argument(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %r = tgr.relu %x : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return %r : tensor<2x10xf32>
}
