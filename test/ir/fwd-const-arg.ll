; Forward mode, an enzyme_const argument: it has no shadow parameter and no
; tangent code depends on it alone (sin(c) contributes nothing).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.sin.f64(double)

; x c + sin(c)
define internal double @f(double %x, double %c) {
  %p = fmul double %x, %c
  %s = call double @llvm.sin.f64(double %c)
  %t = fadd double %p, %s
  ret double %t
}

define double @test(double %x, double %dx, double %c) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx, i32 %const, double %c)
  ret double %r
}

; CHECK-LABEL: define double @test(
; CHECK-NEXT:    [[R:%.*]] = call double @__kinase_fwd_f(double %x, double %dx, double %c)

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, double %c)
; CHECK-NOT:     @llvm.cos
; CHECK-NOT:     @llvm.sin
; CHECK:         [[T:%.*]] = fmul double %c, %d.x
; CHECK-NEXT:    ret double [[T]]
; CHECK-NEXT:  }
; CHECK-NOT:   @llvm.cos
