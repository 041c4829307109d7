// A cooperative launch needs all its blocks resident at once; a derivative
// kernel may need more registers or shared memory per block than the kernel
// and then fit fewer (runtime/cuda_cooperative.c). The runtime checks the fit
// with the driver's occupancy before the kernel first runs, and stops with a
// message naming the kernel rather than launch a grid that cannot run (a
// failed launch, or a grid barrier waiting forever). Here the decision and
// the message, without a GPU: the fit is given the occupancy the driver
// would report.
//
// REQUIRES: cuda
// RUN: %clang -std=c11 -Wall -Wextra -Werror %cudainc %runtimeinc %s %kinase-rt %cuda-link -o %t.exe
// RUN: not %cuda-host-run %t.exe > %t.out 2>&1
// RUN: FileCheck %s --input-file=%t.out
//
// CHECK: fits: 264 blocks at 2 per multiprocessor on 132
// CHECK-NEXT: plain launch: not cooperative
// CHECK-NEXT: kinase: the reverse kernel of cooperative kernel 'heat_step' does not fit on the device: the launch's 265 blocks of 256 threads (2048 bytes of dynamic shared memory) must all be resident at once, and with the registers and shared memory the reverse kernel needs, 2 per multiprocessor x 132 multiprocessors = 264 fit; launch at most 264 blocks (a grid-stride loop covers the rest) (derivative of 'heat_run')
// CHECK-NOT: reached

#include <stdio.h>
#include <string.h>

#include "cuda_rt.h"

int main(void) {
  CUlaunchAttribute attribute;
  memset(&attribute, 0, sizeof attribute);
  attribute.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attribute.value.cooperative = 1;
  CUlaunchConfig config = {.gridDimX = 132, .gridDimY = 2, .gridDimZ = 1, .blockDimX = 256,
                           .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 1024,
                           .attrs = &attribute, .numAttrs = 1};
  if (!kinase_rt_is_cooperative(&config))
    return printf("FAIL: the cooperative attribute not seen\n"), 1;
  kinase_rt_cooperative_fit("heat_step", "reverse", &config, 2048, 2, 132, "'heat_run'");
  printf("fits: 264 blocks at 2 per multiprocessor on 132\n");

  attribute.value.cooperative = 0;
  printf("plain launch: %s\n", kinase_rt_is_cooperative(&config) ? "cooperative" : "not cooperative");

  attribute.value.cooperative = 1;
  config.gridDimX = 265, config.gridDimY = 1;
  kinase_rt_cooperative_fit("heat_step", "reverse", &config, 2048, 2, 132, "'heat_run'");
  printf("reached: a grid that does not fit was let through\n");
  return 0;
}
