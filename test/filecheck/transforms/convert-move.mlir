// RUN: tigris-opt %s --split-input-file --verify-diagnostics -p convert-onnx-to-tgr | filecheck %s

// convert-onnx-to-tgr's data-movement patterns (transforms/normalize/convert_move.py): Slice,
// Split, Gather, Tile and Expand on activations, and the forms they refuse or leave alone.

// Slice: one start and step per axis, ONNX's clamping resolved (a negative step from -1 reads
// the last element first; an end of -100 clamps to before the first).
// CHECK-LABEL: func.func @slice
// CHECK-NEXT:    %[[Y:.*]] = tgr.slice %{{.*}} {starts = array<i64: 0, 3, 1, 0>, steps = array<i64: 1, -2, 2, 1>, tgr.name = "sl"} : (tensor<1x4x5x3xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @slice(%x: tensor<1x4x5x3xf32>) -> tensor<1x2x2x3xf32> {
  %s = tgr.weight dense<[-1, 1]> : tensor<2xi64>
  %e = tgr.weight dense<[-100, -1]> : tensor<2xi64>
  %a = tgr.weight dense<[1, 2]> : tensor<2xi64>
  %t = tgr.weight dense<[-2, 2]> : tensor<2xi64>
  %y = onnx.Slice %x, %s, %e, %a, %t {tgr.name = "sl"} : (tensor<1x4x5x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x2x3xf32>
  func.return %y : tensor<1x2x2x3xf32>
}

// -----

// Split with sizes as an input: one slice per output, along the axis, each named after the node.
// CHECK-LABEL: func.func @split_sizes
// CHECK-NEXT:    %[[A:.*]] = tgr.slice %[[X:.*]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>, tgr.name = "split"} : (tensor<1x4x5x3xf32>) -> tensor<1x1x5x3xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.slice %[[X]] {starts = array<i64: 0, 1, 0, 0>, steps = array<i64: 1, 1, 1, 1>, tgr.name = "split"} : (tensor<1x4x5x3xf32>) -> tensor<1x3x5x3xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
// CHECK-NOT:     onnx.Split
func.func @split_sizes(%x: tensor<1x4x5x3xf32>) -> (tensor<1x1x5x3xf32>, tensor<1x3x5x3xf32>) {
  %sp = tgr.weight dense<[1, 3]> : tensor<2xi64>
  %a, %b = onnx.Split %x, %sp {axis = 1 : i64, tgr.name = "split"} : (tensor<1x4x5x3xf32>, tensor<2xi64>) -> (tensor<1x1x5x3xf32>, tensor<1x3x5x3xf32>)
  func.return %a, %b : tensor<1x1x5x3xf32>, tensor<1x3x5x3xf32>
}

// -----

