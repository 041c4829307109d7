// An exception crossing the reverse-mode derivative of CUDA host code: what
// the augmented sweep allocated is released on the way out, the CUDA
// runtime's part included: the launches' records (__kinase_launch_discard,
// through the launch pair's release function), the shadow of the device
// buffer cudaMalloc allocated (__kinase_shadow_free), and the primal's
// cudaFree, which the forward sweep defers to the end of the reverse sweep
// (__kinase_release_deferred). loss() throws after its launches, from a call
// that is no invoke (it has no locals to destroy): the augmented sweep gives
// it a landing pad of its own, which resumes.
//
// On the GPU: device memory in use is the same after each throwing request
// as before it, and the host's heap blocks grow by less than one a throw
// (the first requests warm up the unwinder, the runtime and the driver);
// the gradient of a request that does not throw is d/dx of (3 x)^2 = 18 x.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %opt -passes=verify -disable-output %t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes=verify -disable-output %t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The throw from check_below, a call of loss with no landing pad, gets one
// in the augmented sweep (which resumes): the tape of loss, then the
// deferred cudaFree.
// CHECK-LABEL: define internal {{.*}} @__kinase_aug__Z4lossPKfPfif(
// CHECK: call void @__kinase_defer_release(
// CHECK: invoke void @_Z11check_belowff(
// CHECK-NEXT: to label %{{.*}} unwind label %[[PAD:[0-9]+]]
// CHECK: [[PAD]]:
// CHECK-NEXT: landingpad
// CHECK-NEXT: cleanup
// CHECK-NEXT: call void @__kinase_free__Z4lossPKfPfif(
// CHECK-NEXT: call void @__kinase_release_deferred()
//
// The tape of loss holds the tapes of both launches, and the shadow of
// cudaMalloc's memory (cuda_runtime.h's cudaMalloc<float> is inlined before
// differentiation), which it frees through the runtime.
// CHECK-LABEL: define internal void @__kinase_free__Z4lossPKfPfif(
// CHECK: call void @__kinase_free__Z20__device_stub__scalePfPKffi(
// CHECK: call void @__kinase_free__Z20__device_stub__scalePfPKffi(
// CHECK: call void @__kinase_shadow_free(
// CHECK: ret void
//
// A launch pair's release function hands the record back.
// CHECK-LABEL: define internal void @__kinase_free__Z20__device_stub__scalePfPKffi(
// CHECK: call void @__kinase_launch_discard(

#include <kinase.h>
#include <stdexcept>
#include "cuda_check.h"

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}
static long live_blocks;
extern "C" void *malloc(size_t n) { return live_blocks++, __libc_malloc(n); }
extern "C" void *calloc(size_t n, size_t size) { return live_blocks++, __libc_calloc(n, size); }
extern "C" void *realloc(void *p, size_t n) { return live_blocks += p == nullptr, __libc_realloc(p, n); }
extern "C" void *aligned_alloc(size_t a, size_t n) { return live_blocks++, __libc_memalign(a, n); }
extern "C" void free(void *p) { live_blocks -= p != nullptr, __libc_free(p); }

__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

__attribute__((noinline)) void check_below(float s, float limit) {
  if (s > limit)
    throw std::range_error("loss over the limit");
}

// A device buffer of this many floats, 64 MiB: its shadow, when leaked,
// shows in cudaMemGetInfo.
static const size_t BIG = 16u << 20;

// sum of (3 x)^2 over x, through a temporary device buffer; throws when it
// exceeds limit.
float loss(const float *x, float *y, int n, float limit) {
  float *tmp;
  cudaMalloc(&tmp, BIG * sizeof(float));
  scale<<<(n + 127) / 128, 128>>>(tmp, x, 2.0f, n);
  scale<<<(n + 127) / 128, 128>>>(y, tmp, 1.5f, n);
  cudaFree(tmp);
  float host[256];
  cudaMemcpy(host, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += host[i] * host[i];
  check_below(s, limit);
  return s;
}

static bool request(float *d_x, float *d_dx, float *d_y, float *d_dy, int n, float limit) {
  try {
    __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n,
                      enzyme_const, limit);
    return false;
  } catch (const std::range_error &) {
    return true;
  }
}

static size_t device_used() {
  size_t free_bytes, total;
  check_cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  return total - free_bytes;
}

int main() {
  require_device();
  const int n = 256;
  std::vector<float> x(n), zero(n, 0.0f);
  double sum = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.01f * (i + 1);
    sum += 9.0 * x[i] * x[i];
  }
  float *d_x = to_device(x), *d_dx = to_device(zero), *d_y = device_alloc<float>(n),
        *d_dy = to_device(zero);
  float below = (float)(sum / 2), above = (float)(sum * 2);
  request(d_x, d_dx, d_y, d_dy, n, below); // warm-up: the unwinder, the runtime, the kernels
  request(d_x, d_dx, d_y, d_dy, n, above);
  // A launch's record is two heap blocks and its snapshots one more: a
  // leak of them grows the count by 3 a round; the CUDA driver's own
  // allocations, warmed up above, by less in all.
  const int rounds = 4;
  long blocks = live_blocks;
  for (int round = 0; round < rounds; round++) {
    check_cuda(cudaDeviceSynchronize(), "synchronize");
    size_t used = device_used();
    bool threw = request(d_x, d_dx, d_y, d_dy, n, below);
    check_cuda(cudaDeviceSynchronize(), "synchronize");
    check_close(threw, 1, 0, "round %d: the request throws", round);
    // the buffer and its shadow are 64 MiB each: a leak of either shows
    check_within((double)device_used(), (double)used, 8 << 20, "round %d: device memory in use", round);
  }
  check_within((double)(live_blocks - blocks), 0, rounds - 1, "host heap blocks after %d throws", rounds);
  std::vector<float> dx(n);
  check_cuda(cudaMemcpy(d_dx, zero.data(), n * sizeof(float), cudaMemcpyHostToDevice), "clear dx");
  check_close(request(d_x, d_dx, d_y, d_dy, n, above), 0, 0, "the request under the limit returns");
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 18.0 * x[i], 1e-4, "dx[%d]", i);
  device_free_all();
  return check_exit();
}
