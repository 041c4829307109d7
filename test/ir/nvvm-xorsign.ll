; The .xorsign.abs forms of fmin and fmax: y = sign(a) sign(b) min(|a|, |b|)
; (max alike). The operand of the chosen magnitude gets the derivative,
; times the sign of the other operand (copysign(1, other)); the other gets
; 0. Reverse and forward mode, float and a half pair.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare { float, float } @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)
declare float @llvm.nvvm.fmin.xorsign.abs.f(float, float)
declare float @llvm.nvvm.fmax.ftz.nan.xorsign.abs.f(float, float)
declare <2 x half> @llvm.nvvm.fmin.xorsign.abs.f16x2(<2 x half>, <2 x half>)

define internal float @picked(float %a, float %b) {
  %m = call float @llvm.nvvm.fmin.xorsign.abs.f(float %a, float %b)
  %n = call float @llvm.nvvm.fmax.ftz.nan.xorsign.abs.f(float %m, float %b)
  ret float %n
}

define internal <2 x half> @pair(<2 x half> %a, <2 x half> %b) {
  %m = call <2 x half> @llvm.nvvm.fmin.xorsign.abs.f16x2(<2 x half> %a, <2 x half> %b)
  ret <2 x half> %m
}

define void @requests(float %a, float %b, <2 x half> %p, <2 x half> %q, ptr %out) {
  %dup = load i32, ptr @enzyme_dup
  %g = call { float, float } (ptr, ...) @__enzyme_autodiff(ptr @picked, float %a, float %b)
  %t = call float (ptr, ...) @__enzyme_fwddiff(ptr @picked, i32 %dup, float %a, float 1.0, i32 %dup, float %b, float 0.0)
  %h = call <2 x half> (ptr, ...) @__enzyme_fwddiff(ptr @pair, i32 %dup, <2 x half> %p, <2 x half> <half 1.0, half 1.0>, i32 %dup, <2 x half> %q, <2 x half> zeroinitializer)
  store { float, float } %g, ptr %out
  store float %t, ptr %out
  store <2 x half> %h, ptr %out
  ret void
}

; The max's partials: on the magnitudes, |m| >= |b| (or b NaN) choosing m,
; times the sign of the other operand; then the min's, |a| <= |b|.
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_picked(
; CHECK:         [[M:%.*]] = call float @llvm.nvvm.fmin.xorsign.abs.f(float %a, float %b)
; CHECK-NEXT:    [[MM:%.*]] = call float @llvm.fabs.f32(float [[M]])
; CHECK-NEXT:    [[MB:%.*]] = call float @llvm.fabs.f32(float %b)
; CHECK-NEXT:    [[MAXM:%.*]] = fcmp oge float [[MM]], [[MB]]
; CHECK:         [[SM:%.*]] = call float @llvm.copysign.f32(float 1.000000e+00, float [[M]])
; CHECK-NEXT:    select i1 {{%.*}}, float 0.000000e+00, float [[SM]]
; CHECK:         [[MA:%.*]] = call float @llvm.fabs.f32(float %a)
; CHECK-NEXT:    fcmp ole float [[MA]], [[MB]]
; CHECK:         call float @llvm.copysign.f32(float 1.000000e+00, float %a)
; CHECK:         [[SB:%.*]] = call float @llvm.copysign.f32(float 1.000000e+00, float %b)
; CHECK-NEXT:    select i1 {{%.*}}, float [[SB]], float 0.000000e+00
; CHECK:         ret

; CHECK-LABEL: define internal float @__kinase_fwd_picked(
; CHECK:         call float @llvm.nvvm.fmin.xorsign.abs.f(
; CHECK:         fcmp ole float
; CHECK:         call float @llvm.copysign.f32(float 1.000000e+00, float %b)
; CHECK:         call float @llvm.copysign.f32(float 1.000000e+00, float %a)
; CHECK:         ret float

; CHECK-LABEL: define internal <2 x half> @__kinase_fwd_pair(
; CHECK:         call <2 x half> @llvm.fabs.v2f16(<2 x half> %a)
; CHECK:         call <2 x half> @llvm.copysign.v2f16(<2 x half> splat (half 0xH3C00), <2 x half> %b)
; CHECK:         call <2 x half> @llvm.copysign.v2f16(<2 x half> splat (half 0xH3C00), <2 x half> %a)
; CHECK:         ret <2 x half>
