; Reverse mode through qsort: in the copy differentiated, the call becomes
; the model's merge sort of a permutation (rules/qsort.c), inlined, which
; calls the comparator and moves the elements with memcpy; the reverse
; sweep moves the adjoints back along the same permutation as doubles.
; The primal function keeps calling the C library's qsort.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare void @qsort(ptr, i64, i64, ptr)

define internal i32 @cmp(ptr %a, ptr %b) {
  %x = load double, ptr %a
  %y = load double, ptr %b
  %gt = fcmp ogt double %x, %y
  %lt = fcmp olt double %x, %y
  %g = zext i1 %gt to i32
  %l = zext i1 %lt to i32
  %r = sub i32 %g, %l
  ret i32 %r
}

define internal double @top(ptr %x) {
  call void @qsort(ptr %x, i64 4, i64 8, ptr @cmp)
  %p = getelementptr double, ptr %x, i64 3
  %v = load double, ptr %p
  ret double %v
}

define double @grad(ptr %x, ptr %dx) {
  %m = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @top, i32 %m, ptr %x, ptr %dx)
  ret double %r
}

; CHECK-LABEL: define internal double @top(
; CHECK: call void @qsort(ptr %x, i64 4, i64 8, ptr @cmp)

; CHECK-LABEL: define internal void @__kinase_rev_top(
; CHECK-NOT: @qsort
; CHECK: call void @kinase.memcpy.reverse.f64(ptr %d.x,
; CHECK: ret void

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_top(
; CHECK-NOT: @qsort
; CHECK: call void @llvm.memcpy.p0.p0.i64({{.*}}, ptr {{.*}}%x, i64 32
; CHECK: call { i32, ptr } @__kinase_aug_cmp(
; CHECK: ret { double, ptr }
