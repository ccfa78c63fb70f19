// RUN: tigris-opt %s --split-input-file -p reduce-mean-to-gap | filecheck %s

// reduce-mean-to-gap: a mean over every spatial axis (2 .. rank-1) is global average
// pooling; with keepdims = 0 the pooled [N, C, 1, 1] is reshaped to the reduced [N, C].

// CHECK-LABEL: func.func @spatial_keepdims
// CHECK-SAME:      (%[[X:.*]]: tensor<2x8x5x7xf32>)
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %[[X]] {tgr.name = "mean1"} : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32>
// CHECK-NEXT:    func.return %[[G]]
// CHECK-NOT:     tgr.reduce_mean
func.func @spatial_keepdims(%x: tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32> {
  %0 = tgr.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = 1 : i64, tgr.name = "mean1"} : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32>
  func.return %0 : tensor<2x8x1x1xf32>
}

// -----

// keepdims 0: pool, then reshape [2, 8, 1, 1] -> [2, 8]. Axes in any order.
// CHECK-LABEL: func.func @spatial_no_keepdims
// CHECK-SAME:      (%[[X:.*]]: tensor<2x8x5x7xf32>)
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %[[X]] {tgr.name = "mean2"} : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[G]] {tgr.name = "mean2"} : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[FC:.*]] = tgr.relu %[[R]] : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %[[FC]]
// CHECK-NOT:     tgr.reduce_mean
func.func @spatial_no_keepdims(%x: tensor<2x8x5x7xf32>) -> tensor<2x8xf32> {
  %0 = tgr.reduce_mean %x {axes = array<i64: 3, 2>, keepdims = 0 : i64, tgr.name = "mean2"} : (tensor<2x8x5x7xf32>) -> tensor<2x8xf32>
  %1 = tgr.relu %0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %1 : tensor<2x8xf32>
}

// -----

