// RUN: tigris-opt %s --split-input-file -p annotate-lifetimes | filecheck %s

// annotate-lifetimes (spec/pipeline.md section 3): steps are the non-weight ops of @main
// in program order; every op gets `tgr.step` and the lifetime of its (first) result,
// `#tgr.lifetime<birth = producer step, death = last consuming step>`. Model inputs are
// born at -1 and carry their lifetime in the argument attributes; model outputs live to
// the last step; weights live in flash and get nothing. The planner only plans
// `@main`, so every case is a `@main` and the CHECK-LABEL matches its argument name.

// Diamond: a = relu(x); b = relu(a); c = sigmoid(a); d = b + c.
//   step:  a 0, b 1, c 2, d 3
//   x: born -1, last used by a (step 0)        -> [-1, 0]
//   a: born 0, used by b (1) and c (2)         -> [0, 2]
//   b: born 1, used by d (3)                   -> [1, 3]
//   c: born 2, used by d (3)                   -> [2, 3]
//   d: born 3, a model output (last step is 3) -> [3, 3]
// CHECK-LABEL: func.func @main(%diamond: tensor<1x1x4x4xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 0>})
// CHECK-NEXT:    %[[A:.*]] = tgr.relu %diamond {tgr.step = 0 : i64, tgr.lifetime = #tgr.lifetime<birth = 0, death = 2>}
// CHECK-NEXT:    %[[B:.*]] = tgr.relu %[[A]] {tgr.step = 1 : i64, tgr.lifetime = #tgr.lifetime<birth = 1, death = 3>}
// CHECK-NEXT:    %[[C:.*]] = tgr.sigmoid %[[A]] {tgr.step = 2 : i64, tgr.lifetime = #tgr.lifetime<birth = 2, death = 3>}
// CHECK-NEXT:    %[[D:.*]] = tgr.add %[[B]], %[[C]] {tgr.step = 3 : i64, tgr.lifetime = #tgr.lifetime<birth = 3, death = 3>}
// CHECK-NEXT:    func.return %[[D]]
func.func @main(%diamond: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %a = tgr.relu %diamond : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %b = tgr.relu %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %c = tgr.sigmoid %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = tgr.add %b, %c : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %d : tensor<1x1x4x4xf32>
}

// -----

// Residual block: c1 = conv(x); c2 = conv(c1); y = c2 + x. The weights are not steps.
//   step:  c1 0, c2 1, y 2
//   x:  born -1, used by c1 (0) and by the skip add (2) -> [-1, 2]
//   c1: [0, 1]; c2: [1, 2]; y: model output -> [2, 2]
// CHECK-LABEL: func.func @main(%residual: tensor<1x2x4x4xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = 2>})
// The weights print with no attribute dictionary: no tgr.step, no lifetime.
// CHECK-NEXT:    %[[W1:.*]] = tgr.weight dense<
// CHECK-NEXT:    %[[W2:.*]] = tgr.weight dense<
// CHECK-NEXT:    %[[C1:.*]] = tgr.conv %residual, %[[W1]] {pads = array<i64: 1, 1, 1, 1>, tgr.step = 0 : i64, tgr.lifetime = #tgr.lifetime<birth = 0, death = 1>}
// CHECK-NEXT:    %[[C2:.*]] = tgr.conv %[[C1]], %[[W2]] {pads = array<i64: 1, 1, 1, 1>, tgr.step = 1 : i64, tgr.lifetime = #tgr.lifetime<birth = 1, death = 2>}
// CHECK-NEXT:    %[[Y:.*]] = tgr.add %[[C2]], %residual {tgr.step = 2 : i64, tgr.lifetime = #tgr.lifetime<birth = 2, death = 2>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @main(%residual: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w1 = tgr.weight dense<1.0> : tensor<2x2x3x3xf32>
  %w2 = tgr.weight dense<0.5> : tensor<2x2x3x3xf32>
  %c1 = tgr.conv %residual, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tgr.conv %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %y = tgr.add %c2, %residual : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// Edge cases of the rule:
//   - %a is a model output whose last consumer is step 1: outputs live to the last
//     step (2) -> [0, 2];
//   - %dead has no user and is not returned: it dies where it is born -> [1, 1];
//   - %unused is an input nobody reads: [-1, -1];
//   - an argument's existing attributes are kept next to the lifetime.
//   steps: a 0, dead 1, b 2
// CHECK-LABEL: func.func @main(%edges: tensor<1x1x2x2xf32> {tgr.keep = 7 : i64, tgr.lifetime = #tgr.lifetime<birth = -1, death = 1>}, %unused: tensor<1x1x2x2xf32> {tgr.lifetime = #tgr.lifetime<birth = -1, death = -1>})
// CHECK-NEXT:    %[[A:.*]] = tgr.relu %edges {tgr.step = 0 : i64, tgr.lifetime = #tgr.lifetime<birth = 0, death = 2>}
// CHECK-NEXT:    %{{.*}} = tgr.sigmoid %edges {tgr.step = 1 : i64, tgr.lifetime = #tgr.lifetime<birth = 1, death = 1>}
// CHECK-NEXT:    %[[B:.*]] = tgr.relu %[[A]] {tgr.step = 2 : i64, tgr.lifetime = #tgr.lifetime<birth = 2, death = 2>}
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @main(%edges: tensor<1x1x2x2xf32> {tgr.keep = 7 : i64}, %unused: tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %a = tgr.relu %edges : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %dead = tgr.sigmoid %edges : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = tgr.relu %a : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return %a, %b : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}
