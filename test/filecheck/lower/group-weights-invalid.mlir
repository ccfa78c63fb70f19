// RUN: tigris-opt %s --verify-diagnostics -p 'group-weights{compress=lz4}' | filecheck %s
// RUN: tigris-opt %s --verify-diagnostics -p 'tigris-plan{budget=100000},group-weights' | filecheck %s --check-prefix=PLANNED
// RUN: tigris-opt %s --verify-diagnostics -p 'tigris-plan{budget=100000},group-weights{compress=lz4}' | filecheck %s --check-prefix=BUDGET

// Weights are grouped by the stages of a plan: without tgr.stages there is nothing to group by.
// CHECK: group-weights needs a plan: run tigris-plan first (@main has no tgr.stages)
// A weight no planned op uses (here: returned as a model output) belongs to no stage.
// PLANNED: node 'c' (tgr.weight): no op with a tgr.stage uses this weight
// LZ4 blocks are decompressed into fast_reserved, taken from the arena: the pass needs its size.
// BUDGET: group-weights{compress=lz4} needs budget=<bytes>: fast_reserved comes out of that arena
func.func @main(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>) {
  %c = tgr.weight {tgr.name = "c"} dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = tgr.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %r, %c : tensor<1x4xf32>, tensor<4xf32>
}
