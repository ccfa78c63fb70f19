// `--pass-pipeline` takes MLIR's syntax and means the same as `-p`.
// RUN: tigris-opt %s --pass-pipeline='builtin.module(canonicalize)' | filecheck %s
// RUN: tigris-opt %s -p canonicalize | filecheck %s
// RUN: tigris-opt %s --pass-pipeline='builtin.module(dce, canonicalize)' | filecheck %s
// RUN: tigris-opt %s --pass-pipeline='builtin.module()' | filecheck %s --check-prefix=NOOP

// Nested anchors do not exist here: every pass runs on the module.
// RUN: not tigris-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' 2>&1 | filecheck %s --check-prefix=NESTED
// NESTED: error: --pass-pipeline: nested anchor 'func.func(...)' is not supported; every pass runs on builtin.module
// RUN: not tigris-opt %s --pass-pipeline='func.func(canonicalize)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// ANCHOR: error: --pass-pipeline: unsupported anchor 'func.func'; use 'builtin.module(...)' (all TiGrIS passes run on the module)
// RUN: not tigris-opt %s --pass-pipeline='builtin.module(canonicalize' 2>&1 | filecheck %s --check-prefix=UNCLOSED
// UNCLOSED: error: --pass-pipeline: missing ')' closing 'builtin.module('
// RUN: not tigris-opt %s -p dce --pass-pipeline='builtin.module(dce)' 2>&1 | filecheck %s --check-prefix=BOTH
// BOTH: error: give either -p or --pass-pipeline, not both
// RUN: not tigris-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: Unrecognized passes: ['no-such-pass']

// CHECK-LABEL: func.func @dead_relu
// CHECK-NOT:     tgr.relu
// CHECK:         func.return %x
// NOOP:          tgr.relu
func.func @dead_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %unused = tgr.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// RUN: not tigris-opt %s -p 'dce,,canonicalize' 2>&1 | filecheck %s --check-prefix=MALFORMED
// MALFORMED: error: dce,,canonicalize ^ Expected pass name here
