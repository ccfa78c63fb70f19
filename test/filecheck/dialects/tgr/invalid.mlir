// RUN: tigris-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// One case per verifier (and parser) message of the tgr dialect: ops, the
// FusesActivation trait, tgr.weight, !tgr.quant and the #tgr plan attributes.
// Each message is unique in this file, so a case that wrongly verifies cannot
// be masked by the next one.

%x = "test.op"() : () -> tensor<1x2xf32>
%y = tgr.relu %x : (tensor<1x2xf32>) -> tensor<1x4xf32>
// CHECK: tgr.relu: result shape (1, 4) does not match expected (1, 2)

// -----

%x = "test.op"() : () -> tensor<1x2xf32>
%y = tgr.clip %x {min = 6.0 : f32, max = 0.0 : f32} : (tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK: tgr.clip: min is greater than max

// -----

%a, %b = "test.op"() : () -> (tensor<1x4x4x4xf32>, tensor<3x1x1xf32>)
%y = tgr.add %a, %b : (tensor<1x4x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK: shapes (1, 4, 4, 4) and (3, 1, 1) do not broadcast

// -----

// [4, 1, 1] broadcasts with [1, 4, 1, 4] to [1, 4, 1, 4], not [1, 4, 4, 4].
%a, %b = "test.op"() : () -> (tensor<1x4x1x4xf32>, tensor<4x1x1xf32>)
%y = tgr.mul %a, %b : (tensor<1x4x1x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK: tgr.mul: result shape (1, 4, 4, 4) does not match expected (1, 4, 1, 4)

// -----

%x = "test.op"() : () -> tensor<1x4x4x4xf32>
%y = tgr.softmax %x {axis = 4 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: axis 4 is out of range for rank 4

// -----

%x, %c, %v = "test.op"() : () -> (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<1x4xf32>)
%y = tgr.batch_norm %x, %c, %c, %c, %v : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>) -> tensor<1x4x2x2xf32>
// CHECK: tgr.batch_norm: per-channel parameters must have shape (4,)

// -----

%x, %c, %b = "test.op"() : () -> (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<4xf32>)
%y = tgr.instance_norm %x, %c, %b : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x3x2x2xf32>
// CHECK: tgr.instance_norm: per-channel parameters must have shape (3,)

// -----

%y = tgr.concat {axis = 0 : i64} : () -> tensor<2xf32>
// CHECK: tgr.concat needs at least one input

// -----

%a, %b = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<1x3x5x4xf32>)
%y = tgr.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x5x4xf32>) -> tensor<1x5x4x4xf32>
// CHECK: tgr.concat: input shapes [(1, 2, 4, 4), (1, 3, 5, 4)] differ off axis 1

// -----

// With layout = "nhwc", axis 1 is H: NCHW axis 2, so the channel counts must agree.
%a, %b = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>)
%y = tgr.concat %a, %b {axis = 1 : i64, layout = "nhwc"} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
// CHECK: tgr.concat: input shapes [(1, 2, 4, 4), (1, 3, 4, 4)] differ off axis 2

// -----

