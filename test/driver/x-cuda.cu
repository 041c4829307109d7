// -x cuda, on a .cu file and on a file whose suffix is not .cu, compiled and
// linked in one step. The driver adds its runtime archive after the user's
// arguments: the user's -x must not apply to it (clang would compile the
// archive as CUDA).
//
// REQUIRES: cuda
// RUN: %kinase-cc -I%S -x cuda %s -o %t.exe
// RUN: %cuda-host-run %t.exe | FileCheck %s
// RUN: cp %s %t.cpp
// RUN: %kinase-cc -I%S -x cuda %t.cpp -o %t.cpp.exe
// RUN: %cuda-host-run %t.cpp.exe | FileCheck %s
// CHECK: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
#include "Inputs/report.h"

int main() {
  launch_kernel();
  report_kinase();
  return 0;
}
