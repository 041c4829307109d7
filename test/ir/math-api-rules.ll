; The CUDA math API functions with rules of their own (lib/rules/math.def):
; their libdevice bodies branch at points where the derivative must not
; vanish (sinpi at the integers) or take the argument apart with integer
; operations (the double erfcinv, normcdf). The derivatives call the
; partials' functions instead of differentiating the bodies: sinpi's is pi
; cospi, erfcinv's -sqrt(pi)/2 exp(y^2) from the result y, normcdf's the
; Gaussian, rhypot's -x rhypot^3 (no call), sincospi's the pair.
; REQUIRES: cuda
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_autodiff_f(ptr, ...)
declare double @__nv_sinpi(double)
declare double @__nv_erfcinv(double)
declare double @__nv_normcdf(double)
declare float @__nv_rhypotf(float, float)
declare void @__nv_sincospi(double, ptr, ptr)

define internal double @sinpi_of(double %x) {
  %y = call double @__nv_sinpi(double %x)
  ret double %y
}

define internal double @erfcinv_of(double %x) {
  %y = call double @__nv_erfcinv(double %x)
  ret double %y
}

define internal double @normcdf_of(double %x) {
  %y = call double @__nv_normcdf(double %x)
  ret double %y
}

define internal float @rhypot_of(float %x) {
  %y = call float @__nv_rhypotf(float %x, float 2.0)
  ret float %y
}

define internal double @sincospi_of(double %x) {
  %s = alloca double
  %c = alloca double
  call void @__nv_sincospi(double %x, ptr %s, ptr %c)
  %sv = load double, ptr %s
  %cv = load double, ptr %c
  %y = fadd double %sv, %cv
  ret double %y
}

define void @gradients(double %x, float %f) {
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @sinpi_of, double %x)
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @erfcinv_of, double %x)
  %c = call double (ptr, ...) @__enzyme_autodiff(ptr @normcdf_of, double %x)
  %d = call float (ptr, ...) @__enzyme_autodiff_f(ptr @rhypot_of, float %f)
  %e = call double (ptr, ...) @__enzyme_autodiff(ptr @sincospi_of, double %x)
  ret void
}

; CHECK-LABEL: define internal { double } @__kinase_rev_sinpi_of(
; CHECK: [[C:%[0-9]+]] = call double @__nv_cospi(double %x)
; CHECK: fmul double [[C]], 0x400921FB54442D18
; CHECK-LABEL: define internal { double } @__kinase_rev_erfcinv_of(
; CHECK: [[Y:%[0-9]+]] = call double @__nv_erfcinv(double %x)
; CHECK: [[Y2:%[0-9]+]] = fmul double [[Y]], [[Y]]
; CHECK: [[E:%[0-9]+]] = call double @__nv_exp(double [[Y2]])
; CHECK: fmul double [[E]], 0xBFEC5BF891B4EF6B
; CHECK-LABEL: define internal { double } @__kinase_rev_normcdf_of(
; CHECK: call double @__nv_exp(
; CHECK-LABEL: define internal { float } @__kinase_rev_rhypot_of(
; CHECK-NOT: call
; CHECK: [[R:%[0-9]+]] = call float @__nv_rhypotf(float %x, float 2.000000e+00)
; CHECK-NOT: call
; CHECK: ret
; CHECK-LABEL: define internal { double } @__kinase_rev_sincospi_of(
; CHECK-DAG: call double @__nv_sinpi(double %x)
; CHECK-DAG: call double @__nv_cospi(double %x)
; CHECK-NOT: @__nv_sincospi
; CHECK: ret
