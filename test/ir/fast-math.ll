; A derivative takes the algebraic fast-math flags (reassoc, nsz, arcp,
; contract, afn) that every float operation of its primal has, so that
; -ffast-math code's derivative gets the same rewrites; never nnan or ninf,
; which a derivative may break where its primal does not. A primal whose
; operations disagree gives only what they share (a primal operation
; computed again keeps its own).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_out = external global i32

declare { double, double } @__enzyme_autodiff(ptr, ...)

define internal double @fast(double %x, double %y) {
  %p = fmul fast double %x, %y
  %q = fdiv fast double %p, %y
  %s = fadd fast double %q, %p
  ret double %s
}

define internal double @mixed(double %x, double %y) {
  %p = fmul reassoc contract double %x, %y
  %q = fmul contract arcp double %p, %x
  ret double %q
}

define { double, double } @test_fast(double %x, double %y) {
  %out = load i32, ptr @enzyme_out
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @fast, i32 %out, double %x, i32 %out, double %y)
  ret { double, double } %r
}

define { double, double } @test_mixed(double %x, double %y) {
  %out = load i32, ptr @enzyme_out
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @mixed, i32 %out, double %x, i32 %out, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_fast(
; CHECK-NOT:   nnan
; CHECK-NOT:   ninf
; CHECK:       fmul reassoc nsz arcp contract afn double
; CHECK-NOT:   nnan
; CHECK-NOT:   ninf
; CHECK:       ret
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_mixed(
; CHECK-NOT:   arcp
; CHECK:       fmul contract double %x, %0
; CHECK-NOT:   arcp
; CHECK:       ret
