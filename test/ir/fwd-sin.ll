; Forward mode, sin: the tangent is cos(x) dx, through llvm.cos, for the
; intrinsic and for the libm function alike.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @sin(double)

define internal double @f(double %x) {
  %s = call double @llvm.sin.f64(double %x)
  ret double %s
}

define internal double @g(double %x) {
  %s = call double @sin(double %x)
  ret double %s
}

define double @test(double %x, double %dx) {
  %dup = load i32, ptr @enzyme_dup
  %a = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx)
  %b = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %dup, double %x, double %dx)
  %r = fadd double %a, %b
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x)
; CHECK-NEXT:    [[COS:%.*]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    [[T:%.*]] = fmul double [[COS]], %d.x
; CHECK-NEXT:    ret double [[T]]

; CHECK-LABEL: define internal double @__kinase_fwd_g(double %x, double %d.x)
; CHECK:         [[COS:%.*]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    [[T:%.*]] = fmul double [[COS]], %d.x
; CHECK-NEXT:    ret double [[T]]

; CHECK: declare double @llvm.cos.f64(double)
