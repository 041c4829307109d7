// Regression: cooperative launches in differentiated host code.
// cudaLaunchCooperativeKernel and cuLaunchCooperativeKernel had no row of
// lib/rules/cuda.def (a compile error); their derivative kernels are now
// launched cooperatively too, with the launch's grid, block and stream. A
// cooperative grid must be resident all at once, and a derivative kernel
// may need more shared memory per block (the reverse kernel of a kernel
// with extern __shared__ gets twice the launch's) or more registers, so
// fewer of its blocks fit: the runtime checks the fit with the driver's
// occupancy before the kernel runs and stops with a message naming the
// kernel, never a hang or a wrong gradient.
//
// The kernel squares a grid-stride tile through dynamic shared memory:
// out = alpha * in^2, so din = 2 alpha in dout, d alpha = sum(dout in^2).
//   - cudaLaunchCooperativeKernel, one block per multiprocessor: gradient
//     and forward mode;
//   - cuLaunchCooperativeKernel (the driver's CUfunction of the same
//     kernel): gradient;
//   - a launch whose blocks fit twice per multiprocessor with the kernel's
//     shared memory and once with its reverse kernel's: run as a child
//     process, which must stop with the message and status 1.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe -lcuda
//
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_cooperative_augment(ptr {{.*}}@__device_stub__square_tiles
// CHECK-DAG: call {{.*}}ptr @__kinase_driver_cooperative_augment(ptr
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_direct_cooperative_tangent(ptr {{.*}}@__device_stub__square_tiles
// CHECK-NOT: __enzyme_autodiff

#include <cuda.h>
#include <kinase.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include "cuda_check.h"

enum { N = 40000, THREADS = 256 };

extern "C" __global__ void square_tiles(float *out, const float *in, float alpha, int n) {
  extern __shared__ float tile[];
  int t = threadIdx.x;
  for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    int i = base + t;
    tile[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
      out[i] = alpha * tile[t] * tile[t];
    __syncthreads();
  }
}

static unsigned g_blocks;
static size_t g_shmem = THREADS * sizeof(float);

void square_runtime(float *out, const float *in, float alpha, int n) {
  void *args[] = {&out, &in, &alpha, &n};
  cudaLaunchCooperativeKernel((const void *)square_tiles, dim3(g_blocks), dim3(THREADS), args,
                              g_shmem, nullptr);
}

static CUfunction g_function;

void square_driver(float *out, const float *in, float alpha, int n) {
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchCooperativeKernel(g_function, g_blocks, 1, 1, THREADS, 1, 1, (unsigned)g_shmem, nullptr,
                            args);
}

static std::vector<float> in(N), dout(N);

static void check_gradient(const char *name, float alpha, double dalpha, const float *d_out,
                           const float *d_din) {
  std::vector<float> out(N), din(N);
  check_kernel(name);
  from_device(out, d_out);
  from_device(din, d_din);
  double want = 0;
  for (int i = 0; i < N; i++) {
    want += (double)dout[i] * in[i] * in[i];
    check_close(out[i], alpha * in[i] * in[i], 1e-6, "%s: out[%d]", name, i);
    check_close(din[i], 2.0 * alpha * in[i] * dout[i], 1e-5, "%s: din[%d]", name, i);
  }
  check_close(dalpha, want, 1e-4, "%s: d alpha", name);
}

/* The adjoint of out again, where a reverse sweep consumed it. */
static void reseed(float *d_dout) {
  check_cuda(cudaMemcpy(d_dout, dout.data(), N * sizeof(float), cudaMemcpyHostToDevice), "copy of dout");
}

/* The child: a grid that fits with the kernel's shared memory, not with its
 * reverse kernel's twice as much. It must not come back. */
static int too_large(unsigned blocks, size_t shmem) {
  g_blocks = blocks;
  g_shmem = shmem;
  check_cuda(cudaFuncSetAttribute((const void *)square_tiles,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem),
             "cudaFuncSetAttribute");
  float *d_in = to_device(in), *d_out = device_alloc<float>(N);
  float *d_dout = to_device(dout), *d_din = device_alloc<float>(N);
  __enzyme_autodiff((void *)square_runtime, enzyme_dup, d_out, d_dout, enzyme_dup, d_in, d_din,
                    enzyme_out, 1.5f, enzyme_const, N);
  cudaDeviceSynchronize();
  printf("reached: the reverse kernel was let run\n");
  return 0;
}

int main(int argc, char **argv) {
  for (int i = 0; i < N; i++) {
    in[i] = 0.02f * (float)(i % 29) - 0.3f;
    dout[i] = 1.0f + 0.25f * (float)(i % 5);
  }
  if (argc == 4 && !strcmp(argv[1], "--too-large"))
    return too_large((unsigned)atoi(argv[2]), (size_t)atol(argv[3]));
  require_device();
  int device = 0, sms = 0, cooperative = 0, optin = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SMs");
  check_cuda(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "coop");
  check_cuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
             "shared memory per block");
  if (!cooperative) {
    printf("NO CUDA DEVICE: no cooperative launch on this device\n");
    return 2;
  }
  g_blocks = (unsigned)sms;
  const float alpha = 1.5f;
  float *d_in = to_device(in), *d_out = device_alloc<float>(N);
  float *d_dout = to_device(dout), *d_din = device_alloc<float>(N), *d_t = device_alloc<float>(N);

  check_cuda(cudaMemset(d_din, 0, N * sizeof(float)), "memset");
  double dalpha = __enzyme_autodiff((void *)square_runtime, enzyme_dup, d_out, d_dout, enzyme_dup,
                                    d_in, d_din, enzyme_out, alpha, enzyme_const, N);
  check_gradient("cudaLaunchCooperativeKernel", alpha, dalpha, d_out, d_din);

  /* Forward mode along (tin = dout, t alpha = 0.5): 2 alpha in tin + 0.5 in^2.
   * The reverse sweep consumed d_dout (the shadow of out): it is zero now. */
  reseed(d_dout);
  __enzyme_fwddiff((void *)square_runtime, enzyme_dup, d_out, d_t, enzyme_dup, d_in, d_dout,
                   alpha, 0.5f, enzyme_const, N);
  check_kernel("forward mode");
  std::vector<float> t(N);
  from_device(t, d_t);
  for (int i = 0; i < N; i++)
    check_close(t[i], 2.0 * alpha * in[i] * dout[i] + 0.5 * in[i] * in[i], 1e-5, "tangent[%d]", i);

  check_cuda(cudaGetFuncBySymbol((cudaFunction_t *)&g_function, (const void *)square_tiles),
             "cudaGetFuncBySymbol");
  check_cuda(cudaMemset(d_din, 0, N * sizeof(float)), "memset");
  reseed(d_dout);
  dalpha = __enzyme_autodiff((void *)square_driver, enzyme_dup, d_out, d_dout, enzyme_dup, d_in,
                             d_din, enzyme_out, alpha, enzyme_const, N);
  check_gradient("cuLaunchCooperativeKernel", alpha, dalpha, d_out, d_din);

  /* Shared memory for two blocks per multiprocessor with the kernel, one
   * with its reverse kernel (twice as much): a grid of two per
   * multiprocessor fits the kernel, not its reverse. */
  size_t shmem = ((size_t)optin / 2 - 4096) & ~(size_t)1023;
  int per_sm = 0;
  check_cuda(cudaFuncSetAttribute((const void *)square_tiles,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem),
             "cudaFuncSetAttribute");
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, square_tiles, THREADS, shmem),
             "occupancy");
  if (per_sm < 2) {
    printf("FAIL: test bug: %zu bytes of shared memory fit %d blocks per multiprocessor\n", shmem,
           per_sm);
    return 1;
  }
  char self[4096], command[4200], output[8192] = "";
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  self[length > 0 ? length : 0] = 0;
  snprintf(command, sizeof command, "'%s' --too-large %d %zu 2>&1", self, 2 * sms, shmem);
  FILE *child = popen(command, "r");
  size_t got = child ? fread(output, 1, sizeof output - 1, child) : 0;
  output[got] = 0;
  int status = child ? pclose(child) : -1;
  check_count_++;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 1 ||
      !strstr(output, "kinase: the reverse kernel of cooperative kernel 'square_tiles' does not "
                      "fit on the device")) {
    check_failures_++;
    printf("FAIL too large a cooperative reverse launch: status %d, output:\n%s\n", status, output);
  }
  return check_exit();
}
