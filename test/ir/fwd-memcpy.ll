; Forward mode, memcpy: a copy between memories with shadows copies the
; shadows too; a copy from memory without a shadow (enzyme_const) zeroes the
; destination's shadow.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal void @f(ptr %dst, ptr %src, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void
}

define void @test(ptr %a, ptr %da, ptr %b, ptr %db, i64 %n) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, ptr %a, ptr %da, i32 %dup, ptr %b, ptr %db, i64 %n)
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, ptr %a, ptr %da, i32 %const, ptr %b, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @__kinase_fwd_f(ptr %dst, ptr %d.dst, ptr %src, ptr %d.src, i64 %n)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr {{.*}}%dst, ptr {{.*}}%src, i64 %n, i1 false)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr {{.*}}%d.dst, ptr {{.*}}%d.src, i64 %n, i1 false)
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal void @__kinase_fwd_f{{.*}}(ptr %dst, ptr %d.dst, ptr %src, i64 %n)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr {{.*}}%dst, ptr {{.*}}%src, i64 %n, i1 false)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr {{.*}}%d.dst, i8 0, i64 %n, i1 false)
; CHECK-NEXT:    ret void
