; Forward mode, malloc: fresh memory gets a fresh shadow of the same size,
; zeroed; free frees the shadow too.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare ptr @malloc(i64)
declare void @free(ptr)

define internal double @f(double %x, i64 %n) {
  %m = call ptr @malloc(i64 %n)
  store double %x, ptr %m
  %v = load volatile double, ptr %m
  call void @free(ptr %m)
  ret double %v
}

define double @test(double %x, double %dx, i64 %n) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx, i64 %n)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(double %x, double %d.x, i64 %n)
; CHECK-NEXT:    %m = call ptr @malloc(i64 %n)
; CHECK-NEXT:    %d.m = call ptr @malloc(i64 %n)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr {{.*}}%d.m, i8 0, i64 %n, i1 false)
; CHECK-NEXT:    store double %x, ptr %m
; CHECK-NEXT:    store double %d.x, ptr %d.m
; CHECK-NEXT:    %v = load volatile double, ptr %m
; CHECK-NEXT:    %d.v = load volatile double, ptr %d.m
; CHECK-NEXT:    call void @free(ptr {{.*}}%m)
; CHECK-NEXT:    call void @free(ptr {{.*}}%d.m)
; CHECK-NEXT:    ret double %d.v
