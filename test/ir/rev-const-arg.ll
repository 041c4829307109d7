; Reverse mode, an enzyme_const argument and integer index arithmetic: they
; get no adjoint and no reverse code. The constant c has no shadow
; parameter and no gradient (the reverse sweep returns nothing); sin(c)
; contributes nothing, so no cos appears. The index i + 1 is integer code:
; the reverse sweep recomputes it from %i to address the shadow d.x, and does
; nothing else with it. The only reverse arithmetic is seed * c, added into
; d.x[i + 1].
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)

; x[i + 1] c + sin(c)
define internal double @f(ptr %x, double %c, i32 %i) {
  %j = add nsw i32 %i, 1
  %k = sext i32 %j to i64
  %p = getelementptr inbounds double, ptr %x, i64 %k
  %v = load double, ptr %p
  %m = fmul double %v, %c
  %s = call double @llvm.sin.f64(double %c)
  %t = fadd double %m, %s
  ret double %t
}

define void @test(ptr %x, ptr %dx, double %c, i32 %i) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %dup, ptr %x, ptr %dx, i32 %const, double %c, i32 %const, i32 %i)
  ret void
}

; CHECK-LABEL: define void @test(
; CHECK:         call void @__kinase_rev_f(ptr %x, ptr %dx, double %c, i32 %i, double 1.000000e+00, ptr

; CHECK-LABEL: define internal void @__kinase_rev_f(
; CHECK-SAME:    ptr %x, ptr %d.x, double %c, i32 %i, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK-NOT:     @llvm.cos
; CHECK-DAG:     [[I:%.*]] = sext i32 %i to i64
; CHECK-DAG:     [[DV:%.*]] = fmul double %c, [[SEED]]
; CHECK:         getelementptr {{.*}}ptr %d.x, i64 [[I]]
; CHECK:         [[OLD:%.*]] = load double, ptr [[AT:%.*]], align 8
; CHECK-NEXT:    [[NEW:%.*]] = fadd double [[OLD]], [[DV]]
; CHECK-NEXT:    store double [[NEW]], ptr [[AT]], align 8
; CHECK-NOT:     fmul
; CHECK-NOT:     fadd
; CHECK-NOT:     @llvm.cos
; CHECK:         ret void
; CHECK-NEXT:  }
