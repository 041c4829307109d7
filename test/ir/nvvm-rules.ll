; The rows of lib/rules/nvvm.def in both modes, float, double, half and
; bfloat16: every derivative verifies, and the partials of the approximate
; intrinsics are built from approximate intrinsics (sin.approx from
; cos.approx, div.approx from div.approx, sqrt.approx from rsqrt.approx),
; saturate's by picking. Thread geometry, clock and globaltimer are inactive.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare { float, float } @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)
declare double @__enzyme_fwddiff_d(ptr, ...)
declare { double, double } @__enzyme_autodiff_d(ptr, ...)
declare half @__enzyme_fwddiff_h(ptr, ...)
declare bfloat @__enzyme_fwddiff_b(ptr, ...)

define internal float @approx(float %x, float %y) {
  %a = call float @llvm.nvvm.sin.approx.f(float %x)
  %b = call float @llvm.nvvm.cos.approx.ftz.f(float %y)
  %c = call float @llvm.nvvm.div.approx.f(float %x, float %y)
  %d = call float @llvm.nvvm.div.full(float %x, float %y)
  %e = call float @llvm.nvvm.sqrt.approx.ftz.f(float %y)
  %f = call float @llvm.nvvm.ex2.approx.f32(float %x)
  %g = call float @llvm.nvvm.lg2.approx.ftz.f(float %y)
  %h = call float @llvm.nvvm.rcp.approx.ftz.f(float %y)
  %i = call float @llvm.nvvm.rsqrt.approx.ftz.f(float %y)
  %s1 = fadd float %a, %b
  %s2 = fadd float %s1, %c
  %s3 = fadd float %s2, %d
  %s4 = fadd float %s3, %e
  %s5 = fadd float %s4, %f
  %s6 = fadd float %s5, %g
  %s7 = fadd float %s6, %h
  %s8 = fadd float %s7, %i
  ret float %s8
}

define internal float @rounded(float %x, float %y) {
  %a = call float @llvm.nvvm.add.rz.ftz.f(float %x, float %y)
  %b = call float @llvm.nvvm.mul.rp.f(float %x, float %y)
  %c = call float @llvm.nvvm.fma.rm.f(float %x, float %y, float %a)
  %d = call float @llvm.nvvm.div.rn.ftz.f(float %x, float %y)
  %e = call float @llvm.nvvm.rcp.rz.f(float %y)
  %f = call float @llvm.nvvm.sqrt.rn.f(float %y)
  %g = call float @llvm.nvvm.fmin.ftz.nan.f(float %x, float %y)
  %h = call float @llvm.nvvm.fmax.f(float %x, float %y)
  %i = call float @llvm.nvvm.fabs.f32(float %x)
  %j = call float @llvm.nvvm.saturate.ftz.f(float %x)
  %s1 = fadd float %b, %c
  %s2 = fadd float %s1, %d
  %s3 = fadd float %s2, %e
  %s4 = fadd float %s3, %f
  %s5 = fadd float %s4, %g
  %s6 = fadd float %s5, %h
  %s7 = fadd float %s6, %i
  %s8 = fadd float %s7, %j
  ret float %s8
}

define internal double @in_double(double %x, double %y) {
  %a = call double @llvm.nvvm.rsqrt.approx.d(double %y)
  %b = call double @llvm.nvvm.sqrt.rn.d(double %y)
  %c = call double @llvm.nvvm.div.rz.d(double %x, double %y)
  %d = call double @llvm.nvvm.rcp.approx.ftz.d(double %y)
  %e = call double @llvm.nvvm.lg2.approx.d(double %y)
  %f = call double @llvm.nvvm.fma.rn.d(double %x, double %y, double %a)
  %g = call double @llvm.nvvm.fmin.d(double %x, double %y)
  %h = call double @llvm.nvvm.saturate.d(double %x)
  %i = call double @llvm.nvvm.fabs.f64(double %x)
  %s1 = fadd double %b, %c
  %s2 = fadd double %s1, %d
  %s3 = fadd double %s2, %e
  %s4 = fadd double %s3, %f
  %s5 = fadd double %s4, %g
  %s6 = fadd double %s5, %h
  %s7 = fadd double %s6, %i
  ret double %s7
}

define internal half @in_half(half %x, half %y) {
  %a = call half @llvm.nvvm.fma.rn.f16(half %x, half %y, half %x)
  %b = call half @llvm.nvvm.fmax.ftz.nan.f16(half %a, half %y)
  %c = call half @llvm.nvvm.ex2.approx.f16(half %b)
  ret half %c
}

