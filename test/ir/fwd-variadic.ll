; A call of a variadic function of the module, on x86-64: the copy being
; differentiated calls kinase.fixed.twice instead, which takes one more
; parameter, the variable arguments laid out as va_arg's overflow area (a
; local of the caller, 8 bytes a double); its va_start puts gp_offset and
; fp_offset past the registers (48, 176) and both areas at that memory, so
; va_arg reads the memory, whose shadow holds the tangents.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)

; twice(n, ...) = 2 * (first variable argument), read as clang reads a double
define internal double @twice(i32 %n, ...) {
entry:
  %ap = alloca { i32, i32, ptr, ptr }, align 16
  call void @llvm.va_start.p0(ptr %ap)
  %fp_offset_p = getelementptr inbounds { i32, i32, ptr, ptr }, ptr %ap, i32 0, i32 1
  %fp_offset = load i32, ptr %fp_offset_p
  %fits = icmp ule i32 %fp_offset, 160
  br i1 %fits, label %in_reg, label %in_mem
in_reg:
  %save_p = getelementptr inbounds { i32, i32, ptr, ptr }, ptr %ap, i32 0, i32 3
  %save = load ptr, ptr %save_p
  %reg = getelementptr i8, ptr %save, i32 %fp_offset
  br label %read
in_mem:
  %over_p = getelementptr inbounds { i32, i32, ptr, ptr }, ptr %ap, i32 0, i32 2
  %over = load ptr, ptr %over_p
  br label %read
read:
  %at = phi ptr [ %reg, %in_reg ], [ %over, %in_mem ]
  %v = load double, ptr %at
  call void @llvm.va_end.p0(ptr %ap)
  %r = fmul double %v, 2.0
  ret double %r
}

define internal double @f(double %x) {
  %r = call double (i32, ...) @twice(i32 1, double %x)
  ret double %r
}

define double @test(double %x, double %dx) {
  %dup = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %dup, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal double @__kinase_fwd_f(
; CHECK:         store double %x, ptr %variadic.area
; CHECK:         store double %d.x, ptr %d.variadic.area
; CHECK:         call { double, double } @__kinase_fwd_kinase.fixed.twice(i32 1, ptr {{.*}}%variadic.area, ptr {{.*}}%d.variadic.area)

; CHECK-LABEL: define internal double @kinase.fixed.twice(i32 %n, ptr %variadic.area)
; CHECK-NOT:     llvm.va_start
; CHECK:         store i32 48,
; CHECK:         store i32 176,
; CHECK:         store ptr %variadic.area,
; CHECK:         store ptr %variadic.area,
; CHECK-NOT:     llvm.va_end
; CHECK:         ret double
