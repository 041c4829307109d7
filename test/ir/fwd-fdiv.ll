; Forward mode, fdiv: d(x / y) = dx / y - x dy / y^2, here as
; (1 / y) dx + ((-x / y) / y) dy.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define internal double @f(double %x, double %y) {
  %q = fdiv double %x, %y
  ret double %q
}

define double @test(double %x, double %dx, double %y, double %dy) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx, i32 %dup, double %y, double %dy)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, double %y, double %d.y)
; CHECK:         [[RECIP:%.*]] = fdiv double 1.000000e+00, %y
; CHECK:         [[TX:%.*]] = fmul double [[RECIP]], %d.x
; CHECK:         [[NEG:%.*]] = fneg double %x
; CHECK:         [[Q1:%.*]] = fdiv double [[NEG]], %y
; CHECK:         [[Q2:%.*]] = fdiv double [[Q1]], %y
; CHECK:         [[TY:%.*]] = fmul double [[Q2]], %d.y
; CHECK:         [[T:%.*]] = fadd double [[TX]], [[TY]]
; CHECK-NEXT:    ret double [[T]]
