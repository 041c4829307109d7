; Reverse mode, sincos(x, &s, &c), which stores its results: the copy being
; differentiated gets sin and cos in its place before simplification, so
; the stores go, s and c are registers, and the math rules do the rest.
; The augmented sweep computes sin and cos, and no sincos is left.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)
declare void @sincos(double, ptr, ptr)

define internal double @f(double %x) {
  %s = alloca double
  %c = alloca double
  call void @sincos(double %x, ptr %s, ptr %c)
  %sv = load double, ptr %s
  %cv = load double, ptr %c
  %r = fmul double %sv, %cv
  ret double %r
}

define double @test(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; The user's function keeps its call.
; CHECK-LABEL: define internal double @f(double %x)
; CHECK:         call void @sincos(double %x, ptr %s, ptr %c)

; d/dx sin x cos x = cos x cos x - sin x sin x
; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-DAG:     call double @llvm.cos.f64(double %x)
; CHECK-DAG:     call double @llvm.sin.f64(double %x)
; CHECK:         fsub double
; CHECK:         ret { double }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x{{.*}})
; CHECK-NOT:     @sincos
; CHECK:         [[S:%.*]] = call double @llvm.sin.f64(double %x)
; CHECK-NEXT:    [[C:%.*]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    %r = fmul double [[S]], [[C]]
; CHECK-NOT:     @sincos
; CHECK:         ret { double, ptr }
