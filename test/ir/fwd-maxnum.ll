; Forward mode, max: the tangent is the picked argument's tangent, chosen by
; a select, never 0 * tangent (which is NaN for an infinite tangent).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.maxnum.f64(double, double)

define internal double @f(double %x, double %y) {
  %m = call double @llvm.maxnum.f64(double %x, double %y)
  ret double %m
}

define double @test(double %x, double %y) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, double %y, double 0.0)
  ret double %d
}

; CHECK-LABEL: define internal {{.*}} @__kinase_fwd_f(double %x, double %d.x, double %y, double %d.y)
; CHECK-NOT: fmul
; CHECK-DAG: select i1 {{.*}}double {{.*}}%d.x
; CHECK-DAG: select i1 {{.*}}double {{.*}}%d.y
; CHECK-NOT: fmul
; CHECK: ret
