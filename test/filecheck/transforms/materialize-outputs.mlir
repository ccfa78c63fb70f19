// RUN: tigris-opt %s --split-input-file -p materialize-outputs | filecheck %s

// materialize-outputs: an output no op writes (a model input, a weight, a value returned
// again) gets a copy, a tgr.reshape to its own type, named after the output.

// CHECK-LABEL: func.func @input_weight_and_repeat
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x2xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight dense<[1, 2]> : tensor<2xi64>
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:    %[[CX:.*]] = tgr.reshape %[[X]] {tgr.name = "x_out.copy"} : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:    %[[CW:.*]] = tgr.reshape %[[W]] {tgr.name = "shape.copy"} : (tensor<2xi64>) -> tensor<2xi64>
// CHECK-NEXT:    %[[CR:.*]] = tgr.reshape %[[R]] {tgr.name = "again.copy"} : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:    func.return %[[CX]], %[[CW]], %[[R]], %[[CR]]
func.func @input_weight_and_repeat(%x: tensor<1x2x2xf32>) -> (tensor<1x2x2xf32> {tgr.name = "x_out"}, tensor<2xi64> {tgr.name = "shape"}, tensor<1x2x2xf32> {tgr.name = "y"}, tensor<1x2x2xf32> {tgr.name = "again"}) {
  %w = tgr.weight dense<[1, 2]> : tensor<2xi64>
  %r = tgr.relu %x : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  func.return %x, %w, %r, %r : tensor<1x2x2xf32>, tensor<2xi64>, tensor<1x2x2xf32>, tensor<1x2x2xf32>
}

// -----

// Every output is some op's own result: nothing to copy.
// CHECK-LABEL: func.func @negative_computed_outputs
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %x
// CHECK-NEXT:    %[[S:.*]] = tgr.sigmoid %x
// CHECK-NEXT:    func.return %[[R]], %[[S]]
// CHECK-NOT:     tgr.reshape
func.func @negative_computed_outputs(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = tgr.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = tgr.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r, %s : tensor<4xf32>, tensor<4xf32>
}
