// A driver-API launch that is an invoke (C++ host code with a RAII local and
// a call that may throw after it), differentiated in reverse mode: the
// runtime's launch takes the place of the user's invoke, whose landing pad
// (the destructors) stays for the calls that can still throw; the erased
// call leaves nothing behind (the verifier runs on the result), and a throw
// after it discards the launch's record.
//
// REQUIRES: cuda
// RUN: %kinase-cc -O0 --cuda-host-only -I%cuda-root/include -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %opt -passes=verify -disable-output %t.O0.ll
// RUN: %kinase-cc -O2 --cuda-host-only -I%cuda-root/include -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes=verify -disable-output %t.ll
//
// CHECK-LABEL: define internal {{.*}} @__kinase_aug__Z5applyPfPKffi(
// CHECK-NOT: @cuLaunchKernel(
// CHECK: call ptr @__kinase_driver_launch_augment(
// CHECK-NOT: @cuLaunchKernel(
// CHECK: invoke void @_Z5checki(
// CHECK: landingpad
// CHECK: call void @_ZN5GuardD2Ev(
// CHECK: resume
// CHECK-NOT: @cuLaunchKernel(
//
// The landing pad's release of the tape discards the launch's record, which
// the reverse sweep would have consumed.
// CHECK-LABEL: define internal void @__kinase_free__Z5applyPfPKffi(
// CHECK: call void @__kinase_launch_discard(

#include <cuda.h>
#include <kinase.h>

int guards;
struct Guard {
  ~Guard() { guards++; }
};
void check(int n) {
  if (n < 0)
    throw n;
}

CUfunction scale;

void apply(float *out, const float *in, float alpha, int n) {
  Guard g;
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
  check(n);
}

float *out, *dout, *in, *din;

float gradient(void) {
  return __enzyme_autodiff((void *)apply, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_out,
                           1.5f, enzyme_const, 10);
}
