// RUN: tigris-opt %s --split-input-file -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr: the table rows, then the ops whose ONNX form needs
// resolving (auto_pad, Gemm/MatMul weights, bounds/axes/pads given as inputs).
// Rejected inputs are in convert-onnx-to-tgr-invalid.mlir.

// CHECK-LABEL: func.func @table_unary
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x2x2xf32>)
// The ONNX node name travels with the op.
// CHECK-NEXT:    %[[R0:.*]] = tgr.relu %[[X]] {tgr.name = "relu1"} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[R1:.*]] = tgr.sigmoid %[[X]] : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[R2:.*]] = tgr.tanh %[[X]] : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[R3:.*]] = tgr.hard_swish %[[X]] : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[R4:.*]] = tgr.leaky_relu %[[X]] {alpha = 2.500000e-01 : f32} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// ONNX's default alpha 0.01 is tgr's default too, so nothing is printed.
// CHECK-NEXT:    %[[R5:.*]] = tgr.leaky_relu %[[X]] : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] :
// CHECK-NOT:     onnx.
func.func @table_unary(%x: tensor<1x4x2x2xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) {
  %0 = onnx.Relu %x {tgr.name = "relu1"} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %1 = onnx.Sigmoid %x : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %2 = onnx.Tanh %x : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %3 = onnx.HardSwish %x : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %4 = onnx.LeakyRelu %x {alpha = 2.500000e-01 : f32} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %5 = onnx.LeakyRelu %x : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
}

// -----

