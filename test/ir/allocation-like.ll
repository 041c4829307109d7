; __enzyme_allocation_like: @arena_alloc returns fresh memory of %size bytes
; (its argument 1), which @arena_free(%off, %p) frees ("2,-1": the
; allocator's argument 2, then the pointer). The primal still calls the
; user's allocator; the shadow comes from calloc beside it, never from the
; arena, and goes to free(): in forward mode where the primal is freed, in
; reverse mode where the reverse sweep reaches the allocation.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@.free_args = private unnamed_addr constant [5 x i8] c"2,-1\00"
@__enzyme_allocation_like = global [4 x ptr] [ptr @arena_alloc, ptr inttoptr (i64 1 to ptr), ptr @.free_args, ptr @arena_free]
@arena = global [64 x i8] zeroinitializer
@used = global i64 0

declare double @__enzyme_fwddiff(ptr, ...)
declare double @__enzyme_autodiff(ptr, ...)

define ptr @arena_alloc(ptr %base, i64 %size, ptr %off) {
  %prev = load i64, ptr %off
  %next = add i64 %prev, %size
  store i64 %next, ptr %off
  %p = getelementptr i8, ptr %base, i64 %prev
  ret ptr %p
}

define void @arena_free(ptr %off, ptr %p) {
  ret void
}

; m = arena_alloc(arena, 8, &used); *m = x * x; r = *m; arena_free(&used, m)
define internal double @f(double %x) {
  %m = call ptr @arena_alloc(ptr @arena, i64 8, ptr @used)
  %sq = fmul double %x, %x
  store double %sq, ptr %m
  %v = load volatile double, ptr %m
  call void @arena_free(ptr @used, ptr %m)
  ret double %v
}

define double @fwd(double %x, double %dx) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)
  ret double %r
}

define double @rev(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x)
; CHECK-NEXT:    %m = call ptr @arena_alloc(ptr {{.*}}@arena, i64 8, ptr {{.*}}@used)
; CHECK-NEXT:    [[DM:%.*]] = call ptr @calloc(i64 1, i64 8)
; CHECK-NOT:     @arena_alloc
; CHECK:         store double %sq, ptr %m
; CHECK-NEXT:    store double {{%.*}}, ptr [[DM]]
; CHECK:         call void @arena_free(ptr {{.*}}@used, ptr {{.*}}%m)
; CHECK-NEXT:    call void @free(ptr {{.*}}[[DM]])
; CHECK-NOT:     @arena_free
; CHECK:         ret double %d.v

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-NOT:     @arena_
; CHECK:         load double, ptr [[S:%[0-9a-z.]+]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[S]]
; CHECK-NEXT:    call void @free(ptr {{.*}}[[S]])
; CHECK-NOT:     @arena_
; CHECK:         ret { double }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x{{.*}})
; CHECK:         %m = call ptr @arena_alloc(ptr {{.*}}@arena, i64 8, ptr {{.*}}@used)
; CHECK-NEXT:    [[SHADOW:%.*]] = call ptr @calloc(i64 1, i64 8)
; CHECK-NOT:     @arena_alloc
; CHECK:         call void @arena_free(ptr {{.*}}@used, ptr {{.*}}%m)
; CHECK-NOT:     call void @free(ptr {{.*}}[[SHADOW]])
; CHECK:         store ptr [[SHADOW]], ptr
; CHECK-NOT:     @arena_free
; CHECK:         ret { double, ptr }
