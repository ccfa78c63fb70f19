// RUN: tigris-opt %s --verify-diagnostics -p 'partition-spatial{budget=600 align=16}' | filecheck %s --check-prefix=NOSTAGES
// RUN: tigris-opt %s --verify-diagnostics -p 'tile-chains{budget=600 align=16}' | filecheck %s --check-prefix=NOSTAGES
// RUN: tigris-opt %s --verify-diagnostics -p 'partition-temporal{align=16}' | filecheck %s --check-prefix=NOBUDGET
// RUN: tigris-opt %s --verify-diagnostics -p 'tigris-plan{budget=600 align=24}' | filecheck %s --check-prefix=ALIGN
// RUN: tigris-opt %s --verify-diagnostics -p 'memory-timeline{align=0}' | filecheck %s --check-prefix=ALIGN0

// Errors a user can trigger are PassFailedExceptions with a message. The spatial and
// chain passes read the stages written by partition-temporal; the planning passes need a
// positive budget and a power-of-two alignment.

// NOSTAGES: run partition-temporal first: @main has no tgr.stages
// NOBUDGET: the planning passes need budget=<bytes> (> 0)
// ALIGN: align=24 is not a power of two
// ALIGN0: align=0 is not a power of two
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %r = tgr.relu %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  func.return %r : tensor<1x1x4x4xf32>
}