%a, %b = "test.op"() : () -> (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>)
%y = tgr.concat %a, %b {axis = -3 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x4x4xf32>
// CHECK: tgr.concat: result shape (1, 6, 4, 4) does not match expected (1, 5, 4, 4)

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.pad %x {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
// CHECK: tgr.pad needs 8 pads, got 4

// -----

// pads = [begins..., ends...]: H gets 1 + 0, W gets 0 + 2.
%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
// CHECK: tgr.pad: result shape (1, 2, 6, 6) does not match expected (1, 2, 5, 6)

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.resize %x {scales = array<i64: 1, 1, 0, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
// CHECK: tgr.resize needs 4 integer scales >= 1

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.resize %x {scales = array<i64: 1, 1, 2, 2>, mode = "cubic"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
// CHECK: tgr.resize mode must be nearest or linear, got cubic

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.resize %x {scales = array<i64: 1, 1, 2, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
// CHECK: tgr.resize: result shape (1, 2, 8, 8) does not match expected (1, 2, 8, 12)

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.reshape %x : (tensor<1x2x4x4xf32>) -> tensor<2x4x3xf32>
// CHECK: tgr.reshape: element counts of input and result differ

// -----

%x = "test.op"() : () -> tensor<2x4xf32>
%y = tgr.unsqueeze %x {axes = array<i64: 0>} : (tensor<2x4xf32>) -> tensor<1x2x5xf32>
// CHECK: tgr.unsqueeze: element counts of input and result differ

// -----

%x = "test.op"() : () -> tensor<1x2x3xf32>
%y = tgr.transpose %x {perm = array<i64: 0, 1, 1>} : (tensor<1x2x3xf32>) -> tensor<1x2x2xf32>
// CHECK: tgr.transpose: perm [0, 1, 1] is not a permutation of 3 axes

// -----

%x = "test.op"() : () -> tensor<1x2x3xf32>
%y = tgr.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
// CHECK: tgr.transpose: result shape (1, 2, 3) does not match expected (1, 3, 2)

// -----

%x = "test.op"() : () -> tensor<2x3xf32>
%y = tgr.reduce_mean %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK: reduce axis 2 is out of range for rank 2

// -----

%x = "test.op"() : () -> tensor<1x2x4x4xf32>
%y = tgr.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
// CHECK: tgr.reduce_mean: result shape (1, 2, 1, 1) does not match expected (1, 2)

// -----

// Rank 3 is accepted (relabel-conv1d renames it); other ranks are not.
%x, %w = "test.op"() : () -> (tensor<1x3xf32>, tensor<4x3xf32>)
%y = tgr.conv %x, %w : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<1x4xf32>
// CHECK: tgr.conv needs rank-3 or 4 input and weight, got (1, 3) and (4, 3)

// -----

%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>)
%y = tgr.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: tgr.conv: input channels 3 != weight in-channels 2 x group 1

// -----

// 4 = 2 x 2 channels, but 3 filters do not split into 2 groups.
%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>)
%y = tgr.conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
// CHECK: tgr.conv: input channels 4 != weight in-channels 2 x group 2

// -----

%x, %w, %b = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
%y = tgr.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: tgr.conv: bias must have shape (4,)

// -----

// Without pads a 3x3 kernel shrinks 8x8 to 6x6.
%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = tgr.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: tgr.conv: result shape (1, 4, 8, 8) does not match expected (1, 4, 6, 6)

// -----

%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = tgr.conv %x, %w {strides = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK: strides/dilations need 2 values and pads 4

// -----

%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = tgr.conv %x, %w {dilations = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: strides and dilations must be >= 1 and pads >= 0

// -----

%x, %w = "test.op"() : () -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = tgr.conv %x, %w {fused_activation = "gelu"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: fused_activation must be one of none, relu, relu6
// CHECK: "tgr.conv"{{.*}}fused_activation = "gelu"

// -----

// Depthwise: group = input channels = 4, so the weight must be [4k, 1, kh, kw].
%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>)
%y = tgr.depthwise_conv %x, %w : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: tgr.depthwise_conv: input channels 4 != weight in-channels 2 x group 4

// -----

%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>)
%y = tgr.conv1d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
// CHECK: tgr.conv1d needs rank-3 input and weight, got (1, 4, 8, 8) and (8, 4, 3, 3)

// -----

%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<3x2x2x2xf32>)
%y = tgr.conv_transpose %x, %w : (tensor<1x4x8x8xf32>, tensor<3x2x2x2xf32>) -> tensor<1x2x9x9xf32>
// CHECK: tgr.conv_transpose: weight (3, 2, 2, 2) does not match input (1, 4, 8, 8)

// -----

// stride 2: 2 * (8 - 1) + (2 - 1) + 1 = 16
%x, %w = "test.op"() : () -> (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>)
%y = tgr.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>) -> tensor<1x2x17x17xf32>
// CHECK: tgr.conv_transpose: result shape (1, 2, 17, 17) does not match expected (1, 2, 16, 16)

// -----

%x, %w = "test.op"() : () -> (tensor<2x16xf32>, tensor<10x8xf32>)
%y = tgr.fully_connected %x, %w : (tensor<2x16xf32>, tensor<10x8xf32>) -> tensor<2x10xf32>
// CHECK: tgr.fully_connected: input (2, 16) and weight (10, 8) need [N, K] and [M, K]

// -----

%x, %w, %b = "test.op"() : () -> (tensor<2x16xf32>, tensor<10x16xf32>, tensor<16xf32>)
%y = tgr.fully_connected %x, %w, %b : (tensor<2x16xf32>, tensor<10x16xf32>, tensor<16xf32>) -> tensor<2x10xf32>
// CHECK: tgr.fully_connected: bias must have shape (10,)

// -----

%x, %w = "test.op"() : () -> (tensor<2x16xf32>, tensor<10x16xf32>)
%y = tgr.fully_connected %x, %w : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x16xf32>
// CHECK: tgr.fully_connected: result shape (2, 16) does not match expected (2, 10)

// -----

%x, %w = "test.op"() : () -> (tensor<2x16xf32>, tensor<10x16xf32>)
%y = tgr.fully_connected %x, %w {fused_activation = "sigmoid"} : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
// CHECK: fused_activation must be one of none, relu, relu6
// CHECK: "tgr.fully_connected"{{.*}}fused_activation = "sigmoid"

// -----

%a, %b = "test.op"() : () -> (tensor<2x3xf32>, tensor<4x5xf32>)
%y = tgr.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK: tgr.matmul: shapes (2, 3) and (4, 5) do not multiply

// -----

// floor((8 - 3) / 2) + 1 = 3 without ceil_mode.
%x = "test.op"() : () -> tensor<1x4x8x8xf32>
%y = tgr.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK: tgr.max_pool: result shape (1, 4, 4, 4) does not match expected (1, 4, 3, 3)

// -----

// ceil((7 - 2) / 2) + 1 = 4 with ceil_mode.
%x = "test.op"() : () -> tensor<1x4x7x7xf32>
%y = tgr.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
// CHECK: tgr.avg_pool: result shape (1, 4, 3, 3) does not match expected (1, 4, 4, 4)

// -----

%x = "test.op"() : () -> tensor<1x4x8x8xf32>
%y = tgr.max_pool %x {kernel_shape = array<i64: 3>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
// CHECK: kernel rank 1 does not match input spatial rank 2

// -----

%x = "test.op"() : () -> tensor<2x4xf32>
%y = tgr.global_avg_pool %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: tgr.global_avg_pool needs an input of rank >= 3, got (2, 4)

// -----

%x = "test.op"() : () -> tensor<1x4x8x8xf32>
%y = tgr.global_max_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x2x2xf32>
// CHECK: tgr.global_max_pool: result shape (1, 4, 2, 2) does not match expected (1, 4, 1, 1)

// -----

// Only the generic form can disagree on the type: the custom form takes it from the value.
%w = "tgr.weight"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
// CHECK: tgr.weight: value type tensor<2xf32> != result type tensor<3xf32>

// -----

%w = tgr.weight array<i64: 1, 2> : tensor<2xi64>
// CHECK: tgr.weight expects dense<...> or dense_resource<...>

// -----

%w = tgr.weight dense_resource<k> : i32
// CHECK: tgr.weight needs a tensor type

// -----

"test.op"() {v = #tgr.dense_resource<k2 : i32>} : () -> ()
// CHECK: a weight resource must have a tensor type

// -----

%x = "test.op"() : () -> tensor<2x!tgr.quant<i8, 0.5:200>>
// CHECK: tgr.quant zero point outside the i8 range

// -----

%x = "test.op"() : () -> tensor<2x!tgr.quant<ui4:0, {0.5:0, 0.5:16}>>
// CHECK: tgr.quant zero point outside the ui4 range

// -----

%x = "test.op"() : () -> tensor<2x!tgr.quant<i8, 0.0:0>>
// CHECK: tgr.quant scales must be positive

// -----

%x = "test.op"() : () -> tensor<2x!tgr.quant<i8:0, {}>>
// CHECK: tgr.quant needs as many zero points as scales (>= 1)

// -----

%x = "test.op"() : () -> tensor<2x!tgr.quant<f32, 0.5:0>>
// CHECK: tgr.quant storage must be an integer type

// -----

"test.op"() {l = #tgr.lifetime<birth = 3, death = 2>} : () -> ()
// CHECK: #tgr.lifetime needs -1 <= birth <= death, got 3, 2

// -----

"test.op"() {l = #tgr.lifetime<birth = -2, death = 0>} : () -> ()
// CHECK: #tgr.lifetime needs -1 <= birth <= death, got -2, 0

// -----

// 2 tiles of 4 rows reach row 8 only: out_h = 9 is not covered.
"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 2, out_h = 9, peak = 0, chain = -1>} : () -> ()
// CHECK: #tgr.tile_plan: 2 tiles of 4 rows do not cover exactly 9 output rows

// -----

// 3 tiles of 4 rows for 8 rows: the last tile would be empty.
"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 3, halo = 2, out_h = 8, peak = 0, chain = -1>} : () -> ()
// CHECK: #tgr.tile_plan: 3 tiles of 4 rows do not cover exactly 8 output rows

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = -1, out_h = 8, peak = 0, chain = -1>} : () -> ()
// CHECK: #tgr.tile_plan needs tile_h >= 1, num_tiles >= 1, halo >= 0, chain >= -1

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, out_h = 8, peak = 0, chain = -1>} : () -> ()
// CHECK: missing field(s): halo

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 0, chain = -1>} : () -> ()
// CHECK: unexpected or repeated field 'tile_h'; expected tile_h, num_tiles, halo, out_h, peak, chain

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = -1, chain = -1>} : () -> ()
// CHECK: #tgr.tile_plan peak must be >= 0

// -----

// Reduction tiles (acc > 0): the accumulator is part of the band peak, and a reduction has no
// halo and is no chain.
"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 64, chain = -1, acc = 96>} : () -> ()
// CHECK: #tgr.tile_plan acc is part of peak: it cannot exceed it

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 640, chain = 0, acc = 96>} : () -> ()
// CHECK: reduction tiles (acc > 0) have chain -1, halo 0

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 640, chain = -1, acc = -4>} : () -> ()
// CHECK: #tgr.tile_plan acc must be >= 0

