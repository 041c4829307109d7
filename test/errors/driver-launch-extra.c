// A differentiated cuLaunchKernel whose arguments come packed in `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER), a layout only the user knows: a located
// error at the launch; also where `extra` is built in the function, as
// users write it, whose sentinels (integers made pointers) are stored beside
// the buffer's address: that was an error about a pointer that may or may
// not have a shadow, at the array. A launch through kernelParams is fine, and so is a
// driver call Kinase has a row for (cuCtxSynchronize); a driver call without
// one (cuModuleUnload: the reverse sweep still needs the module) is an
// error naming it.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 -I%cuda-root/include -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -I%cuda-root/include -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s
#include <cuda.h>
#include <kinase.h>

static CUfunction kernel;
static CUmodule module;

/* extra holds CU_LAUNCH_PARAM_BUFFER_POINTER, the buffer, its size. */
void packed(CUdeviceptr out, void **extra) {
  // CHECK-DAG: {{.*}}driver-launch-extra.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'packed': cuLaunchKernel with 'extra' (arguments packed in a buffer) is not supported: pass the kernel's arguments through kernelParams
  cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra);
}

/* The buffer and its size packed as users pack them. */
float packed_local(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  struct {
    CUdeviceptr out, in;
    float alpha;
    int n;
  } buffer = {out, in, alpha, n};
  size_t size = sizeof buffer;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  // CHECK-DAG: {{.*}}driver-launch-extra.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'packed_local': cuLaunchKernel with 'extra' (arguments packed in a buffer) is not supported: pass the kernel's arguments through kernelParams
  cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra);
  float r;
  cuMemcpyDtoH(&r, out, sizeof r);
  return r;
}

void unloads(CUdeviceptr out, CUdeviceptr in) {
  void *args[] = {&out, &in};
  cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
  cuCtxSynchronize();
  // CHECK-DAG: {{.*}}driver-launch-extra.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'unloads': CUDA API function 'cuModuleUnload' has no derivative rule in Kinase
  cuModuleUnload(module);
}

void gradients(CUdeviceptr out, CUdeviceptr dout, CUdeviceptr in, CUdeviceptr din, void **extra) {
  __enzyme_autodiff((void *)packed, enzyme_dup, out, dout, enzyme_const, extra);
  __enzyme_autodiff((void *)unloads, enzyme_dup, out, dout, enzyme_dup, in, din);
  __enzyme_autodiff((void *)packed_local, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_out, 1.0f,
                    enzyme_const, 32);
}
// CHECK: 3 errors generated.
