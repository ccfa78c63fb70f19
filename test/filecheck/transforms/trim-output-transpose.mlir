// RUN: tigris-opt %s --split-input-file -p trim-output-transpose | filecheck %s

// trim-output-transpose: a tgr.transpose whose only use is a function result is
// dropped; its permutation goes on that result as `tgr.output_perm` (the host applies
// it to get the ONNX layout back) and the result type becomes the untransposed one.

// CHECK-LABEL: func.func @single
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32> {tgr.output_perm = array<i64: 0, 2, 3, 1>})
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x3x4x5xf32>
// CHECK-NOT:     tgr.transpose
func.func @single(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32> {
  %0 = tgr.relu %x : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %1 = tgr.transpose %0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  func.return %1 : tensor<1x4x5x3xf32>
}

// -----

// Two outputs, only the second transposed: only it gets the attribute.
// CHECK-LABEL: func.func @two_outputs
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32> {tgr.output_perm = array<i64: 0, 2, 3, 1>})
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %[[X]] : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    func.return %[[R]], %[[S]] : tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>
// CHECK-NOT:     tgr.transpose
func.func @two_outputs(%x: tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32>, tensor<1x4x5x3xf32>) {
  %0 = tgr.relu %x : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %1 = tgr.sigmoid %x : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %2 = tgr.transpose %1 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  func.return %0, %2 : tensor<1x3x4x5xf32>, tensor<1x4x5x3xf32>
}

// -----

// Two consecutive transposes compose: y = x.transpose(p1).transpose(p2) = x.transpose(p),
// p[i] = p1[p2[i]]. p1 = [0, 2, 3, 1], p2 = [1, 0, 2, 3] -> p = [p1[1], p1[0], p1[2], p1[3]]
// = [2, 0, 3, 1]. Check: [1, 3, 4, 5] permuted by [2, 0, 3, 1] is [4, 1, 5, 3], the old result type.
// CHECK-LABEL: func.func @composed
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32> {tgr.output_perm = array<i64: 2, 0, 3, 1>})
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]]
// CHECK-NEXT:    func.return %[[R]] : tensor<1x3x4x5xf32>
// CHECK-NOT:     tgr.transpose
func.func @composed(%x: tensor<1x3x4x5xf32>) -> tensor<4x1x5x3xf32> {
  %0 = tgr.relu %x : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %1 = tgr.transpose %0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %2 = tgr.transpose %1 {perm = array<i64: 1, 0, 2, 3>} : (tensor<1x4x5x3xf32>) -> tensor<4x1x5x3xf32>
  func.return %2 : tensor<4x1x5x3xf32>
}

// -----

// Three transposes, rank 3: p1 = [1, 2, 0], p2 = [0, 2, 1], p3 = [2, 1, 0].
// p1 then p2: q[i] = p1[p2[i]] = [1, 0, 2]; then p3: p[i] = q[p3[i]] = [2, 0, 1].
// Check: [2, 3, 4] permuted by [2, 0, 1] is [4, 2, 3], the old result type.
// CHECK-LABEL: func.func @composed_three
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32> {tgr.output_perm = array<i64: 2, 0, 1>})
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3x4xf32>
func.func @composed_three(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tgr.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = tgr.transpose %0 {perm = array<i64: 0, 2, 1>} : (tensor<3x4x2xf32>) -> tensor<3x2x4xf32>
  %2 = tgr.transpose %1 {perm = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  func.return %2 : tensor<4x2x3xf32>
}

// -----

// The transpose is also used by another op (the add), so it must stay; nothing is recorded.
// CHECK-LABEL: func.func @negative_second_user
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x4x5xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>)
// CHECK-NEXT:    %[[T:.*]] = tgr.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
// CHECK-NEXT:    %[[A:.*]] = tgr.add %[[T]], %[[T]]
// CHECK-NEXT:    func.return %[[T]], %[[A]] : tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>
// CHECK-NOT:     tgr.output_perm
func.func @negative_second_user(%x: tensor<1x3x4x5xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>) {
  %0 = tgr.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %1 = tgr.add %0, %0 : (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  func.return %0, %1 : tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>
}

// -----

// The same transpose returned twice has two uses: it stays.
// CHECK-LABEL: func.func @negative_returned_twice
// CHECK-SAME:      -> (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>)
// CHECK-NEXT:    %[[T:.*]] = tgr.transpose
// CHECK-NEXT:    func.return %[[T]], %[[T]] :
// CHECK-NOT:     tgr.output_perm
func.func @negative_returned_twice(%x: tensor<1x3x4x5xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>) {
  %0 = tgr.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  func.return %0, %0 : tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>
}

// -----

// A transpose inside the graph (its result feeds a relu, not the return) stays.
// CHECK-LABEL: func.func @negative_not_at_output
// CHECK-SAME:      -> tensor<1x4x5x3xf32>
// CHECK-NEXT:    %[[T:.*]] = tgr.transpose
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[T]]
// CHECK-NEXT:    func.return %[[R]] :
// CHECK-NOT:     tgr.output_perm
func.func @negative_not_at_output(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32> {
  %0 = tgr.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %1 = tgr.relu %0 : (tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  func.return %1 : tensor<1x4x5x3xf32>
}

// -----

// A function declaration has no body: it is skipped, the definition is trimmed.
// CHECK-LABEL: func.func private @ext
// CHECK-LABEL: func.func @with_declaration
// CHECK-NOT:     tgr.transpose
func.func private @ext(tensor<2xf32>) -> tensor<2xf32>
func.func @with_declaration(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = tgr.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}