// Operand order is kept (Mul's broadcast operand stays first).
// CHECK-LABEL: func.func @table_binary
// CHECK-SAME:      (%[[A:.*]]: tensor<1x4x2x2xf32>, %[[B:.*]]: tensor<4x1x1xf32>)
// CHECK-NEXT:    %[[S0:.*]] = tgr.add %[[A]], %[[B]] : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[S1:.*]] = tgr.sub %[[A]], %[[B]] : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[S2:.*]] = tgr.mul %[[B]], %[[A]] : (tensor<4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[S3:.*]] = tgr.div %[[A]], %[[B]] : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    func.return %[[S0]], %[[S1]], %[[S2]], %[[S3]] :
func.func @table_binary(%a: tensor<1x4x2x2xf32>, %b: tensor<4x1x1xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) {
  %0 = onnx.Add %a, %b : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %1 = onnx.Sub %a, %b : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %2 = onnx.Mul %b, %a : (tensor<4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %3 = onnx.Div %a, %b : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
  func.return %0, %1, %2, %3 : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
}

// -----

// The axis is carried over; ONNX's default -1 (opset 13) is tgr's default.
// CHECK-LABEL: func.func @table_softmax
// CHECK-NEXT:    %[[S0:.*]] = tgr.softmax %{{.*}} {axis = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[S1:.*]] = tgr.softmax %{{.*}} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    func.return %[[S0]], %[[S1]] :
func.func @table_softmax(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = onnx.Softmax %x {axis = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = onnx.Softmax %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @table_global_pools
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x3x5xf32>)
// CHECK-NEXT:    %[[G0:.*]] = tgr.global_avg_pool %[[X]] : (tensor<1x4x3x5xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    %[[G1:.*]] = tgr.global_max_pool %[[X]] : (tensor<1x4x3x5xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    func.return %[[G0]], %[[G1]] :
func.func @table_global_pools(%x: tensor<1x4x3x5xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) {
  %0 = onnx.GlobalAveragePool %x : (tensor<1x4x3x5xf32>) -> tensor<1x4x1x1xf32>
  %1 = onnx.GlobalMaxPool %x : (tensor<1x4x3x5xf32>) -> tensor<1x4x1x1xf32>
  func.return %0, %1 : tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @table_instance_norm
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x3x3xf32>, %[[S:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[N:.*]] = tgr.instance_norm %[[X]], %[[S]], %[[B]] {epsilon = 1.000000e-03 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[N]] :
func.func @table_instance_norm(%x: tensor<1x2x3x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = onnx.InstanceNormalization %x, %s, %b {epsilon = 1.000000e-03 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  func.return %0 : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @table_flatten_concat
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>, %[[Y:.*]]: tensor<2x1x4x5xf32>)
// CHECK-NEXT:    %[[F:.*]] = tgr.flatten %[[X]] {axis = 2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.concat %[[X]], %[[Y]] {axis = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<2x1x4x5xf32>) -> tensor<2x4x4x5xf32>
// CHECK-NEXT:    func.return %[[F]], %[[C]] :
func.func @table_flatten_concat(%x: tensor<2x3x4x5xf32>, %y: tensor<2x1x4x5xf32>) -> (tensor<6x20xf32>, tensor<2x4x4x5xf32>) {
  %0 = onnx.Flatten %x {axis = 2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  %1 = onnx.Concat %x, %y {axis = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<2x1x4x5xf32>) -> tensor<2x4x4x5xf32>
  func.return %0, %1 : tensor<6x20xf32>, tensor<2x4x4x5xf32>
}

// -----

// SAME_UPPER, 8 rows, kernel 3, stride 2: out = ceil(8 / 2) = 4,
// total pad = (4 - 1) * 2 + 3 - 8 = 1 -> begin 0, end 1 (odd pixel at the end).
// pads are [h_begin, w_begin, h_end, w_end].
// CHECK-LABEL: func.func @conv_same_upper
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x8x8xf32>, %[[W:.*]]: tensor<3x2x3x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]] {pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %[[C]]
// CHECK-NOT:     auto_pad
func.func @conv_same_upper(%x: tensor<1x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %0 = onnx.Conv %x, %w {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  func.return %0 : tensor<1x3x4x4xf32>
}

// -----

// SAME_LOWER, stride 1, 7x8 input, 4x3 kernel:
// H: total = 6 + 4 - 7 = 3 -> begin 2, end 1 (odd pixel at the start); W: total = 7 + 3 - 8 = 2 -> 1, 1.
// CHECK-LABEL: func.func @conv_same_lower
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {pads = array<i64: 2, 1, 1, 1>} : (tensor<1x2x7x8xf32>, tensor<3x2x4x3xf32>) -> tensor<1x3x7x8xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @conv_same_lower(%x: tensor<1x2x7x8xf32>, %w: tensor<3x2x4x3xf32>) -> tensor<1x3x7x8xf32> {
  %0 = onnx.Conv %x, %w {auto_pad = "SAME_LOWER"} : (tensor<1x2x7x8xf32>, tensor<3x2x4x3xf32>) -> tensor<1x3x7x8xf32>
  func.return %0 : tensor<1x3x7x8xf32>
}

// -----

// SAME_UPPER with dilations [2, 1], 8x8, kernel 3, stride 1:
// H: effective kernel 5, total = 7 + 5 - 8 = 4 -> 2, 2; W: total = 7 + 3 - 8 = 2 -> 1, 1.
// CHECK-LABEL: func.func @conv_same_upper_dilated
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {pads = array<i64: 2, 1, 2, 1>, dilations = array<i64: 2, 1>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32>
func.func @conv_same_upper_dilated(%x: tensor<1x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32> {
  %0 = onnx.Conv %x, %w {auto_pad = "SAME_UPPER", dilations = array<i64: 2, 1>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32>
  func.return %0 : tensor<1x3x8x8xf32>
}

// -----

// VALID: no padding, (8 - 3) + 1 = 6.
// CHECK-LABEL: func.func @conv_valid
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %{{.*}}, %{{.*}} {pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
func.func @conv_valid(%x: tensor<1x2x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  %0 = onnx.Conv %x, %w {auto_pad = "VALID"} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  func.return %0 : tensor<1x3x6x6xf32>
}

// -----

// NOTSET keeps explicit pads; group and the optional bias are kept; kernel_shape
// (redundant with the weight) is dropped.
// CHECK-LABEL: func.func @conv_group_bias
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgr.conv %[[X]], %[[W]], %[[B]] {pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, tgr.name = "conv1"} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @conv_group_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x8x8xf32> {
  %0 = onnx.Conv %x, %w, %b {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, tgr.name = "conv1"} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  func.return %0 : tensor<1x6x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @pools
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[Y:.*]]: tensor<1x4x7x7xf32>)
// ceil_mode 1: ceil((8 - 3) / 2) + 1 = 4; floor gives 3.
// CHECK-NEXT:    %[[P0:.*]] = tgr.max_pool %[[X]] {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, kernel_shape = array<i64: 3, 3>, ceil_mode = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[P1:.*]] = tgr.max_pool %[[X]] {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, kernel_shape = array<i64: 3, 3>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    %[[P2:.*]] = tgr.avg_pool %[[X]] {pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, count_include_pad = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// SAME_UPPER on a pool: 7 rows, kernel 2, stride 2: out 4, total = 3 * 2 + 2 - 7 = 1 -> 0, 1.
// CHECK-NEXT:    %[[P3:.*]] = tgr.avg_pool %[[Y]] {pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// MaxPool keeps its dilations: 8 - 2 * (2 - 1) - 1 + 1 = 6.
// CHECK-NEXT:    %[[P4:.*]] = tgr.max_pool %[[X]] {pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
// AveragePool with all-ones dilations is accepted and the property dropped.
// CHECK-NEXT:    %[[P5:.*]] = tgr.avg_pool %[[X]] {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P4]], %[[P5]] :
func.func @pools(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x7x7xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>) {
  %0 = onnx.MaxPool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %1 = onnx.MaxPool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  %2 = onnx.AveragePool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = onnx.AveragePool %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER"} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  %4 = onnx.MaxPool %x {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
  %5 = onnx.AveragePool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>
}

// -----

// Inference BatchNormalization: epsilon kept, momentum (training only) dropped.
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x4x4xf32>, %[[S:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>, %[[M:.*]]: tensor<2xf32>, %[[V:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[N:.*]] = tgr.batch_norm %[[X]], %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 1.000000e-03 : f32, tgr.name = "bn1"} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[N]]
func.func @batch_norm(%x: tensor<1x2x4x4xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = onnx.BatchNormalization %x, %s, %b, %m, %v {epsilon = 1.000000e-03 : f32, momentum = 0.5 : f32, tgr.name = "bn1"} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}

// -----

// Transpose without perm reverses the axes (ONNX default).
// CHECK-LABEL: func.func @transpose
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[T0:.*]] = tgr.transpose %[[X]] {perm = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT:    %[[T1:.*]] = tgr.transpose %[[X]] {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT:    func.return %[[T0]], %[[T1]] :
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<3x2x4xf32>) {
  %0 = onnx.Transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = onnx.Transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  func.return %0, %1 : tensor<4x3x2xf32>, tensor<3x2x4xf32>
}

// -----

// transB = 1: B is already [N, K], used as is; C of shape [N] with beta 1 is the bias.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>, %[[C:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight {tgr.name = "fc.weight"} dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00,
// CHECK-NEXT:    %[[Y:.*]] = tgr.fully_connected %[[A]], %[[W]], %[[C]] {tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     onnx.Gemm
func.func @gemm_trans_b(%a: tensor<2x4xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight {tgr.name = "fc.weight"} dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = onnx.Gemm %a, %w, %c {transB = 1 : i64, tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// transB = 0 with a constant [K, N] = [4, 3] weight: a transposed [3, 4] weight
// is created (B^T rows are B's columns) and the onnx.Constant is erased.
// CHECK-LABEL: func.func @gemm_no_trans_b
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    %[[WT:.*]] = tgr.weight {tgr.name = "fc.w.T"} dense<{{\[}}[1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.fully_connected %[[A]], %[[WT]] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     onnx.Constant
func.func @gemm_no_trans_b(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = onnx.Constant {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>, tgr.name = "fc.w"} : () -> tensor<4x3xf32>
  %0 = onnx.Gemm %a, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// A scalar constant C with beta 0.5: bias = 0.5 * 2.0 = 1.0, broadcast to [N] = [3].
// CHECK-LABEL: func.func @gemm_scalar_c
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight dense<
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "fc.bias"} dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.fully_connected %[[A]], %[[W]], %[[B]] {tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     onnx.Constant
func.func @gemm_scalar_c(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %c = onnx.Constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = onnx.Gemm %a, %w, %c {transB = 1 : i64, beta = 0.5 : f32, tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// A [1, N] constant C with beta 2: bias = 2 * [1, -2, 3] = [2, -4, 6].
// CHECK-LABEL: func.func @gemm_row_c
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    %[[W:.*]] = tgr.weight dense<
// CHECK-NEXT:    %[[B:.*]] = tgr.weight {tgr.name = "fc.bias"} dense<[2.000000e+00, -4.000000e+00, 6.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.fully_connected %[[A]], %[[W]], %[[B]] {tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     tensor<1x3xf32>
func.func @gemm_row_c(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tgr.weight dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %c = tgr.weight dense<[[1.0, -2.0, 3.0]]> : tensor<1x3xf32>
  %0 = onnx.Gemm %a, %w, %c {transB = 1 : i64, beta = 2.0 : f32, tgr.name = "fc"} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Gemm over DequantizeLinear(int8 [K, N] = [4, 3], per-channel on axis 1 = N), transB 0:
// the int8 tensor is transposed to [3, 4] and a new DQ is built on axis 0 (still N),
// reusing the scales; the old DQ and int8 tensor are erased.
// CHECK-LABEL: func.func @gemm_dq_weight
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>)
// CHECK-NEXT:    %[[S:.*]] = tgr.weight dense<[5.000000e-01, 2.500000e-01, 1.250000e-01]> : tensor<3xf32>
// CHECK-NEXT:    %[[QT:.*]] = tgr.weight {tgr.name = "weight.T"} dense<{{\[}}[1, 4, 7, 10], [2, 5, 8, 11], [3, 6, 9, 12]]> : tensor<3x4xi8>
// CHECK-NEXT:    %[[DQ:.*]] = onnx.DequantizeLinear %[[QT]], %[[S]] {axis = 0 : i64} : (tensor<3x4xi8>, tensor<3xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgr.fully_connected %[[A]], %[[DQ]] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     tensor<4x3xi8>
func.func @gemm_dq_weight(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %q = tgr.weight dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]> : tensor<4x3xi8>
  %s = tgr.weight dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %w = onnx.DequantizeLinear %q, %s {axis = 1 : i64} : (tensor<4x3xi8>, tensor<3xf32>) -> tensor<4x3xf32>
  %0 = onnx.Gemm %a, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// MatMul with a constant 2-D B [K, N] is fully_connected with B^T; two activations
// (any rank, or a non-constant 2-D B) are tgr.matmul.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:      (%[[A:.*]]: tensor<2x4xf32>, %[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<4x5xf32>)
// CHECK-NEXT:    %[[WT:.*]] = tgr.weight {tgr.name = "weight.T"} dense<{{\[}}[1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT:    %[[FC:.*]] = tgr.fully_connected %[[A]], %[[WT]] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[M0:.*]] = tgr.matmul %[[X]], %[[Y]] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    %[[M1:.*]] = tgr.matmul %[[A]], %[[Y]] : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    func.return %[[FC]], %[[M0]], %[[M1]] :
// CHECK-NOT:     tensor<4x3xf32>
func.func @matmul(%a: tensor<2x4xf32>, %x: tensor<2x3x4xf32>, %y: tensor<4x5xf32>) -> (tensor<2x3xf32>, tensor<2x3x5xf32>, tensor<2x5xf32>) {
  %w = tgr.weight dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %0 = onnx.MatMul %a, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = onnx.MatMul %x, %y : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %2 = onnx.MatMul %a, %y : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3x5xf32>, tensor<2x5xf32>
}

// -----

// Clip bounds: constant inputs (opset 11+, onnx.Constant or tgr.weight), a
// missing min input, attributes (opset < 11), and no bounds at all.
// CHECK-LABEL: func.func @clip
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4xf32>)
// CHECK-NEXT:    %[[C0:.*]] = tgr.clip %[[X]] {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[C1:.*]] = tgr.clip %[[X]] {max = 6.000000e+00 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[C2:.*]] = tgr.clip %[[X]] {min = -1.000000e+00 : f32, max = 1.000000e+00 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[C3:.*]] = tgr.clip %[[X]] : (tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[C0]], %[[C1]], %[[C2]], %[[C3]] :
// CHECK-NOT:     onnx.Constant
func.func @clip(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %lo = onnx.Constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %hi = tgr.weight dense<6.0> : tensor<f32>
  %0 = onnx.Clip %x, %lo, %hi : (tensor<1x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4xf32>
  %1 = onnx.Clip %x, none, %hi : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %2 = onnx.Clip %x {min = -1.0 : f32, max = 1.0 : f32} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %3 = onnx.Clip %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK-SAME:      (%[[X:.*]]: tensor<1x2x3x3xf32>)
// Constant pads input and constant_value input.
// CHECK-NEXT:    %[[P0:.*]] = tgr.pad %[[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 1.500000e+00 : f32} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
// Opset-18 axes [-1, 2] with pads [1, 2, 3, 4] = [begin(-1), begin(2), end(-1), end(2)]:
// axis 3 gets 1 / 3 and axis 2 gets 2 / 4 -> [0, 0, 2, 1, 0, 0, 4, 3]; H 3 + 6 = 9, W 3 + 4 = 7.
// CHECK-NEXT:    %[[P1:.*]] = tgr.pad %[[X]] {pads = array<i64: 0, 0, 2, 1, 0, 0, 4, 3>, mode = "edge"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x9x7xf32>
// Attribute pads and value (opset < 11).
// CHECK-NEXT:    %[[P2:.*]] = tgr.pad %[[X]] {pads = array<i64: 0, 0, 1, 3, 0, 0, 0, 0>, mode = "reflect", value = 5.000000e-01 : f32} : (tensor<1x2x3x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    func.return %[[P0]], %[[P1]], %[[P2]] :
// CHECK-NOT:     onnx.Constant
func.func @pad(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x9x7xf32>, tensor<1x2x4x6xf32>) {
  %pads = onnx.Constant {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>} : () -> tensor<8xi64>
  %cv = onnx.Constant {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %0 = onnx.Pad %x, %pads, %cv : (tensor<1x2x3x3xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x2x5x5xf32>
  %p4 = tgr.weight dense<[1, 2, 3, 4]> : tensor<4xi64>
  %axes = tgr.weight dense<[-1, 2]> : tensor<2xi64>
  %1 = onnx.Pad %x, %p4, none, %axes {mode = "edge"} : (tensor<1x2x3x3xf32>, tensor<4xi64>, tensor<2xi64>) -> tensor<1x2x9x7xf32>
  %2 = onnx.Pad %x {pads = array<i64: 0, 0, 1, 3, 0, 0, 0, 0>, mode = "reflect", value = 0.5 : f32} : (tensor<1x2x3x3xf32>) -> tensor<1x2x4x6xf32>
  func.return %0, %1, %2 : tensor<1x2x5x5xf32>, tensor<1x2x9x7xf32>, tensor<1x2x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>)
// axes attribute, keepdims 1 (default)
// CHECK-NEXT:    %[[R0:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// axes input [-1] -> [3]
// CHECK-NEXT:    %[[R1:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
// negative axes [-1, -2] -> sorted [2, 3]
// CHECK-NEXT:    %[[R2:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// keepdims 0
// CHECK-NEXT:    %[[R3:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5xf32>
// empty axes: every axis
// CHECK-NEXT:    %[[R4:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<1x1x1x1xf32>
// CHECK-NEXT:    %[[R5:.*]] = tgr.reduce_mean %[[X]] {axes = array<i64: 0, 1, 2, 3>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<f32>
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] :
// CHECK-NOT:     onnx.
func.func @reduce_mean(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x4x1xf32>, tensor<2x3x1x1xf32>, tensor<2x4x5xf32>, tensor<1x1x1x1xf32>, tensor<f32>) {
  %0 = onnx.ReduceMean %x {axes = array<i64: 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %ax = onnx.Constant {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %1 = onnx.ReduceMean %x, %ax : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x1xf32>
  %2 = onnx.ReduceMean %x {axes = array<i64: -1, -2>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %3 = onnx.ReduceMean %x {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5xf32>
  %4 = onnx.ReduceMean %x : (tensor<2x3x4x5xf32>) -> tensor<1x1x1x1xf32>
  %5 = onnx.ReduceMean %x {keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<f32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x3x1x1xf32>, tensor<2x3x4x1xf32>, tensor<2x3x1x1xf32>, tensor<2x4x5xf32>, tensor<1x1x1x1xf32>, tensor<f32>
}

// -----

// Empty axes with noop_with_empty_axes = 1 is the identity: the op disappears.
// CHECK-LABEL: func.func @reduce_mean_noop
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgr.relu %[[X]] : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     reduce
func.func @reduce_mean_noop(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = onnx.ReduceMean %x {noop_with_empty_axes = 1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %1 = onnx.Relu %0 : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %1 : tensor<2x3x4x5xf32>
}

// -----

// ReduceMax over every spatial axis with keepdims is a global max pool.
// CHECK-LABEL: func.func @reduce_max
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT:    %[[G:.*]] = tgr.global_max_pool %[[X]] : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:    %[[M:.*]] = tgr.reduce_max %[[X]] {axes = array<i64: 1>}
// CHECK-NEXT:    func.return %[[G]], %[[M]] :
func.func @reduce_max(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x1x4x5xf32>) {
  %0 = onnx.ReduceMax %x {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %1 = onnx.ReduceMax %x {axes = array<i64: 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
  func.return %0, %1 : tensor<2x3x1x1xf32>, tensor<2x1x4x5xf32>
}

// -----

// Not over the spatial axes (axis 1 = channels) or without keepdims: not a global max
// pool but a tgr.reduce_max (convert-reduce.mlir has the reductions' other forms).
// CHECK-LABEL: func.func @negative_reduce_max
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT:    %[[M0:.*]] = tgr.reduce_max %[[X]] {axes = array<i64: 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
// CHECK-NEXT:    %[[M1:.*]] = tgr.reduce_max %[[X]] {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[M0]], %[[M1]] :
// CHECK-NOT:     tgr.global_max_pool
func.func @negative_reduce_max(%x: tensor<2x3x4x5xf32>) -> (tensor<2x1x4x5xf32>, tensor<2x3xf32>) {
  %0 = onnx.ReduceMax %x {axes = array<i64: 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
  %1 = onnx.ReduceMax %x {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
  func.return %0, %1 : tensor<2x1x4x5xf32>, tensor<2x3xf32>
}

// -----

// Sum of three inputs is two adds ((a + b) + c); Sum of one input is that input.
// CHECK-LABEL: func.func @sum
// CHECK-SAME:      (%[[A:.*]]: tensor<1x4xf32>, %[[B:.*]]: tensor<1x4xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[S0:.*]] = tgr.add %[[A]], %[[B]] {tgr.name = "sum3"} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[S1:.*]] = tgr.add %[[S0]], %[[C]] {tgr.name = "sum3"} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[S1]], %[[A]] :
// CHECK-NOT:     onnx.Sum
func.func @sum(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>, %c: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %0 = onnx.Sum %a, %b, %c {tgr.name = "sum3"} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %1 = onnx.Sum %a : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %0, %1 : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Squeeze/Unsqueeze with axes as attribute (opset < 13) or constant input; none at all.
// CHECK-LABEL: func.func @squeeze
// CHECK-SAME:      (%[[X:.*]]: tensor<1x3x1x4xf32>, %[[Y:.*]]: tensor<3x4xf32>)
// CHECK-NEXT:    %[[S0:.*]] = tgr.squeeze %[[X]] {axes = array<i64: 2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
// CHECK-NEXT:    %[[U0:.*]] = tgr.unsqueeze %[[Y]] {axes = array<i64: 0>} : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
// CHECK-NEXT:    %[[S1:.*]] = tgr.squeeze %[[X]] : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[U1:.*]] = tgr.unsqueeze %[[Y]] {axes = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
// CHECK-NEXT:    %[[S2:.*]] = tgr.squeeze %[[X]] {axes = array<i64: 0, 2>} : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %[[S0]], %[[U0]], %[[S1]], %[[U1]], %[[S2]] :
// CHECK-NOT:     onnx.
func.func @squeeze(%x: tensor<1x3x1x4xf32>, %y: tensor<3x4xf32>) -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<3x4xf32>, tensor<3x1x4xf32>, tensor<3x4xf32>) {
  %0 = onnx.Squeeze %x {axes = array<i64: 2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
  %ax = onnx.Constant {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %1 = onnx.Unsqueeze %y, %ax : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<1x3x4xf32>
  %2 = onnx.Squeeze %x : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  %3 = onnx.Unsqueeze %y {axes = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
  %ax2 = tgr.weight dense<[0, 2]> : tensor<2xi64>
  %4 = onnx.Squeeze %x, %ax2 : (tensor<1x3x1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  func.return %0, %1, %2, %3, %4 : tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<3x4xf32>, tensor<3x1x4xf32>, tensor<3x4xf32>
}

// -----

// Ops with a pass of their own (Reshape: fold-shape-ops, Resize: extract-resize-scales,
// Swish with alpha != 1: decompose-silu, DequantizeLinear: fold-qdq) and constants are left alone.
// (Swish with alpha 1 is SiLU: convert-unary.mlir.)
// CHECK-LABEL: func.func @negative_left_for_other_passes
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x4x4xf32>)
// CHECK-NEXT:    %[[SH:.*]] = onnx.Constant {value = dense<[1, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
// CHECK-NEXT:    %[[R:.*]] = onnx.Reshape %[[X]], %[[SH]] : (tensor<1x4x4x4xf32>, tensor<2xi64>) -> tensor<1x64xf32>
// CHECK-NEXT:    %[[SC:.*]] = onnx.Constant {value = dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>} : () -> tensor<4xf32>
// CHECK-NEXT:    %[[RS:.*]] = onnx.Resize %[[X]], none, %[[SC]] : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[SW:.*]] = onnx.Swish %[[X]] {alpha = 1.702000e+00 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[Q:.*]] = tgr.weight dense<3> : tensor<1x4x4x4xi8>
// CHECK-NEXT:    %[[S:.*]] = tgr.weight dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[DQ:.*]] = onnx.DequantizeLinear %[[Q]], %[[S]] : (tensor<1x4x4x4xi8>, tensor<f32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %[[R]], %[[RS]], %[[SW]], %[[DQ]] :
func.func @negative_left_for_other_passes(%x: tensor<1x4x4x4xf32>) -> (tensor<1x64xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %shape = onnx.Constant {value = dense<[1, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = onnx.Reshape %x, %shape : (tensor<1x4x4x4xf32>, tensor<2xi64>) -> tensor<1x64xf32>
  %sc = onnx.Constant {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %1 = onnx.Resize %x, none, %sc : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %2 = onnx.Swish %x {alpha = 1.702 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %q = tgr.weight dense<3> : tensor<1x4x4x4xi8>
  %s = tgr.weight dense<0.5> : tensor<f32>
  %3 = onnx.DequantizeLinear %q, %s : (tensor<1x4x4x4xi8>, tensor<f32>) -> tensor<1x4x4x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x64xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Sum broadcasts: each partial add has the broadcast shape of its own operands.
// CHECK-LABEL: func.func @sum_broadcast
// CHECK-NEXT:    %[[AB:.*]] = tgr.add %a, %b {{.*}}: (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ABC:.*]] = tgr.add %[[AB]], %c {{.*}}: (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @sum_broadcast(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = onnx.Sum %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %s : tensor<2x4xf32>
}