// -----

// The strategy must say what the tile plan says: none is normal, a chain index is a chain.
"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = 8, inputs = [], outputs = [], strategy = tiled>} : () -> ()
// CHECK: #tgr.stage strategy tiled does not match no tile plan

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = 8, inputs = [], outputs = [], strategy = tiled, tile = #tgr.tile_plan<tile_h = 1, num_tiles = 2, halo = 0, out_h = 2, peak = 4, chain = 0>>} : () -> ()
// CHECK: #tgr.stage strategy tiled does not match a tile plan with chain = 0

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = 8, inputs = [], outputs = [], tile = #tgr.tile_plan<tile_h = 1, num_tiles = 2, halo = 0, out_h = 2, peak = 4, chain = -1>>} : () -> ()
// CHECK: #tgr.stage strategy normal does not match a tile plan with chain = -1

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = 8, inputs = [], outputs = [], strategy = striped>} : () -> ()
// CHECK: Expected `normal`, `tiled`, or `chain`.

// -----

"test.op"() {b = #tgr.weight_block<stage = 0, raw_bytes = -16, compressed_bytes = 4>} : () -> ()
// CHECK: #tgr.weight_block fields must be >= 0

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 3], inputs = [-1], outputs = [3]>} : () -> ()
// CHECK: #tgr.stage is missing field(s): peak

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [3, 1], peak = 0, inputs = [], outputs = []>} : () -> ()
// CHECK: #tgr.stage needs index >= 0 and 0 <= first step <= last step

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = -8, inputs = [], outputs = []>} : () -> ()
// CHECK: #tgr.stage peak must be >= 0

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = 8, inputs = [], outputs = [], tile = 3 : i64>} : () -> ()
// CHECK: #tgr.stage tile must be a #tgr.tile_plan or absent

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1, 2], peak = 8, inputs = [], outputs = []>} : () -> ()
// CHECK: #tgr.stage steps must be [first, last]

