// Relocatable device code (-fgpu-rdc): the kernel here calls a device
// function defined in another file, Inputs/device-twice.cu. Compiled and
// linked in one step, and compiled (-c) then linked as objects. clang links
// the device code of such objects only when told (--offload-link, which the
// driver adds when an object holds relocatable device code): without it the
// program links, but with no device code at all (no .nv_fatbin).
//
// REQUIRES: cuda
// RUN: %kinase-cc -I%S -fgpu-rdc %s %S/Inputs/device-twice.cu -o %t.exe
// RUN: %cuda-host-run %t.exe | FileCheck %s
// RUN: llvm-objcopy --dump-section=.nv_fatbin=%t.fatbin %t.exe %t.copy
// RUN: llvm-strings %t.fatbin | FileCheck %s --check-prefix=DEVICE
// RUN: %kinase-cc -I%S -fgpu-rdc -c %s -o %t.main.o
// RUN: %kinase-cc -fgpu-rdc -c %S/Inputs/device-twice.cu -o %t.twice.o
// RUN: %kinase-cc %t.main.o %t.twice.o -o %t.objects.exe
// RUN: %cuda-host-run %t.objects.exe | FileCheck %s
// RUN: llvm-objcopy --dump-section=.nv_fatbin=%t.objects.fatbin %t.objects.exe %t.objects.copy
// RUN: llvm-strings %t.objects.fatbin | FileCheck %s --check-prefix=DEVICE
// CHECK: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
// DEVICE-DAG: .text._Z11apply_twicePd
// DEVICE-DAG: .text._Z5twiced
#include "Inputs/report.h"

extern __device__ double twice(double x);

__global__ void apply_twice(double *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }

int main() {
  launch_kernel();
  report_kinase();
  return 0;
}
