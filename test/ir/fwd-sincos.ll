; Forward mode, llvm.sincos (what clang emits for sincos without errno):
; a {sin x, cos x} pair, differentiated through its model, whose tangent
; is {cos x dx, -sin x dx}.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare { double, double } @llvm.sincos.f64(double)

define internal double @f(double %x) {
  %sc = call { double, double } @llvm.sincos.f64(double %x)
  %s = extractvalue { double, double } %sc, 0
  %c = extractvalue { double, double } %sc, 1
  %r = fadd double %s, %c
  ret double %r
}

define double @test(double %x, double %dx) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x)
; CHECK:         call { double, double } @__kinase_fwd_kinase.model.llvm.sincos.f64(double %x, double %d.x)

; CHECK-LABEL: define internal { double, double } @__kinase_fwd_kinase.model.llvm.sincos.f64(
; CHECK-SAME:    double %0, double [[DX:%[0-9a-z.]+]])
; CHECK-DAG:     [[COS:%.*]] = call double @llvm.cos.f64(double %0)
; CHECK-DAG:     [[SIN:%.*]] = call double @llvm.sin.f64(double %0)
; CHECK-DAG:     fmul double [[COS]], [[DX]]
; CHECK-DAG:     fneg double [[SIN]]
; CHECK:         ret { double, double }