// Rank 3 [N, C, L]: the only spatial axis is 2.
// CHECK-LABEL: func.func @rank3
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x9xf32>)
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %[[X]] : (tensor<1x4x9xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @rank3(%x: tensor<1x4x9xf32>) -> tensor<1x4x1xf32> {
  %0 = tgr.reduce_mean %x {axes = array<i64: 2>} : (tensor<1x4x9xf32>) -> tensor<1x4x1xf32>
  func.return %0 : tensor<1x4x1xf32>
}

// -----

// CHECK-LABEL: func.func @rank3_no_keepdims
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %{{.*}} : (tensor<1x4x9xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[G]] : (tensor<1x4x1xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @rank3_no_keepdims(%x: tensor<1x4x9xf32>) -> tensor<1x4xf32> {
  %0 = tgr.reduce_mean %x {axes = array<i64: 2>, keepdims = 0 : i64} : (tensor<1x4x9xf32>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}

// -----

// Look-alikes: a mean over channels (axis 1), over H only on rank 4 (axis 2 of [2, 3]),
// and over C and the spatial axes together. None is a global average pool.
// CHECK-LABEL: func.func @negative_not_all_spatial
// CHECK-SAME:      (%[[X:.*]]: tensor<2x8x5x7xf32>)
// CHECK-NEXT:    %[[M0:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 1>} : (tensor<2x8x5x7xf32>) -> tensor<2x1x5x7xf32>
// CHECK-NEXT:    %[[M1:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 2>} : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x7xf32>
// CHECK-NEXT:    %[[M2:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 1, 2, 3>} : (tensor<2x8x5x7xf32>) -> tensor<2x1x1x1xf32>
// CHECK-NEXT:    func.return %[[M0]], %[[M1]], %[[M2]] :
// CHECK-NOT:     tgr.global_avg_pool
func.func @negative_not_all_spatial(%x: tensor<2x8x5x7xf32>) -> (tensor<2x1x5x7xf32>, tensor<2x8x1x7xf32>, tensor<2x1x1x1xf32>) {
  %0 = tgr.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x8x5x7xf32>) -> tensor<2x1x5x7xf32>
  %1 = tgr.reduce_mean %x {axes = array<i64: 2>} : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x7xf32>
  %2 = tgr.reduce_mean %x {axes = array<i64: 1, 2, 3>} : (tensor<2x8x5x7xf32>) -> tensor<2x1x1x1xf32>
  func.return %0, %1, %2 : tensor<2x1x5x7xf32>, tensor<2x8x1x7xf32>, tensor<2x1x1x1xf32>
}

// -----

// Rank 2 has no spatial axes: a mean over axis 1 of [N, C] is not pooling.
// CHECK-LABEL: func.func @negative_rank2
// CHECK-NEXT:    %[[M:.*]] = tgr.reduce_mean %{{.*}} {axes = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @negative_rank2(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %0 = tgr.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  func.return %0 : tensor<2x1xf32>
}

// -----

// int8: the pool takes the mean's output parameters, so nothing requantizes twice.
// CHECK-LABEL: func.func @quantized_keeps_output_params
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %x {{.*}}-> tensor<1x2x1x1x!tgr.quant<i8, 0.02:5>>
// CHECK-NEXT:    func.return %[[G]]
func.func @quantized_keeps_output_params(%x: tensor<1x2x4x4x!tgr.quant<i8, 0.1:-3>>) -> tensor<1x2x1x1x!tgr.quant<i8, 0.02:5>> {
  %m = tgr.reduce_mean %x {axes = array<i64: 2, 3>} : (tensor<1x2x4x4x!tgr.quant<i8, 0.1:-3>>) -> tensor<1x2x1x1x!tgr.quant<i8, 0.02:5>>
  func.return %m : tensor<1x2x1x1x!tgr.quant<i8, 0.02:5>>
}

// -----

// An average pool whose unpadded window is the whole map (Keras AveragePooling2D heads) is the
// same mean: it becomes global average pooling, strides and ceil_mode notwithstanding (one
// output position either way), the result type (and so an int8 scale) kept.
// CHECK-LABEL: func.func @avg_pool_whole_map
// CHECK-SAME:      (%[[X:.*]]: tensor<1x8x5x7xf32>, %[[Q:.*]]: tensor<1x4x3x3x!tgr.quant<i8, 0.5:-3>>)
// CHECK-NEXT:    %[[G:.*]] = tgr.global_avg_pool %[[X]] {tgr.name = "head"} : (tensor<1x8x5x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %[[GQ:.*]] = tgr.global_avg_pool %[[Q]] : (tensor<1x4x3x3x!tgr.quant<i8, 0.5:-3>>) -> tensor<1x4x1x1x!tgr.quant<i8, 0.25:1>>
// CHECK-NEXT:    func.return %[[G]], %[[GQ]]
// CHECK-NOT:     tgr.avg_pool
func.func @avg_pool_whole_map(%x: tensor<1x8x5x7xf32>, %q: tensor<1x4x3x3x!tgr.quant<i8, 0.5:-3>>) -> (tensor<1x8x1x1xf32>, tensor<1x4x1x1x!tgr.quant<i8, 0.25:1>>) {
  %0 = tgr.avg_pool %x {kernel_shape = array<i64: 5, 7>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64, tgr.name = "head"} : (tensor<1x8x5x7xf32>) -> tensor<1x8x1x1xf32>
  %1 = tgr.avg_pool %q {kernel_shape = array<i64: 3, 3>} : (tensor<1x4x3x3x!tgr.quant<i8, 0.5:-3>>) -> tensor<1x4x1x1x!tgr.quant<i8, 0.25:1>>
  func.return %0, %1 : tensor<1x8x1x1xf32>, tensor<1x4x1x1x!tgr.quant<i8, 0.25:1>>
}

// -----

// Look-alikes left alone: a padded window the size of the map (its mean counts or skips the
// padding), and a window smaller than the map (several outputs).
// CHECK-LABEL: func.func @negative_avg_pool_not_whole_map
// CHECK-NEXT:    %[[P:.*]] = tgr.avg_pool %{{.*}} {kernel_shape = array<i64: 4, 4>, pads = array<i64: 1, 1, 0, 0>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %[[S:.*]] = tgr.avg_pool %{{.*}} {kernel_shape = array<i64: 2, 2>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:    func.return %[[P]], %[[S]]
// CHECK-NOT:     tgr.global_avg_pool
func.func @negative_avg_pool_not_whole_map(%x: tensor<1x8x3x3xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x2x2xf32>) {
  %0 = tgr.avg_pool %x {kernel_shape = array<i64: 4, 4>, pads = array<i64: 1, 1, 0, 0>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x1x1xf32>
  %1 = tgr.avg_pool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x2x2xf32>
  func.return %0, %1 : tensor<1x8x1x1xf32>, tensor<1x8x2x2xf32>
}
