// The runtime's messages name kernels and the differentiated function as
// the source does: a CUDA C++ kernel's PTX name (cuFuncGetName) and the
// host function Kinase passes as `where` are Itanium-mangled, and a message
// such as "kernel '_Z12loglik_batchPfPKfS1_ii' has no derivative kernels"
// made the user decode them. The runtime demangles with the C++ runtime's
// __cxa_demangle where the program links it (every CUDA C++ program); a C
// program of the driver API that does not keeps the names as they are.
// Without a GPU: the names and the message, not a launch.
//
// REQUIRES: cuda
// RUN: %clang -std=c11 -Wall -Wextra -Werror %cudainc %runtimeinc %s %kinase-rt %cuda-link -lstdc++ -o %t.exe
// RUN: not %cuda-host-run %t.exe > %t.out 2>&1
// RUN: FileCheck %s --input-file=%t.out
// RUN: %clang -std=c11 -Wall -Wextra -Werror %cudainc %runtimeinc %s %kinase-rt %cuda-link -o %t.c.exe
// RUN: not %cuda-host-run %t.c.exe > %t.c.out 2>&1
// RUN: FileCheck %s --check-prefix=C --input-file=%t.c.out
//
// CHECK: kernel: loglik_batch(float*, float const*, float const*, int, int)
// CHECK-NEXT: template: void total_shared<128>(float*, float const*, int)
// CHECK-NEXT: C name: loglik
// CHECK-NEXT: kinase: kernel 'loglik_batch(float*, float const*, float const*, int, int)' has no derivative kernels (derivative of loss(std::vector<float, std::allocator<float> > const&, float const*, int))
// C: kernel: _Z12loglik_batchPfPKfS1_ii
// C: kinase: kernel '_Z12loglik_batchPfPKfS1_ii' has no derivative kernels (derivative of _Z4lossRKSt6vectorIfSaIfEEPKfi)

#include <stdio.h>
#include <stdlib.h>

#include "cuda_rt.h"

static void show(const char *what, const char *name) {
  char *readable = kinase_rt_demangle(name);
  printf("%s: %s\n", what, readable);
  free(readable);
}

int main(void) {
  const char *kernel = "_Z12loglik_batchPfPKfS1_ii";
  show("kernel", kernel);
  show("template", "_Z12total_sharedILi128EEvPfPKfi");
  show("C name", "loglik");
  char *readable = kinase_rt_demangle(kernel);
  kinase_rt_fail("_Z4lossRKSt6vectorIfSaIfEEPKfi", "kernel '%s' has no derivative kernels", readable);
}
