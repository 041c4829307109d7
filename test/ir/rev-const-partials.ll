; Reverse mode, activity: a float computed from Const memory alone (t =
; c[k] * c[k+1], c enzyme_const) has no adjoint, even where it meets the
; active x. Its partials would go nowhere, and computing them would record
; c[k] and c[k+1] on the tape each iteration (the loop overwrites c). The
; derivative of s = sum (x + t) records nothing: dx = n * ds.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)

define internal double @f(double %x, ptr %c, i64 %n) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %pa = getelementptr inbounds double, ptr %c, i64 %k
  %a = load double, ptr %pa
  %k.next = add nuw i64 %k, 1
  %pb = getelementptr inbounds double, ptr %c, i64 %k.next
  %b = load double, ptr %pb
  %t = fmul double %a, %b
  store double %t, ptr %pa
  %u = fadd double %x, %t
  %s.next = fadd double %s, %u
  %done = icmp eq i64 %k.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

define double @test(double %x, ptr %c, i64 %n) {
  %k = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %k, ptr %c, i64 %n)
  ret double %d
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-NOT:     fmul
; CHECK:         ret { double }
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK-NOT:     kinase.tape.push
; CHECK:         ret { double, ptr }
