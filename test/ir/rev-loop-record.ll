; Reverse mode, a loop whose body loads memory the function also writes
; (x[i] = x[i] * x[i], in place): when the reverse sweep runs, x[i] holds the
; square, not the value the forward sweep loaded, so the load cannot be
; repeated. The augmented forward sweep records it, one record per
; iteration: a tape push inside the loop body. The reverse sweep reads
; record k of the loop block (at k times the vector's stride), the adjoint of the store is read from the shadow
; d.x[i] and zeroed, and d.x[i] receives 2 v times it.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_autodiff(ptr, ...)

define internal void @square(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  store double %sq, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define void @test(ptr %x, ptr %dx, i64 %n) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_autodiff(ptr @square, i32 %dup, ptr %x, ptr %dx, i32 %const, i64 %n)
  ret void
}

; A void function: no seed, just the tape.
; CHECK-LABEL: define void @test(
; CHECK:         call void @__kinase_rev_square(ptr %x, ptr %dx, i64 %n, ptr

; CHECK-LABEL: define internal void @__kinase_rev_square(ptr %x, ptr %d.x, i64 %n, ptr %tape)
; CHECK:         [[DP:%.*]] = getelementptr inbounds{{.*}} double, ptr %d.x, i64 [[K:%.*]]
; CHECK-NEXT:    [[A:%.*]] = load double, ptr [[DP]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[DP]]
; CHECK-NEXT:    [[PREV:%.*]] = add i64 {{.*}}, -1
; CHECK-NEXT:    [[OFFSET:%.*]] = mul i64 [[PREV]], [[STRIDE:%.*]]
; CHECK-NEXT:    [[AT:%.*]] = getelementptr i8, ptr {{.*}}, i64 [[OFFSET]]
; CHECK-NEXT:    [[V:%.*]] = load double, ptr [[AT]]
; CHECK-NEXT:    [[TWICE:%.*]] = fadd double [[A]], [[A]]
; CHECK-NEXT:    fmul double [[V]], [[TWICE]]
; CHECK:         store double {{.*}}, ptr [[DP]]
; CHECK:         icmp eq i64 [[K]], 0

; The loaded value v is recorded in every iteration.
; CHECK-LABEL: define internal { ptr } @__kinase_aug_square(ptr %x, ptr %d.x, i64 %n{{.*}})
; CHECK:       loop:
; CHECK:         %v = load double, ptr %p
; CHECK:         store double %sq, ptr %p
; CHECK:         [[REC:%.*]] = call ptr @kinase.tape.push(ptr {{.*}}, i64 8)
; CHECK-NEXT:    store double %v, ptr [[REC]]
; CHECK-NEXT:    br i1 %done, label %exit, label %loop
; The exit records nothing: the reverse sweep starts at iteration n - 1,
; from the exit test (reverse/tripcount.c).
; CHECK:       exit:
; CHECK-NOT:     kinase.tape.push
; CHECK-NOT:     store i64 %iteration
; CHECK:         ret { ptr }
