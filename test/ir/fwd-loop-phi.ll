; Forward mode, a loop: the varied phi gets a tangent phi in the same
; header, zero on entry and the tangent of the next value on the back edge;
; the integer induction variable gets none.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

; x^n by repeated multiplication (n >= 1).
define internal double @f(double %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 1.0, %entry ], [ %acc.next, %loop ]
  %acc.next = fmul double %acc, %x
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %acc.next
}

define double @test(double %x, i32 %n) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double 1.0, i32 %n)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, i32 %n)
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
; CHECK-NEXT:    %acc = phi double [ 1.000000e+00, %entry ], [ %acc.next, %loop ]
; CHECK-NEXT:    [[DACC:%.*]] = phi double [ 0.000000e+00, %entry ], [ [[DNEXT:%.*]], %loop ]
; CHECK-NOT:     phi
; CHECK:         %acc.next = fmul double %acc, %x
; CHECK-DAG:     [[A:%.*]] = fmul double %x, [[DACC]]
; CHECK-DAG:     [[B:%.*]] = fmul double %acc, %d.x
; CHECK:         [[DNEXT]] = fadd double [[A]], [[B]]
; CHECK:       exit:
; CHECK-NEXT:    ret double [[DNEXT]]
