; A double passed to a function as its bits in an integer: the call goes to
; a copy of the callee that takes the double, so reverse mode, which keeps no
; derivatives in integers, differentiates through it.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)

define internal double @back(i64 %u, i64 %tag) noinline {
  %d = bitcast i64 %u to double
  %t = sitofp i64 %tag to double
  %r = fmul double %d, %t
  ret double %r
}

define internal double @f(double %x) {
  %u = bitcast double %x to i64
  %r = call double @back(i64 %u, i64 3)
  ret double %r
}

define double @test(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_f(
; CHECK: call { double } @__kinase_rev_kinase.floatbits.back.f_(double %x, i64 3, double
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_kinase.floatbits.back.f_(double %u, i64 %tag,
; CHECK: sitofp i64 %tag to double