// -----

"test.op"() {s = #tgr.stage<index = 0, steps = [0, 1], peak = 8, inputs = [], outputs = [], stage = 1>} : () -> ()
// CHECK: unexpected or repeated field 'stage' in #tgr.stage

// -----

// The blob must hold exactly the bytes its type needs (here 2 of 4).
%w = tgr.weight dense_resource<short_blob> : tensor<4xi8>
// CHECK: tgr.weight 'short_blob': blob has 2 bytes, tensor<4xi8> needs 4
{-#
  dialect_resources: {
    tgr: {
      short_blob: "0x100000000102"
    }
  }
#-}

// -----

%x, %s = "test.op"() : () -> (tensor<2x3x4xf32>, tensor<3xf32>)
%y = tgr.layer_norm %x, %s {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
// CHECK: tgr.layer_norm: scale and bias must have shape (4,), got (3,)

// -----

%x = "test.op"() : () -> tensor<1x4x2x2xf32>
%y = tgr.lrn %x {size = 0 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK: tgr.lrn size must be in 1..65535, got 0

// -----

// 2-D tiles (tile_w > 0): the column tiles cover out_w exactly; a lone stage; reduction tiles
// cut along W are one row tall with no column halo.
"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 64, chain = -1, tile_w = 3, num_tiles_w = 2, out_w = 7>} : () -> ()
// CHECK: #tgr.tile_plan: 2 tiles of 3 columns do not cover exactly 7 output columns

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 64, chain = 1, tile_w = 3, num_tiles_w = 3, out_w = 7>} : () -> ()
// CHECK: 2-D tiles (tile_w > 0) are not a chain

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 2, num_tiles = 4, halo = 0, out_h = 8, peak = 64, chain = -1, acc = 16, tile_w = 3, num_tiles_w = 3, out_w = 7>} : () -> ()
// CHECK: reduction tiles cut along W (tile_w > 0) have tile_h 1, halo_w 0

// -----

"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 64, chain = -1, num_tiles_w = 2>} : () -> ()
// CHECK: without tile_w (full-width rows) has num_tiles_w 1, halo_w 0, out_w 0

// -----

// Channel blocks without an accumulator are output-feature blocks: one row, never row tiles.
"test.op"() {t = #tgr.tile_plan<tile_h = 4, num_tiles = 2, halo = 0, out_h = 8, peak = 64, chain = -1, tile_c = 4, num_tiles_c = 2>} : () -> ()
// CHECK: output-feature blocks (tile_c > 0 without acc) run a lone stage of one row

// -----

// Without channel blocks there is one block.
"test.op"() {t = #tgr.tile_plan<tile_h = 1, num_tiles = 1, halo = 0, out_h = 1, peak = 64, chain = -1, num_tiles_c = 2>} : () -> ()
// CHECK: tile_c >= 0; without channel blocks (tile_c 0) num_tiles_c is 1

// -----

%x = "test.op"() : () -> tensor<2x3xf32>
%e = "test.op"() : () -> tensor<2x3xi32>
%y = tgr.pow_tensor %x, %e : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK: tgr.pow_tensor: operands and result are float32, got tensor<2x3xi32>
