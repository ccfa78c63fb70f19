// RUN: tigris-opt %s --split-input-file -p clip-to-relu6 | filecheck %s

// clip-to-relu6: clip(0, 6) is relu6, clip(0, unbounded) is relu; every other clip stays.

// CHECK-LABEL: func.func @clip_0_6
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.relu6 %[[X]] {tgr.name = "clip1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     tgr.clip
func.func @clip_0_6(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = tgr.clip %x {min = 0.0 : f32, max = 6.0 : f32, tgr.name = "clip1"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %0 : tensor<1x4x8x8xf32>
}

// -----

// No max: unbounded above, so relu.
// CHECK-LABEL: func.func @clip_0_none
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     tgr.clip
func.func @clip_0_none(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tgr.clip %x {min = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// max = +inf (0x7F800000 is the f32 bit pattern of +infinity): relu.
// CHECK-LABEL: func.func @clip_0_inf
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     tgr.clip
func.func @clip_0_inf(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tgr.clip %x {min = 0.0 : f32, max = 0x7F800000 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// The relu6 takes over the clip's uses.
// CHECK-LABEL: func.func @clip_0_6_with_user
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.relu6 %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[A:.*]] = tgr.add %[[R]], %[[R]]
// CHECK-NEXT:    func.return %[[A]]
func.func @clip_0_6_with_user(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tgr.clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tgr.add %0, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// Look-alikes that are neither relu nor relu6: min -1; max 5; no min (unbounded below).
// CHECK-LABEL: func.func @negative_other_bounds
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[C0:.*]] = tgr.clip %[[X]] {min = -1.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[C1:.*]] = tgr.clip %[[X]] {min = 0.000000e+00 : f32, max = 5.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[C2:.*]] = tgr.clip %[[X]] {max = 6.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[C0]], %[[C1]], %[[C2]] :
// CHECK-NOT:     tgr.relu
func.func @negative_other_bounds(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = tgr.clip %x {min = -1.0 : f32, max = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tgr.clip %x {min = 0.0 : f32, max = 5.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tgr.clip %x {max = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// No bounds at all (-inf, +inf): the identity, but not a relu.
// CHECK-LABEL: func.func @negative_unbounded
// CHECK-NEXT:    %[[C:.*]] = tgr.clip %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     tgr.relu
func.func @negative_unbounded(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tgr.clip %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
