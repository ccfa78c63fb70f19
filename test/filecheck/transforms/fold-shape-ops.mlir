// RUN: tigris-opt %s --split-input-file -p fold-shape-ops | filecheck %s

// fold-shape-ops: onnx.Reshape -> tgr.reshape with the (statically inferred) result
// type; the shape computation feeding it is left dead and erased.

// PyTorch's `x.view(x.size(0), -1)`: Shape -> Gather(0) -> Unsqueeze -> Concat(.., [-1]).
// CHECK-LABEL: func.func @pytorch_view
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[X]] {tgr.name = "view"} : (tensor<2x3x4x4xf32>) -> tensor<2x48xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     onnx.Shape
// CHECK-NOT:     onnx.Gather
// CHECK-NOT:     onnx.Unsqueeze
// CHECK-NOT:     onnx.Concat
// CHECK-NOT:     onnx.Constant
// CHECK-NOT:     onnx.Reshape
func.func @pytorch_view(%x: tensor<2x3x4x4xf32>) -> tensor<2x48xf32> {
  %s = onnx.Shape %x : (tensor<2x3x4x4xf32>) -> tensor<4xi64>
  %i = onnx.Constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %g = onnx.Gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %ax = onnx.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %u = onnx.Unsqueeze %g, %ax : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = onnx.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c = onnx.Concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = onnx.Reshape %x, %c {tgr.name = "view"} : (tensor<2x3x4x4xf32>, tensor<2xi64>) -> tensor<2x48xf32>
  func.return %r : tensor<2x48xf32>
}

// -----

// A constant target shape (a tgr.weight, as after fold-constants) folds the same way.
// CHECK-LABEL: func.func @constant_shape
// CHECK-SAME:      (%[[X:.*]]: tensor<1x64xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[X]] : (tensor<1x64xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     tgr.weight
func.func @constant_shape(%x: tensor<1x64xf32>) -> tensor<1x4x4x4xf32> {
  %shape = tgr.weight dense<[1, 4, 4, -1]> : tensor<4xi64>
  %r = onnx.Reshape %x, %shape : (tensor<1x64xf32>, tensor<4xi64>) -> tensor<1x4x4x4xf32>
  func.return %r : tensor<1x4x4x4xf32>
}

// -----

// The computed shape is also a model output, so the chain is still live and stays;
// only the Reshape itself becomes tgr.reshape.
// CHECK-LABEL: func.func @negative_chain_returned
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x4xf32>)
// CHECK-NEXT:    %[[S:.*]] = onnx.Shape %[[X]] : (tensor<2x3x4x4xf32>) -> tensor<4xi64>
// CHECK-NEXT:    %[[I:.*]] = onnx.Constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
// CHECK-NEXT:    %[[G:.*]] = onnx.Gather %[[S]], %[[I]] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
// CHECK-NEXT:    %[[AX:.*]] = onnx.Constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
// CHECK-NEXT:    %[[U:.*]] = onnx.Unsqueeze %[[G]], %[[AX]] : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
// CHECK-NEXT:    %[[M:.*]] = onnx.Constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
// CHECK-NEXT:    %[[C:.*]] = onnx.Concat %[[U]], %[[M]] {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[X]] : (tensor<2x3x4x4xf32>) -> tensor<2x48xf32>
// CHECK-NEXT:    func.return %[[R]], %[[C]] :
// CHECK-NOT:     onnx.Reshape
func.func @negative_chain_returned(%x: tensor<2x3x4x4xf32>) -> (tensor<2x48xf32>, tensor<2xi64>) {
  %s = onnx.Shape %x : (tensor<2x3x4x4xf32>) -> tensor<4xi64>
  %i = onnx.Constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %g = onnx.Gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %ax = onnx.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %u = onnx.Unsqueeze %g, %ax : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = onnx.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %c = onnx.Concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = onnx.Reshape %x, %c : (tensor<2x3x4x4xf32>, tensor<2xi64>) -> tensor<2x48xf32>
  func.return %r, %c : tensor<2x48xf32>, tensor<2xi64>
}

// -----

// Not a Reshape: Flatten and a shape chain feeding nothing but an output are untouched.
// CHECK-LABEL: func.func @negative_no_reshape
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x4xf32>)
// CHECK-NEXT:    %[[F:.*]] = onnx.Flatten %[[X]] : (tensor<2x3x4x4xf32>) -> tensor<2x48xf32>
// CHECK-NEXT:    %[[S:.*]] = onnx.Shape %[[X]] : (tensor<2x3x4x4xf32>) -> tensor<4xi64>
// CHECK-NEXT:    func.return %[[F]], %[[S]] :
// CHECK-NOT:     tgr.reshape
func.func @negative_no_reshape(%x: tensor<2x3x4x4xf32>) -> (tensor<2x48xf32>, tensor<4xi64>) {
  %f = onnx.Flatten %x : (tensor<2x3x4x4xf32>) -> tensor<2x48xf32>
  %s = onnx.Shape %x : (tensor<2x3x4x4xf32>) -> tensor<4xi64>
  func.return %f, %s : tensor<2x48xf32>, tensor<4xi64>
}
