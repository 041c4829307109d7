; NVVM's rsqrt.approx (what rsqrtf becomes): the partial is -0.5 y^3, built
; from the result y itself, so the adjoint costs three multiplies and no
; second rsqrt, sqrt or division. Both modes, float and double.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare float @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)
declare double @__enzyme_autodiff_d(ptr, ...)
declare float @llvm.nvvm.rsqrt.approx.f(float)
declare double @llvm.nvvm.rsqrt.approx.d(double)

define internal float @inv_norm(float %x) {
  %y = call float @llvm.nvvm.rsqrt.approx.f(float %x)
  ret float %y
}

define internal double @inv_norm_d(double %x) {
  %y = call double @llvm.nvvm.rsqrt.approx.d(double %x)
  ret double %y
}

define void @requests(float %x, double %xd, ptr %out) {
  %dup = load i32, ptr @enzyme_dup
  %g = call float (ptr, ...) @__enzyme_autodiff(ptr @inv_norm, float %x)
  %t = call float (ptr, ...) @__enzyme_fwddiff(ptr @inv_norm, i32 %dup, float %x, float 1.0)
  %gd = call double (ptr, ...) @__enzyme_autodiff_d(ptr @inv_norm_d, double %xd)
  store float %g, ptr %out
  store float %t, ptr %out
  ret void
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_inv_norm(
; CHECK-NOT:     sqrt
; CHECK-NOT:     fdiv
; CHECK:         [[Y:%.*]] = call float @llvm.nvvm.rsqrt.approx.f(float %x)
; CHECK-NEXT:    [[Y2:%.*]] = fmul float [[Y]], [[Y]]
; CHECK-NEXT:    [[Y3:%.*]] = fmul float [[Y]], [[Y2]]
; CHECK-NOT:     sqrt
; CHECK-NOT:     fdiv
; CHECK:         ret

; CHECK-LABEL: define internal float @__kinase_fwd_inv_norm(float %x, float %d.x)
; CHECK-NEXT:    [[Y:%.*]] = call float @llvm.nvvm.rsqrt.approx.f(float %x)
; CHECK-NEXT:    [[Y2:%.*]] = fmul float [[Y]], [[Y]]
; CHECK-NEXT:    [[Y3:%.*]] = fmul float [[Y]], [[Y2]]
; CHECK-NEXT:    [[P:%.*]] = fmul float [[Y3]], -5.000000e-01
; CHECK-NEXT:    [[T:%.*]] = fmul float [[P]], %d.x
; CHECK-NEXT:    ret float [[T]]

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_inv_norm_d(
; CHECK:         call double @llvm.nvvm.rsqrt.approx.d(double %x)
; CHECK-NOT:     fdiv
; CHECK:         ret
