; Reverse mode over reverse mode: @dg computes a gradient itself, and is
; differentiated again. The augmented sweep of @__kinase_aug_g returns
; {double, ptr} (g's result and tape): a result holding a pointer, so the
; second-order augmented sweep returns its shadow beside it, and the tape's
; records get the adjoints they carry.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)

define internal double @g(double %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ %x, %entry ], [ %s, %loop ]
  %s = call double @llvm.sin.f64(double %acc)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s
}

define internal double @dg(double %x, i64 %n) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @g, double %x, i64 %n)
  ret double %d
}

define double @test(double %x, i64 %n) {
  %dd = call double (ptr, ...) @__enzyme_autodiff(ptr @dg, double %x, i64 %n)
  ret double %dd
}

; The first-order pair calls the second-order ones; the inner reverse sweep
; takes the tape with its shadow (dup).
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_dg(
; CHECK:         call { { double, ptr }, { double, ptr }, ptr } @__kinase_aug___kinase_aug_g(
; CHECK:         call { { double }, ptr } @__kinase_aug___kinase_rev_g(double %x, i64 %n, double 1.000000e+00, ptr [[TAPE:%.*]], ptr [[DTAPE:%.*]]{{.*}})
; CHECK-LABEL: define internal { double } @__kinase_rev___kinase_aug_g(
; CHECK-LABEL: define internal { { double, ptr }, { double, ptr }, ptr } @__kinase_aug___kinase_aug_g(
; CHECK:         ret { { double, ptr }, { double, ptr }, ptr }
