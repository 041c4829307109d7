; Rounding to an integer (llvm.nvvm.trunc, floor, ceil, round: libdevice's
; sinpif, cospif and erfcinvf reduce their argument with them) is a step
; function: derivative 0, so in y = x - trunc(x) only x's 1 flows, in
; reverse and forward mode, float and double.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare float @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)
declare double @__enzyme_autodiff_d(ptr, ...)
declare float @llvm.nvvm.trunc.f(float)
declare float @llvm.nvvm.floor.ftz.f(float)
declare double @llvm.nvvm.round.d(double)
declare double @llvm.nvvm.ceil.d(double)

define internal float @fraction(float %x) {
  %t = call float @llvm.nvvm.trunc.f(float %x)
  %f = call float @llvm.nvvm.floor.ftz.f(float %t)
  %y = fsub float %x, %f
  %z = fmul float %y, %x
  ret float %z
}

define internal double @fraction_d(double %x) {
  %t = call double @llvm.nvvm.round.d(double %x)
  %c = call double @llvm.nvvm.ceil.d(double %x)
  %s = fadd double %t, %c
  %y = fsub double %x, %s
  ret double %y
}

define void @requests(float %x, double %xd, ptr %out) {
  %dup = load i32, ptr @enzyme_dup
  %g = call float (ptr, ...) @__enzyme_autodiff(ptr @fraction, float %x)
  %t = call float (ptr, ...) @__enzyme_fwddiff(ptr @fraction, i32 %dup, float %x, float 1.0)
  %gd = call double (ptr, ...) @__enzyme_autodiff_d(ptr @fraction_d, double %xd)
  store float %g, ptr %out
  store float %t, ptr %out
  store double %gd, ptr %out
  ret void
}

; d(x (x - floor(trunc x)))/dx = (x - f) + x: the rounded values' partial is
; 0 (the adjoint reaching them is multiplied by it, as is the tangent).
; CHECK-LABEL: define internal { float } @__kinase_rev_fraction(
; CHECK: %[[Y:[0-9]+]] = fsub float %x,
; CHECK: %[[A:[0-9]+]] = fmul float %[[Y]], %0
; CHECK: %[[B:[0-9]+]] = fmul float %x, %0
; CHECK: fadd float %[[A]], %[[B]]
; CHECK: fmul float %{{[0-9]+}}, 0.000000e+00
; CHECK: ret { float }
; CHECK-LABEL: define internal float @__kinase_fwd_fraction(float %x, float %d.x)
; CHECK: fmul float %d.x, 0.000000e+00
; CHECK: ret float
; The double one: 1 - 0 - 0.
; CHECK-LABEL: define internal { double } @__kinase_rev_fraction_d(
; CHECK: fmul double %0, -0.000000e+00
; CHECK: ret { double }
