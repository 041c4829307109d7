; The .sat and .relu forms of NVVM arithmetic: the operation's partial where
; the result was not clamped (0 < y < 1 for .sat, y > 0 for .relu), 0 where
; it was, chosen by a select on the result. Reverse and forward mode.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32
@enzyme_const = external global i32

declare float @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)
declare float @llvm.nvvm.fma.rn.sat.f(float, float, float)
declare float @llvm.nvvm.add.rz.ftz.sat.f(float, float)
declare half @llvm.nvvm.fma.rn.relu.f16(half, half, half)

define internal float @clamped(float %x, float %c) {
  %s = call float @llvm.nvvm.fma.rn.sat.f(float %x, float %x, float %c)
  %a = call float @llvm.nvvm.add.rz.ftz.sat.f(float %s, float %x)
  %h = fptrunc float %a to half
  %r = call half @llvm.nvvm.fma.rn.relu.f16(half %h, half %h, half 0xHBC00)
  %y = fpext half %r to float
  ret float %y
}

define void @requests(float %x, float %c, ptr %out) {
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %g = call float (ptr, ...) @__enzyme_autodiff(ptr @clamped, float %x, i32 %const, float %c)
  %t = call float (ptr, ...) @__enzyme_fwddiff(ptr @clamped, i32 %dup, float %x, float 1.0, i32 %const, float %c)
  store float %g, ptr %out
  store float %t, ptr %out
  ret void
}

; Each result decides its own partial: the relu fma's 2h, the add's 1, the
; sat fma's x (twice, once per factor), each 0 where clamped.
; CHECK-LABEL: define internal {{.*}} @__kinase_rev_clamped(
; CHECK:         [[S:%.*]] = call float @llvm.nvvm.fma.rn.sat.f(
; CHECK:         [[A:%.*]] = call float @llvm.nvvm.add.rz.ftz.sat.f(
; CHECK:         [[A_LO:%.*]] = fcmp ogt float [[A]], 0.000000e+00
; CHECK:         [[A_HI:%.*]] = fcmp olt float [[A]], 1.000000e+00
; CHECK:         [[A_IN:%.*]] = and i1 [[A_LO]], [[A_HI]]
; CHECK:         [[R:%.*]] = call half @llvm.nvvm.fma.rn.relu.f16(
; CHECK:         [[R_IN:%.*]] = fcmp ogt half [[R]], 0xH0000
; CHECK:         select i1 [[R_IN]], half %{{.*}}, half 0xH0000
; CHECK:         select i1 [[A_IN]], float %{{.*}}, float 0.000000e+00
; CHECK:         [[S_LO:%.*]] = fcmp ogt float [[S]], 0.000000e+00
; CHECK:         [[S_HI:%.*]] = fcmp olt float [[S]], 1.000000e+00
; CHECK:         [[S_IN:%.*]] = and i1 [[S_LO]], [[S_HI]]
; CHECK:         select i1 [[S_IN]], float %x, float 0.000000e+00
; CHECK:         ret

; CHECK-LABEL: define internal float @__kinase_fwd_clamped(
; CHECK:         [[S:%.*]] = call float @llvm.nvvm.fma.rn.sat.f(
; CHECK:         fcmp ogt float [[S]], 0.000000e+00
; CHECK:         fcmp olt float [[S]], 1.000000e+00
; CHECK:         select i1
; CHECK:         [[R:%.*]] = call half @llvm.nvvm.fma.rn.relu.f16(
; CHECK:         fcmp ogt half [[R]], 0xH0000
; CHECK:         ret float
