; Reverse mode, the request: each __enzyme_autodiff call becomes a call of
; the augmented forward sweep __kinase_aug_f, which returns {primal result,
; tape}, then a call of the reverse sweep __kinase_rev_f with the same
; arguments (markers dropped), the seed 1.0 for the adjoint of a float
; result, and the tape. The reverse sweep returns a struct of the adjoints
; of the enzyme_out parameters; a single one is the request's result. The
; marker loads are erased and no __enzyme_autodiff call is left.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_out = external global i32
@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)

define internal double @f(double %x, double %y) {
  %p = fmul double %x, %y
  ret double %p
}

define double @test(double %x, double %y) {
  %out = load i32, ptr @enzyme_out
  %const = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %out, double %x, i32 %const, double %y)
  ret double %d
}

; CHECK-LABEL: define double @test(double %x, double %y)
; CHECK-NOT:     load i32, ptr @enzyme
; CHECK-NOT:     __enzyme_autodiff
; CHECK:         [[AUG:%.*]] = call { double, ptr } @__kinase_aug_f(double %x, double %y{{.*}})
; CHECK-NEXT:    [[TAPE:%.*]] = extractvalue { double, ptr } [[AUG]], 1
; CHECK-NEXT:    [[GRADS:%.*]] = call { double } @__kinase_rev_f(double %x, double %y, double 1.000000e+00, ptr [[TAPE]])
; CHECK-NEXT:    [[DX:%.*]] = extractvalue { double } [[GRADS]], 0
; CHECK-NEXT:    ret double [[DX]]
; CHECK-NEXT:  }

; The reverse sweep: (primals, seed, tape) -> {adjoints of the out params}.
; f records nothing (x and y come back as arguments): its tape is null,
; neither allocated nor freed.
; CHECK-LABEL: define internal { double } @__kinase_rev_f(double %x, double %y, double %{{.*}}, ptr %tape)
; CHECK-NOT:     @free
; CHECK:         ret { double }

; The augmented forward sweep: (primals) -> {result, tape}.
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x, double %y{{.*}})
; CHECK-NOT:     @calloc
; CHECK:         %p = fmul double %x, %y
; CHECK:         insertvalue { double, ptr } {{.*}}, ptr null, 1
; CHECK:         ret { double, ptr }

; CHECK-NOT:   __enzyme_autodiff(
