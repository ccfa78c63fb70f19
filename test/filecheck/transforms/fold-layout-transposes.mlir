// RUN: tigris-opt %s --split-input-file -p fold-layout-transposes | filecheck %s

// fold-layout-transposes: the layout transposes of a channels-last (tf2onnx) model vanish
// into the model inputs and outputs, or cancel in pairs across layout-agnostic ops; a
// transpose that really moves data stays. Convention for the recorded permutations: the
// user's tensor is the IR value transposed by them.

// The tf2onnx input: NHWC [1, 4, 5, 3] -> Transpose(0, 3, 1, 2) -> NCHW [1, 3, 4, 5]. The
// argument becomes the NCHW value; the user's NHWC tensor is it transposed by the inverse,
// [0, 2, 3, 1] (axis 1 <- 2 (H), 2 <- 3 (W), 3 <- 1 (C)): the channels-last order.
// CHECK-LABEL: func.func @input_folded
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32> {tgr.input_perm = array<i64: 0, 2, 3, 1>}) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     tgr.transpose
func.func @input_folded(%x: tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32> {
  %t = tgr.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32>
  %r = tgr.relu %t : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  func.return %r : tensor<1x3x4x5xf32>
}

// -----

// The input quantized before its transpose (onnxruntime's quantizer wraps the Transpose in
// QDQ): the transpose moves up through the QuantizeLinear/DequantizeLinear pair, whose
// types take the NCHW shape, to the argument.
// CHECK-LABEL: func.func @input_folded_through_qdq
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32> {tgr.input_perm = array<i64: 0, 2, 3, 1>}, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<i8>)
// CHECK-NEXT:    %[[Q:.*]] = onnx.QuantizeLinear %[[X]], %[[S]], %[[Z]] : (tensor<1x3x4x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x5xi8>
// CHECK-NEXT:    %[[D:.*]] = onnx.DequantizeLinear %[[Q]], %[[S]], %[[Z]] : (tensor<1x3x4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[D]]
// CHECK-NOT:     tgr.transpose
func.func @input_folded_through_qdq(%x: tensor<1x4x5x3xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<1x3x4x5xf32> {
  %q = onnx.QuantizeLinear %x, %s, %z : (tensor<1x4x5x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x3xi8>
  %d = onnx.DequantizeLinear %q, %s, %z : (tensor<1x4x5x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x3xf32>
  %t = tgr.transpose %d {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32>
  %r = tgr.relu %t : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  func.return %r : tensor<1x3x4x5xf32>
}

// -----

// An output transposed back to NHWC, through a pointwise op: the transpose moves down past
// the sigmoid to the result, which records it (as trim-output-transpose does).
// CHECK-LABEL: func.func @output_folded
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32> {tgr.output_perm = array<i64: 0, 2, 3, 1>})
// CHECK-NEXT:    tgr.weight
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]]
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %[[C]] : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x3x4x5xf32>
// CHECK-NOT:     tgr.transpose
func.func @output_folded(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32> {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %s = tgr.sigmoid %t : (tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  func.return %s : tensor<1x4x5x3xf32>
}

// -----

// ZeroPadding2D as tf2onnx writes it: to NHWC, Pad (NHWC pads: H by 0/1, W by 0/1), back to
// NCHW. The pair cancels and the pad takes NCHW pads: begins [N 0, C 0, H 0, W 0],
// ends [N 0, C 0, H 1, W 1]. A scalar add (one element: its broadcast has no layout) and a
// per-tensor QDQ pair on the way are crossed too.
// CHECK-LABEL: func.func @pair_cancelled
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>, %[[K:.*]]: tensor<1xf32>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<i8>)
// CHECK-NEXT:    tgr.weight
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]]
// CHECK-NEXT:    %[[A:.*]] = tgr.add %[[C]], %[[K]] : (tensor<1x3x4x5xf32>, tensor<1xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[Q:.*]] = onnx.QuantizeLinear %[[A]], %[[S]], %[[Z]] : (tensor<1x3x4x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x5xi8>
// CHECK-NEXT:    %[[D:.*]] = onnx.DequantizeLinear %[[Q]], %[[S]], %[[Z]] : (tensor<1x3x4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[P:.*]] = tgr.pad %[[D]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x5x6xf32>
// CHECK-NEXT:    %[[C2:.*]] = tgr.conv %[[P]]
// CHECK-NEXT:    func.return %[[C2]]
// CHECK-NOT:     tgr.transpose
func.func @pair_cancelled(%x: tensor<1x3x4x5xf32>, %k: tensor<1xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<1x3x5x6xf32> {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %a = tgr.add %t, %k : (tensor<1x4x5x3xf32>, tensor<1xf32>) -> tensor<1x4x5x3xf32>
  %q = onnx.QuantizeLinear %a, %s, %z : (tensor<1x4x5x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x3xi8>
  %d = onnx.DequantizeLinear %q, %s, %z : (tensor<1x4x5x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x5x3xf32>
  %p = tgr.pad %d {pads = array<i64: 0, 0, 0, 0, 0, 1, 1, 0>} : (tensor<1x4x5x3xf32>) -> tensor<1x5x6x3xf32>
  %b = tgr.transpose %p {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x6x3xf32>) -> tensor<1x3x5x6xf32>
  %c2 = tgr.conv %b, %w : (tensor<1x3x5x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x5x6xf32>
  func.return %c2 : tensor<1x3x5x6xf32>
}

// -----

// GlobalAveragePooling2D(keepdims=True): mean over NHWC axes 1, 2 (H, W), i.e. NCHW axes
// 2, 3, between a cancelling pair.
// CHECK-LABEL: func.func @pair_cancelled_around_mean
// CHECK:         %[[C:.*]] = tgr.conv
// CHECK-NEXT:    %[[M:.*]] = tgr.reduce_mean %[[C]] {axes = array<i64: 2, 3>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    %[[C2:.*]] = tgr.conv %[[M]]
// CHECK-NOT:     tgr.transpose
func.func @pair_cancelled_around_mean(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x1x1xf32> {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %m = tgr.reduce_mean %t {axes = array<i64: 1, 2>} : (tensor<1x4x5x3xf32>) -> tensor<1x1x1x3xf32>
  %b = tgr.transpose %m {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x3xf32>) -> tensor<1x3x1x1xf32>
  %c2 = tgr.conv %b, %w : (tensor<1x3x1x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  func.return %c2 : tensor<1x3x1x1xf32>
}

// -----

// GlobalAveragePooling2D() (keepdims = 0): the kept axes N, C stay in order, so the mean
// over NCHW axes 2, 3 absorbs the transpose; Flatten of a 1x1 map after NHWC -> the
// transpose moves only axes of size 1, the reshape reads the same elements untransposed.
// CHECK-LABEL: func.func @absorbed
// CHECK:         %[[M:.*]] = tgr.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x3x4x5xf32>) -> tensor<1x3xf32>
// CHECK:         %[[G:.*]] = tgr.global_avg_pool
// CHECK-NEXT:    %[[F:.*]] = tgr.reshape %[[G]] : (tensor<1x3x1x1xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    func.return %[[M]], %[[F]]
// CHECK-NOT:     tgr.transpose
func.func @absorbed(%x: tensor<1x3x4x5xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %m = tgr.reduce_mean %t {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x4x5x3xf32>) -> tensor<1x3xf32>
  %g = tgr.global_avg_pool %c : (tensor<1x3x4x5xf32>) -> tensor<1x3x1x1xf32>
  %u = tgr.transpose %g {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x1x1xf32>) -> tensor<1x1x1x3xf32>
  %f = tgr.flatten %u : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
  func.return %m, %f : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// The other reductions move a transpose the same way: a max over NHWC axis 3 (C) is a max
// over NCHW axis 1, and the kept axes N, H, W stay in order.
// CHECK-LABEL: func.func @absorbed_by_reduce_max
// CHECK:         %[[M:.*]] = tgr.reduce_max %{{.*}} {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5xf32>
// CHECK-NEXT:    func.return %[[M]]
// CHECK-NOT:     tgr.transpose
func.func @absorbed_by_reduce_max(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x5xf32> {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %m = tgr.reduce_max %t {axes = array<i64: 3>, keepdims = 0 : i64} : (tensor<1x4x5x3xf32>) -> tensor<1x4x5xf32>
  func.return %m : tensor<1x4x5xf32>
}

// -----

// Two transposes that do not cancel compose into one: [0, 2, 3, 1] then [0, 2, 1, 3] is
// [0, 3, 2, 1] (p[i] = first[then[i]]: first[0], first[2], first[1], first[3]). Check:
// [1, 3, 4, 5] by [0, 3, 2, 1] is [1, 5, 4, 3], the old result type. It stays (it really moves data).
// CHECK-LABEL: func.func @pair_composed
// CHECK:         %[[C:.*]] = tgr.conv
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[C]] : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[T:.*]] = tgr.transpose %[[R]] {perm = array<i64: 0, 3, 2, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x5x4x3xf32>
// CHECK-NEXT:    %[[S:.*]] = tgr.softmax %[[T]]
func.func @pair_composed(%x: tensor<1x3x4x5xf32>) -> tensor<1x5x4x3xf32> {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %r = tgr.relu %t : (tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  %b = tgr.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x5x3xf32>) -> tensor<1x5x4x3xf32>
  %s = tgr.softmax %b : (tensor<1x5x4x3xf32>) -> tensor<1x5x4x3xf32>
  func.return %s : tensor<1x5x4x3xf32>
}

// -----

// Transposes that really move data stay: one feeding a softmax (its axis is the layout's
// last), one whose input also feeds a conv (an input read twice: no fold into it), and one
// used twice.
// CHECK-LABEL: func.func @negative_moves_data
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x3x4x5xf32>, tensor<1x4x5x3xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight
// CHECK-NEXT:    %[[T:.*]] = tgr.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[S:.*]] = tgr.softmax %[[T]]
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]]
// CHECK-NEXT:    %[[U:.*]] = tgr.transpose %[[C]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[A:.*]] = tgr.add %[[U]], %[[U]]
// CHECK-NEXT:    func.return %[[S]], %[[C]], %[[A]]
// CHECK-NOT:     tgr.input_perm
// CHECK-NOT:     tgr.output_perm
func.func @negative_moves_data(%x: tensor<1x3x4x5xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x3x4x5xf32>, tensor<1x4x5x3xf32>) {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %t = tgr.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %s = tgr.softmax %t : (tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %u = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %a = tgr.add %u, %u : (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  func.return %s, %c, %a : tensor<1x4x5x3xf32>, tensor<1x3x4x5xf32>, tensor<1x4x5x3xf32>
}

// -----

// A flatten after a transpose that moves a dimension > 1 reads another element order: the
// transpose stays. So does the one before a mean whose kept axes change order (the NHWC mean
// over H keeps [N, W, C]; over NCHW that is [N, C, W]: a transpose is still needed) when
// the softmax after it cares about the order.
// CHECK-LABEL: func.func @negative_order_matters
// CHECK:         tgr.transpose
// CHECK-NEXT:    tgr.flatten
// CHECK:         tgr.transpose
// CHECK-NEXT:    tgr.reduce_mean %{{.*}} {axes = array<i64: 1>, keepdims = 0 : i64}
// CHECK-NEXT:    tgr.softmax
func.func @negative_order_matters(%x: tensor<1x3x4x5xf32>, %y: tensor<1x3x4x5xf32>) -> (tensor<1x60xf32>, tensor<1x5x3xf32>) {
  %w = tgr.weight dense<0.5> : tensor<3x3x1x1xf32>
  %c = tgr.conv %x, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %t = tgr.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %f = tgr.flatten %t : (tensor<1x4x5x3xf32>) -> tensor<1x60xf32>
  %d = tgr.conv %y, %w : (tensor<1x3x4x5xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x5xf32>
  %u = tgr.transpose %d {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %m = tgr.reduce_mean %u {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<1x4x5x3xf32>) -> tensor<1x5x3xf32>
  %s = tgr.softmax %m : (tensor<1x5x3xf32>) -> tensor<1x5x3xf32>
  func.return %f, %s : tensor<1x60xf32>, tensor<1x5x3xf32>
}

// -----

// The whole tf2onnx path: the input transpose goes into the input first (the argument takes
// the NCHW layout the model computes in), then the ZeroPadding2D pair cancels. Had the input
// transpose cancelled with the pair's first transpose instead, the model would compute in
// NHWC shapes and hand its output back through a transpose: the input takes one transpose,
// and a composed permutation that is the identity is not recorded.
// CHECK-LABEL: func.func @input_then_pair
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x4xf32> {tgr.input_perm = array<i64: 0, 2, 3, 1>}) -> tensor<1x3x5x5xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[P:.*]] = tgr.pad %[[R]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x5x5xf32>
// CHECK-NEXT:    func.return %[[P]]
func.func @input_then_pair(%x: tensor<1x4x4x3xf32>) -> tensor<1x3x5x5xf32> {
  %t = tgr.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
  %r = tgr.relu %t : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %n = tgr.transpose %r {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  %p = tgr.pad %n {pads = array<i64: 0, 0, 0, 0, 0, 1, 1, 0>} : (tensor<1x4x4x3xf32>) -> tensor<1x5x5x3xf32>
  %b = tgr.transpose %p {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x3xf32>) -> tensor<1x3x5x5xf32>
  func.return %b : tensor<1x3x5x5xf32>
}

// -----

// A returned transpose of an input folds into the output, not the input: one tensor cannot
// be given in one layout and handed back in another.
// CHECK-LABEL: func.func @negative_input_returned
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x5x3xf32>) -> (tensor<1x4x5x3xf32> {tgr.output_perm = array<i64: 0, 3, 1, 2>})
// CHECK-NEXT:    func.return %[[X]]
// CHECK-NOT:     tgr.input_perm
func.func @negative_input_returned(%x: tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32> {
  %t = tgr.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32>
  func.return %t : tensor<1x3x4x5xf32>
}

// -----

// A per-axis quantized activation (channel scales along axis 3 of the transposed value): its
// type's axis would need remapping too, which the pass does not do: the transpose stays.
// CHECK-LABEL: func.func @negative_per_axis_type
// CHECK:         tgr.transpose
// CHECK-NEXT:    tgr.relu
func.func @negative_per_axis_type(%x: tensor<1x2x3x3x!tgr.quant<i8:1, {0.5:0, 0.25:0}>>) -> tensor<1x3x3x2x!tgr.quant<i8:3, {0.5:0, 0.25:0}>> {
  %t = tgr.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x3x!tgr.quant<i8:1, {0.5:0, 0.25:0}>>) -> tensor<1x3x3x2x!tgr.quant<i8:3, {0.5:0, 0.25:0}>>
  %r = tgr.relu %t : (tensor<1x3x3x2x!tgr.quant<i8:3, {0.5:0, 0.25:0}>>) -> tensor<1x3x3x2x!tgr.quant<i8:3, {0.5:0, 0.25:0}>>
  func.return %r : tensor<1x3x3x2x!tgr.quant<i8:3, {0.5:0, 0.25:0}>>
}
