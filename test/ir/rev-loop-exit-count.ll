; Reverse mode: an inner loop's iterations, computed in the reverse sweep
; from its exit test (j < m, j starting at the outer index i, nsw) instead
; of recorded once per outer iteration (lib/reverse/tripcount.c). With x
; only read, the derivative of s = sum_i sum_{j=i}^{m-1} x[i] x[j] records
; no inner loop counts: the reverse inner loop restarts at the iteration
; computed from i and m alone.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
declare void @__enzyme_autodiff(ptr, ...)

define internal double @f(ptr %x, i32 %n, i32 %m) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %outer, label %done
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  %pi = getelementptr inbounds double, ptr %x, i32 %i
  %xi = load double, ptr %pi
  %enter = icmp slt i32 %i, %m
  br i1 %enter, label %inner, label %outer.latch
inner:
  %j = phi i32 [ %i, %outer ], [ %j.next, %inner ]
  %t = phi double [ %s, %outer ], [ %t.next, %inner ]
  %pj = getelementptr inbounds double, ptr %x, i32 %j
  %xj = load double, ptr %pj
  %p = fmul double %xi, %xj
  %t.next = fadd double %t, %p
  %j.next = add nsw i32 %j, 1
  %more = icmp slt i32 %j.next, %m
  br i1 %more, label %inner, label %inner.exit
inner.exit:
  %t.out = phi double [ %t.next, %inner ]
  br label %outer.latch
outer.latch:
  %s.inner = phi double [ %s, %outer ], [ %t.out, %inner.exit ]
  %i.next = add nsw i32 %i, 1
  %again = icmp slt i32 %i.next, %n
  br i1 %again, label %outer, label %done
done:
  %r = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  ret double %r
}

define void @test(ptr %x, ptr %dx, i32 %n, i32 %m) {
  %d = load i32, ptr @enzyme_dup
  %c = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %d, ptr %x, ptr %dx, i32 %c, i32 %n, i32 %c, i32 %m)
  ret void
}

; The inner loop's count: m - (i + 1) steps, none when m <= i + 1. The
; outer loop's record holds only which way its latch was reached (4 bytes).
; CHECK-LABEL: define internal void @__kinase_rev_f(
; CHECK:         [[FIRST:%[0-9a-z.]+]] = add i32 {{%[0-9a-z.]+}}, 1
; CHECK-NEXT:    [[X0:%[0-9a-z.]+]] = sext i32 [[FIRST]] to i64
; CHECK-NEXT:    [[D:%[0-9a-z.]+]] = sub nsw i64 {{%[0-9a-z.]+}}, [[X0]]
; CHECK-NEXT:    call i64 @llvm.smax.i64(i64 [[D]], i64 0)
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(
; CHECK-NOT:     kinase.tape.push
; CHECK:         kinase.tape.push(ptr nonnull {{%[0-9]+}}, i64 4)
; CHECK-NEXT:    store i32 %from
; CHECK-NOT:     kinase.tape.push
; CHECK:         ret { double, ptr }
