; Reverse mode, a counted loop at a request's top level (a dot product of
; dup arrays x and y). The function writes no memory, so the reverse sweep
; may load x[i] and y[i] again, and i is an induction variable it can
; recompute from the iteration number: nothing is recorded per iteration.
; The augmented forward sweep counts iterations in the loop and records the
; count once per execution of the loop, in its exit block; the reverse sweep
; counts that counter down to 0 and accumulates into the shadows
; (d.x[i] += y[i] * seed, d.y[i] += x[i] * seed) with load/fadd/store.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)

; s = sum x[i] * y[i], i < n
define internal double @dot(ptr %x, ptr %y, i32 %n) {
entry:
  %pos = icmp sgt i32 %n, 0
  br i1 %pos, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %a = load double, ptr %px
  %b = load double, ptr %py
  %m = fmul double %a, %b
  %s.next = fadd double %s, %m
  %i.next = add nuw nsw i64 %i, 1
  %n64 = zext i32 %n to i64
  %done = icmp eq i64 %i.next, %n64
  br i1 %done, label %exit, label %loop
exit:
  %r = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  ret double %r
}

define void @test(ptr %x, ptr %dx, ptr %y, ptr %dy, i32 %n) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @dot, i32 %dup, ptr %x, ptr %dx, i32 %dup, ptr %y, ptr %dy, i32 %const, i32 %n)
  ret void
}

; The reverse sweep: one block reverses one iteration, k counts down from the
; recorded count; the loads are repeated, not read from the tape.
; CHECK-LABEL: define internal void @__kinase_rev_dot(
; CHECK-SAME:    ptr %x, ptr %d.x, ptr %y, ptr %d.y, i32 %n, double [[SEED:%[0-9a-z.]+]], ptr %tape)
; CHECK:         [[K:%.*]] = phi i64
; CHECK-DAG:     [[PX:%.*]] = getelementptr inbounds{{.*}} double, ptr %x, i64 [[K]]
; CHECK-DAG:     [[A:%.*]] = load double, ptr [[PX]]
; CHECK-DAG:     [[PY:%.*]] = getelementptr inbounds{{.*}} double, ptr %y, i64 [[K]]
; CHECK-DAG:     [[B:%.*]] = load double, ptr [[PY]]
; CHECK-DAG:     [[DA:%.*]] = fmul double [[B]], [[SEED]]
; CHECK-DAG:     [[DB:%.*]] = fmul double [[A]], [[SEED]]
; CHECK-DAG:     [[DPX:%.*]] = getelementptr inbounds{{.*}} double, ptr %d.x, i64 [[K]]
; CHECK-DAG:     [[OLDX:%.*]] = load double, ptr [[DPX]]
; CHECK-DAG:     [[NEWX:%.*]] = fadd double [[OLDX]], [[DA]]
; CHECK-DAG:     store double [[NEWX]], ptr [[DPX]]
; CHECK-DAG:     [[DPY:%.*]] = getelementptr inbounds{{.*}} double, ptr %d.y, i64 [[K]]
; CHECK-DAG:     [[OLDY:%.*]] = load double, ptr [[DPY]]
; CHECK-DAG:     [[NEWY:%.*]] = fadd double [[OLDY]], [[DB]]
; CHECK-DAG:     store double [[NEWY]], ptr [[DPY]]
; CHECK:         [[FIRST:%.*]] = icmp eq i64 [[K]], 0
; CHECK-NEXT:    br i1 [[FIRST]], label %{{.*}}, label %[[BACK:.*]]
; CHECK:       [[BACK]]:
; CHECK-NEXT:    [[PREV:%.*]] = add i64 [[K]], -1

; The augmented sweep: an iteration counter in the loop, no record in it.
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_dot(
; CHECK:       loop:
; CHECK:         %iteration = phi i64 {{.*}}0, %entry
; CHECK-NOT:     kinase.tape.push
; CHECK:         %iteration.next = add i64 %iteration, 1
; CHECK-NOT:     kinase.tape.push
; CHECK:         br i1 %done, label %[[EXIT:.*]], label %loop
; The exit block runs once a call: the trip count goes into the tape
; itself, no vector.
; CHECK:       [[EXIT]]:
; CHECK-NOT:     kinase.tape.push
; CHECK:         store i64 %iteration, ptr
