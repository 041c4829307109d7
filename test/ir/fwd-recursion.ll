; Forward mode, recursion: the derivative of a recursive function calls
; itself (the variant returning {primal, tangent}, which the requested
; tangent-only derivative calls once).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

; x^n = x^(n-1) x
define internal double @f(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %base, label %rec
base:
  ret double 1.0
rec:
  %m = sub i32 %n, 1
  %r = call double @f(double %x, i32 %m)
  %p = fmul double %r, %x
  ret double %p
}

define double @test(double %x, i32 %n) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double 1.0, i32 %n)
  ret double %r
}

; CHECK-LABEL: define double @test(
; CHECK-NEXT:    call double @__kinase_fwd_f(double %x, double 1.000000e+00, i32 %n)

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, i32 %n)
; CHECK:         call { double, double } @[[REC:__kinase_fwd_f[.0-9]*]](double %x, double %d.x, i32 %m)

; CHECK:       define internal { double, double } @[[REC]](double %x, double %d.x, i32 %n)
; CHECK:         [[PAIR:%.*]] = call { double, double } @[[REC]](double %x, double %d.x, i32 %m)
; CHECK-DAG:     [[R:%.*]] = extractvalue { double, double } [[PAIR]], 0
; CHECK-DAG:     [[DR:%.*]] = extractvalue { double, double } [[PAIR]], 1
; CHECK-DAG:     %p = fmul double [[R]], %x
; CHECK-DAG:     [[A:%.*]] = fmul double %x, [[DR]]
; CHECK-DAG:     [[B:%.*]] = fmul double [[R]], %d.x
; CHECK:         fadd double [[A]], [[B]]
