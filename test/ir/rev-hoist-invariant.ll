; Reverse mode: a value computed before a loop (c = *a, loaded once by the
; primal) is computed again once, where the reverse sweep enters the loop,
; not in each of its iterations (lib/reverse/primal.c): the adds into dx[i]
; in the reverse loop may alias a, so LLVM could not hoist the load itself.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
declare void @__enzyme_autodiff(ptr, ...)

; s = sum_i c x[i]^2
define internal double @f(ptr %x, ptr %a, i32 %n) {
entry:
  %c = load double, ptr %a
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i32 %i
  %xi = load double, ptr %p
  %t = fmul double %c, %xi
  %u = fmul double %t, %xi
  %s.next = fadd double %s, %u
  %i.next = add nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  %r = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  ret double %r
}

define void @test(ptr %x, ptr %dx, ptr %a, i32 %n) {
  %d = load i32, ptr @enzyme_dup
  %k = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %d, ptr %x, ptr %dx, i32 %k, ptr %a, i32 %k, i32 %n)
  ret void
}

; The loop body reloads x[i] (an operand of the adjoint) but not a[0]; a[0] is
; loaded once on the edge into the reverse loop.
; CHECK-LABEL: define internal void @__kinase_rev_f(
; CHECK: [[LOOP:rev[0-9]+]]:
; CHECK-NOT: load double, ptr %a
; CHECK: load double, ptr %{{[0-9]+}}
; CHECK-NOT: load double, ptr %a
; CHECK: br i1 %{{[0-9]+}}, label %rev.exit, label %[[LOOP]]
; CHECK: load double, ptr %a
; CHECK-NEXT: br label %[[LOOP]]
