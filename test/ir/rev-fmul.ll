; Reverse mode, fmul: the product rule transposed. The reverse sweep
; multiplies the seed (the result's adjoint) by the other operand; the out
; adjoints are returned in a struct, in parameter order. Nothing is recorded:
; both factors are arguments, available to the reverse sweep as they are.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_out = external global i32

declare double @__enzyme_autodiff(ptr, ...)

define internal double @f(double %x, double %y) {
  %p = fmul double %x, %y
  ret double %p
}

define { double, double } @test(double %x, double %y) {
  %out = load i32, ptr @enzyme_out
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %out, double %x, i32 %out, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define internal { double, double } @__kinase_rev_f(
; CHECK-SAME:    double %x, double %y, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK-DAG:     [[DX:%.*]] = fmul double %y, [[SEED]]
; CHECK-DAG:     [[DY:%.*]] = fmul double %x, [[SEED]]
; CHECK:         [[DX0:%.*]] = fadd double [[DX]], 0.000000e+00
; CHECK-NEXT:    [[R1:%.*]] = insertvalue { double, double } poison, double [[DX0]], 0
; CHECK-NEXT:    [[DY0:%.*]] = fadd double [[DY]], 0.000000e+00
; CHECK-NEXT:    [[R2:%.*]] = insertvalue { double, double } [[R1]], double [[DY0]], 1
; CHECK-NEXT:    ret { double, double } [[R2]]

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x, double %y{{.*}})
; CHECK-NOT:     kinase.tape.push
; CHECK:         ret { double, ptr }
