; Reverse mode, malloc inside the function: right after the malloc, the
; augmented forward sweep allocates a shadow of the same size, zeroed
; (calloc). The primal's free frees only the primal memory: the shadow
; outlives the forward sweep, its address is recorded on the tape, and the
; reverse sweep reads it back, reads and zeroes it where the store is
; reversed, and frees it where the malloc is reversed.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_out = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare ptr @malloc(i64)
declare void @free(ptr)

; t = malloc(8); *t = x * x; r = *t * x; free(t); return r
define internal double @f(double %x) {
  %t = call ptr @malloc(i64 8)
  %sq = fmul double %x, %x
  store double %sq, ptr %t
  %v = load double, ptr %t
  %r = fmul double %v, %x
  call void @free(ptr %t)
  ret double %r
}

define double @test(double %x) {
  %o = load i32, ptr @enzyme_out
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %o, double %x)
  ret double %d
}

; CHECK-LABEL: define internal { double } @__kinase_rev_f(
; CHECK-NOT:     @calloc
; CHECK-NOT:     @malloc
; CHECK:         [[A:%.*]] = load double, ptr [[S:%[0-9a-z.]+]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[S]]
; CHECK:         call void @free(ptr {{.*}}[[S]])
; CHECK:         ret { double }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_f(double %x{{.*}})
; CHECK:         %t = call ptr @malloc(i64 8)
; CHECK-NEXT:    [[SHADOW:%.*]] = call ptr @calloc(i64 1, i64 8)
; CHECK-NOT:     call void @free(ptr {{.*}}[[SHADOW]])
; CHECK:         call void @free(ptr {{.*}}%t)
; CHECK-NOT:     call void @free(ptr {{.*}}[[SHADOW]])
; CHECK:         store ptr [[SHADOW]], ptr
; CHECK-NOT:     call void @free(ptr {{.*}}[[SHADOW]])
; CHECK:         ret { double, ptr }