// Split into equal parts (no sizes; opset 18's num_outputs), along a negative axis.
// CHECK-LABEL: func.func @split_equal
// CHECK-NEXT:    tgr.slice %{{.*}} {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tgr.slice %{{.*}} {starts = array<i64: 0, 3>, steps = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x3xf32>
func.func @split_equal(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a, %b = onnx.Split %x {axis = -1 : i64, num_outputs = 2 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  func.return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A Split of another domain is not ONNX's: left alone (check-legal reports it).
// CHECK-LABEL: func.func @split_other_domain
// CHECK-NEXT:    onnx.generic %{{.*}} {op_type = "Split", domain = "my.domain"
// CHECK-NOT:     tgr.slice
func.func @split_other_domain(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a, %b = onnx.generic %x {op_type = "Split", domain = "my.domain"} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  func.return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Gather with constant indices (x[:, -1] drops the axis: a negative index normalized) and with
// indices computed at run time (an embedding lookup: the indices stay an operand).
// CHECK-LABEL: func.func @gather
// CHECK-NEXT:    %[[C:.*]] = tgr.gather %{{.*}} {axis = 1 : i64, indices = array<i64: 3>, tgr.name = "g"} : (tensor<1x4x5x3xf32>) -> tensor<1x5x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tgr.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<10x3xf32>, tensor<1x4xi64>) -> tensor<1x4x3xf32>
// CHECK-NEXT:    func.return %[[C]], %[[E]]
func.func @gather(%x: tensor<1x4x5x3xf32>, %table: tensor<10x3xf32>, %ids: tensor<1x4xi64>) -> (tensor<1x5x3xf32>, tensor<1x4x3xf32>) {
  %i = tgr.weight dense<-1> : tensor<i64>
  %c = onnx.Gather %x, %i {axis = 1 : i64, tgr.name = "g"} : (tensor<1x4x5x3xf32>, tensor<i64>) -> tensor<1x5x3xf32>
  %e = onnx.Gather %table, %ids : (tensor<10x3xf32>, tensor<1x4xi64>) -> tensor<1x4x3xf32>
  func.return %c, %e : tensor<1x5x3xf32>, tensor<1x4x3xf32>
}

// -----

// Tile: the repeats as a property. Expand: a reshape adds the leading axes, a tile grows the
// size-1 axes; an Expand to the input's own shape is the input.
// CHECK-LABEL: func.func @tile_expand
// CHECK-SAME:      (%[[X:.*]]: tensor<1x4x5x3xf32>, %[[Z:.*]]: tensor<4x1x1xf32>)
// CHECK-NEXT:    %[[T:.*]] = tgr.tile %[[X]] {repeats = array<i64: 1, 1, 2, 1>, tgr.name = "tile"} : (tensor<1x4x5x3xf32>) -> tensor<1x4x10x3xf32>
// CHECK-NEXT:    %[[R:.*]] = tgr.reshape %[[Z]] {tgr.name = "ex"} : (tensor<4x1x1xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    %[[E:.*]] = tgr.tile %[[R]] {repeats = array<i64: 2, 1, 1, 3>, tgr.name = "ex"} : (tensor<1x4x1x1xf32>) -> tensor<2x4x1x3xf32>
// CHECK-NEXT:    func.return %[[T]], %[[E]], %[[X]]
func.func @tile_expand(%x: tensor<1x4x5x3xf32>, %z: tensor<4x1x1xf32>) -> (tensor<1x4x10x3xf32>, tensor<2x4x1x3xf32>, tensor<1x4x5x3xf32>) {
  %r = tgr.weight dense<[1, 1, 2, 1]> : tensor<4xi64>
  %t = onnx.Tile %x, %r {tgr.name = "tile"} : (tensor<1x4x5x3xf32>, tensor<4xi64>) -> tensor<1x4x10x3xf32>
  %es = tgr.weight dense<[2, 4, 1, 3]> : tensor<4xi64>
  %e = onnx.Expand %z, %es {tgr.name = "ex"} : (tensor<4x1x1xf32>, tensor<4xi64>) -> tensor<2x4x1x3xf32>
  %same = tgr.weight dense<[1, 1]> : tensor<2xi64>
  %s = onnx.Expand %x, %same : (tensor<1x4x5x3xf32>, tensor<2xi64>) -> tensor<1x4x5x3xf32>
  func.return %t, %e, %s : tensor<1x4x10x3xf32>, tensor<2x4x1x3xf32>, tensor<1x4x5x3xf32>
}

// -----

// Slice bounds computed at run time: refused, naming the node.
// CHECK: {{^}}node 'dyn' (onnx.Slice): Slice starts must be constant (computed at run time here)
func.func @slice_dynamic_starts(%x: tensor<4x6xf32>, %s: tensor<1xi64>) -> tensor<4x3xf32> {
  %e = tgr.weight dense<[5]> : tensor<1xi64>
  %a = tgr.weight dense<[1]> : tensor<1xi64>
  %y = onnx.Slice %x, %s, %e, %a {tgr.name = "dyn"} : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

// Tile repeats computed at run time: refused, naming the node.
// CHECK: {{^}}node 'rep' (onnx.Tile): Tile repeats must be constant (computed at run time here)
func.func @tile_dynamic_repeats(%x: tensor<2x3xf32>, %r: tensor<2xi64>) -> tensor<4x3xf32> {
  %y = onnx.Tile %x, %r {tgr.name = "rep"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

// Split sizes that disagree with the outputs' shapes: refused, naming the node.
// CHECK: {{^}}node 'bad' (onnx.Split): Split sizes [2, 4] disagree with the outputs' [3, 3]
func.func @split_sizes_disagree(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a, %b = onnx.Split %x {axis = 1 : i64, split = array<i64: 2, 4>, tgr.name = "bad"} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  func.return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// DepthToSpace (DCR, the default mode) is the reshape, transpose, reshape ONNX defines it as.
// CHECK-LABEL: func.func @depth_to_space
// CHECK-NEXT:    %[[A:.*]] = tgr.reshape %{{.*}} {tgr.name = "d2s"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x2x2x2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = tgr.transpose %[[A]] {perm = array<i64: 0, 3, 4, 1, 5, 2>, tgr.name = "d2s"} : (tensor<1x2x2x2x2x3xf32>) -> tensor<1x2x2x2x3x2xf32>
// CHECK-NEXT:    %[[C:.*]] = tgr.reshape %[[B]] {tgr.name = "d2s"} : (tensor<1x2x2x2x3x2xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %y = onnx.generic %x {op_type = "DepthToSpace", node_attributes = {blocksize = 2 : i64}, tgr.name = "d2s"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  func.return %y : tensor<1x2x4x6xf32>
}

// -----

// SpaceToDepth of an H that is not a multiple of the blocksize: refused, naming the node.
// CHECK: {{^}}node 's2d' (SpaceToDepth): SpaceToDepth: H 5 and W 4 must be multiples of the blocksize 2
func.func @space_to_depth_uneven(%x: tensor<1x1x5x4xf32>) -> tensor<1x4x2x2xf32> {
  %y = onnx.generic %x {op_type = "SpaceToDepth", node_attributes = {blocksize = 2 : i64}, tgr.name = "s2d"} : (tensor<1x1x5x4xf32>) -> tensor<1x4x2x2xf32>
  func.return %y : tensor<1x4x2x2xf32>
}
