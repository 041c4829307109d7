; Reverse mode, a call of another function of the module, g, with an active
; float argument: the augmented forward sweep calls __kinase_aug_g, takes
; g's result from it and records g's tape (here with the whole {result,
; tape} pair it returned); the reverse sweep, where the call is reversed,
; calls __kinase_rev_g with g's arguments (recomputed: 2x), the adjoint of
; g's result and g's tape, and propagates the adjoint of g's argument
; returned in g's struct of out adjoints (times 2, for 2x).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)

define internal double @g(double %u) {
  %q = fmul double %u, %u
  ret double %q
}

; g(2 x) + x
define internal double @f(double %x) {
  %t = fmul double %x, 2.0
  %c = call double @g(double %t)
  %r = fadd double %c, %x
  ret double %r
}

define double @test(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-SAME:    double %x, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK:         [[T:%.*]] = fmul double %x, 2.000000e+00
; CHECK:         [[GRADS:%.*]] = call { double } @__kinase_rev_g(double [[T]], double [[SEED]], ptr [[GTAPE:%[0-9a-z.]+]])
; CHECK-NEXT:    [[DT:%.*]] = extractvalue { double } [[GRADS]], 0
; CHECK-NEXT:    [[DT2:%.*]] = fmul double [[DT]], 2.000000e+00
; CHECK-NEXT:    fadd double [[SEED]], [[DT2]]

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x{{.*}})
; CHECK:         %t = fmul double %x, 2.000000e+00
; CHECK-NEXT:    [[AUG:%.*]] = call { double, ptr } @__kinase_aug_g(double %t{{.*}})
; CHECK-NEXT:    [[C:%.*]] = extractvalue { double, ptr } [[AUG]], 0
; CHECK-NEXT:    [[GTAPE:%.*]] = extractvalue { double, ptr } [[AUG]], 1
; CHECK-NEXT:    %r = fadd double [[C]], %x
; Only g's tape is recorded, not its whole result; f's only block runs once
; a call, so its record is the tape itself, not a growing vector.
; CHECK-NOT:     kinase.tape.push
; CHECK:         store ptr [[GTAPE]], ptr

; g's own pair: d u = 2 u * seed.
; CHECK-LABEL: define internal { double } @__kinase_rev_g(
; CHECK-SAME:    double %u, double [[GSEED:%[0-9a-z.]+]], ptr %tape)
; CHECK:         [[TWICE:%.*]] = fadd double [[GSEED]], [[GSEED]]
; CHECK-NEXT:    fmul double %u, [[TWICE]]

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_g(double %u{{.*}})
; CHECK:         %q = fmul double %u, %u