define internal bfloat @in_bfloat(bfloat %x, bfloat %y) {
  %a = call bfloat @llvm.nvvm.fma.rn.ftz.bf16(bfloat %x, bfloat %y, bfloat %x)
  %b = call bfloat @llvm.nvvm.fmin.bf16(bfloat %a, bfloat %y)
  ret bfloat %b
}

; Integer reads of the machine: no derivative flows through them.
define internal float @timed(float %x) {
  %t = call i64 @llvm.nvvm.read.ptx.sreg.clock64()
  %g = call i64 @llvm.nvvm.read.ptx.sreg.globaltimer()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.clock()
  %s = add i64 %t, %g
  %c64 = zext i32 %c to i64
  %u = add i64 %s, %c64
  %f = uitofp i64 %u to float
  %r = fmul float %f, %x
  ret float %r
}

define void @requests(float %x, float %y, double %xd, double %yd, half %xh, half %yh, bfloat %xb, bfloat %yb, ptr %out) {
  %dup = load i32, ptr @enzyme_dup
  %r1 = call { float, float } (ptr, ...) @__enzyme_autodiff(ptr @approx, float %x, float %y)
  %r2 = call float (ptr, ...) @__enzyme_fwddiff(ptr @approx, i32 %dup, float %x, float 1.0, i32 %dup, float %y, float 1.0)
  %r3 = call { float, float } (ptr, ...) @__enzyme_autodiff(ptr @rounded, float %x, float %y)
  %r4 = call float (ptr, ...) @__enzyme_fwddiff(ptr @rounded, i32 %dup, float %x, float 1.0, i32 %dup, float %y, float 1.0)
  %r5 = call { double, double } (ptr, ...) @__enzyme_autodiff_d(ptr @in_double, double %xd, double %yd)
  %r6 = call double (ptr, ...) @__enzyme_fwddiff_d(ptr @in_double, i32 %dup, double %xd, double 1.0, i32 %dup, double %yd, double 1.0)
  %r7 = call half (ptr, ...) @__enzyme_fwddiff_h(ptr @in_half, i32 %dup, half %xh, half 1.0, i32 %dup, half %yh, half 1.0)
  %r8 = call bfloat (ptr, ...) @__enzyme_fwddiff_b(ptr @in_bfloat, i32 %dup, bfloat %xb, bfloat 1.0, i32 %dup, bfloat %yb, bfloat 1.0)
  %r9 = call float (ptr, ...) @__enzyme_fwddiff(ptr @timed, i32 %dup, float %x, float 1.0)
  store float %r2, ptr %out
  store float %r4, ptr %out
  store double %r6, ptr %out
  store half %r7, ptr %out
  store bfloat %r8, ptr %out
  store float %r9, ptr %out
  ret void
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_approx(
; CHECK-NOT:     fdiv
; CHECK-NOT:     @__nv_
; CHECK:         ret

; CHECK-LABEL: define internal float @__kinase_fwd_approx(
; CHECK-NOT:     fdiv
; CHECK-DAG:     call float @llvm.nvvm.cos.approx.f(float %x)
; CHECK-DAG:     call float @llvm.nvvm.sin.approx.f(float %y)
; CHECK-DAG:     call float @llvm.nvvm.div.approx.f(float 1.000000e+00, float %y)
; CHECK-DAG:     call float @llvm.nvvm.rsqrt.approx.f(float %y)
; CHECK-NOT:     fdiv
; CHECK:         ret float

; CHECK-LABEL: define internal float @__kinase_fwd_rounded(
; CHECK:         select i1 {{%.*}}, float %d.x, float {{-?0.000000e\+00}}
; CHECK:         ret float

; CHECK-LABEL: define internal double @__kinase_fwd_in_double(
; CHECK:         fdiv double
; CHECK:         ret double

; CHECK-LABEL: define internal half @__kinase_fwd_in_half(
; CHECK:         ret half

; CHECK-LABEL: define internal bfloat @__kinase_fwd_in_bfloat(
; CHECK:         ret bfloat

; The clocks' product with x: the tangent is that number times dx.
; CHECK-LABEL: define internal float @__kinase_fwd_timed(
; CHECK:         [[F:%.*]] = uitofp i64 {{%.*}} to float
; CHECK:         fmul float %d.x, [[F]]
; CHECK-NEXT:    ret float
