; Reverse mode, a store through a dup pointer: the stored value's adjoint is
; what the shadow holds when the reverse sweep gets there. The reverse sweep
; reads the shadow d.out, zeroes it (the old value of *out is overwritten,
; so it has no adjoint), and propagates: d x = 3 * d.out. The out gradient
; of x is returned.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_out = external global i32

declare double @__enzyme_autodiff(ptr, ...)

; *out = 3 x
define internal void @f(double %x, ptr %out) {
  %t = fmul double %x, 3.0
  store double %t, ptr %out
  ret void
}

define double @test(double %x, ptr %out, ptr %dout) {
  %o = load i32, ptr @enzyme_out
  %dup = load i32, ptr @enzyme_dup
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %o, double %x, i32 %dup, ptr %out, ptr %dout)
  ret double %d
}

; CHECK-LABEL: define double @test(
; CHECK:         call { double } @__kinase_rev_f(double %x, ptr %out, ptr %dout, ptr

; CHECK-LABEL: define internal { double } @__kinase_rev_f(double %x, ptr %out, ptr %d.out, ptr %tape)
; CHECK-NEXT:  rev.entry:
; CHECK-NEXT:    [[A:%.*]] = load double, ptr %d.out
; CHECK-NEXT:    store double 0.000000e+00, ptr %d.out
; CHECK-NEXT:    [[DX:%.*]] = fmul double [[A]], 3.000000e+00
; The store ends f and the two sweeps run back to back (a request): it is
; made once the reverse sweep is done (lib/reverse/final.c), its value
; computed again there.
; CHECK-NEXT:    [[T:%.*]] = fmul double %x, 3.000000e+00
; CHECK-NEXT:    store double [[T]], ptr %out
; CHECK-NEXT:    [[DX0:%.*]] = fadd double [[DX]], 0.000000e+00
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double } poison, double [[DX0]], 0
; CHECK-NEXT:    ret { double } [[R]]

; The augmented sweep stores nothing: the primal's store waits for the end
; of the reverse one, and the shadow is written by the caller, who seeds it.
; CHECK-LABEL: define internal { ptr } @__kinase_aug_f(double %x, ptr %out, ptr %d.out{{.*}})
; CHECK-NOT:     store
; CHECK:         ret { ptr }
