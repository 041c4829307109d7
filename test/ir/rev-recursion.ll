; Reverse mode, recursion. The request calls the pair generated for a
; request (__kinase_aug_f, __kinase_rev_f: the two sweeps run back to back,
; nothing runs between them). Inside f, the recursive call is not at a
; request's top level: other code runs between its two sweeps, so it gets a
; second pair of its own, generated for calls (a suffixed name,
; __kinase_aug_f.N / __kinase_rev_f.N), which calls itself. The two pairs
; differ only in whether loads of arguments may be repeated in the reverse
; sweep; f loads nothing, so here their bodies are the same.
;
; In each aug, the recursive call records r (needed by the reverse of r x)
; and the callee's tape.
; In each rev, the recursive rev gets the adjoint of r, x * seed, and the
; callee's tape; d x = r * seed + what the callee returns.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_out = external global i32
@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)

; x^n = x^(n-1) x
define internal double @f(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %base, label %rec
base:
  ret double 1.0
rec:
  %m = sub i32 %n, 1
  %r = call double @f(double %x, i32 %m)
  %p = fmul double %r, %x
  ret double %p
}

define double @test(double %x, i32 %n) {
  %o = load i32, ptr @enzyme_out
  %const = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %o, double %x, i32 %const, i32 %n)
  ret double %d
}

; CHECK-LABEL: define double @test(
; CHECK:         call { double, ptr } @__kinase_aug_f(double %x, i32 %n{{.*}})
; CHECK:         call { double } @__kinase_rev_f(double %x, i32 %n, double 1.000000e+00, ptr

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-SAME:    double %x, i32 %n, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK-DAG:     [[R:%.*]] = load double, ptr
; CHECK-DAG:     [[DR:%.*]] = fmul double %x, [[SEED]]
; CHECK-DAG:     [[M:%.*]] = add i32 %n, -1
; CHECK:         [[GRADS:%.*]] = call { double } @[[REV:__kinase_rev_f\.[0-9]+]](double %x, i32 [[M]], double [[DR]], ptr {{%[0-9a-z.]+}})
; CHECK-DAG:     [[DX1:%.*]] = fmul double [[R]], [[SEED]]
; CHECK-DAG:     [[DX2:%.*]] = extractvalue { double } [[GRADS]], 0
; CHECK:         fadd double [[DX1]], [[DX2]]

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x, i32 %n{{.*}})
; CHECK:       rec:
; CHECK-NEXT:    %m = add i32 %n, -1
; CHECK-NEXT:    [[PAIR:%.*]] = call { double, ptr } @[[AUG:__kinase_aug_f\.[0-9]+]](double %x, i32 %m)
; CHECK-NEXT:    %r{{[0-9]*}} = extractvalue { double, ptr } [[PAIR]], 0
; Each call has a tape of its own; the callee's tape goes into the caller's.
; CHECK:         store ptr %tape, ptr

; The variant for calls calls itself, in both sweeps.
; CHECK:       define internal { double } @[[REV]](
; CHECK:         call { double } @[[REV]](double %x, i32 {{.*}}, ptr

; CHECK:       define internal { double, ptr } @[[AUG]](double %x, i32 %n)
; CHECK:         call { double, ptr } @[[AUG]](double %x, i32 %m)
