; Reverse mode, two enzyme_out scalars: the reverse sweep returns
; { double, double }, their adjoints in parameter order, and the request
; delivers them field by field in the struct the caller declared. x's
; adjoint sums its two uses: exp(x) seed + y seed. exp(x), its own
; derivative, is outside any loop: the reverse sweep calls exp again rather
; than keep it on a tape, which f would then need (allocated on every call).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_out = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.exp.f64(double)

; exp(x) + x y
define internal double @f(double %x, double %y) {
  %e = call double @llvm.exp.f64(double %x)
  %p = fmul double %x, %y
  %s = fadd double %e, %p
  ret double %s
}

define { double, double } @test(double %x, double %y) {
  %o = load i32, ptr @enzyme_out
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %o, double %x, i32 %o, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define { double, double } @test(double %x, double %y)
; CHECK:         [[G:%.*]] = call { double, double } @__kinase_rev_f(double %x, double %y, double 1.000000e+00, ptr
; CHECK-DAG:     [[DX:%.*]] = extractvalue { double, double } [[G]], 0
; CHECK-DAG:     [[DY:%.*]] = extractvalue { double, double } [[G]], 1
; CHECK:         [[R1:%.*]] = insertvalue { double, double } poison, double [[DX]], 0
; CHECK-NEXT:    [[R2:%.*]] = insertvalue { double, double } [[R1]], double [[DY]], 1
; CHECK-NEXT:    ret { double, double } [[R2]]

; CHECK-LABEL: define internal { double, double } @__kinase_rev_f(
; CHECK-SAME:    double %x, double %y, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK-DAG:     [[YS:%.*]] = fmul double %y, [[SEED]]
; CHECK-DAG:     [[E:%.*]] = call double @llvm.exp.f64(double %x)
; CHECK-DAG:     [[ES:%.*]] = fmul double [[E]], [[SEED]]
; CHECK-DAG:     [[XADJ:%.*]] = fadd double [[YS]], [[ES]]
; CHECK-DAG:     [[YADJ:%.*]] = fmul double %x, [[SEED]]
; CHECK:         [[X0:%.*]] = fadd double [[XADJ]], 0.000000e+00
; CHECK-NEXT:    [[S1:%.*]] = insertvalue { double, double } poison, double [[X0]], 0
; CHECK-NEXT:    [[Y0:%.*]] = fadd double [[YADJ]], 0.000000e+00
; CHECK-NEXT:    [[S2:%.*]] = insertvalue { double, double } [[S1]], double [[Y0]], 1
; CHECK-NEXT:    ret { double, double } [[S2]]

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x, double %y{{.*}})
; CHECK-NOT:     @calloc
; CHECK:         %e = call double @llvm.exp.f64(double %x)
; CHECK-NOT:     store
; CHECK:         insertvalue { double, ptr } {{.*}}, ptr null, 1
