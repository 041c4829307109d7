// Remarks in device code (issue 11): which adjoints are added atomically
// and why, which plainly because the address is the thread's own.
// REQUIRES: cuda
// RUN: %kinase-cc -O0 --cuda-device-only -S %s -o /dev/null -Rpass=kinase -Rpass-missed=kinase 2>&1 | FileCheck %s
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o /dev/null -Rpass=kinase -Rpass-missed=kinase 2>&1 | FileCheck %s
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | count 0
#include <kinase.h>
#include <math.h>

// The seed, through a device-side request: thread i passes dth + 4*i and the
// function touches 16 bytes of it, so its adjoints are plain adds (in a
// one-dimensional launch); the data loop only reads, so it is recomputed.
__device__ void loglik_one(float *logL, const float *th, const float *x, int N) {
  // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}loglik_one{{.*}}': the adjoint of the load from parameter 2: plain add (owned by thread) in a one-dimensional launch, atomic in others (threads may share an x index), because the request gives the thread a part of the shadow of its own [-Rpass=kinase]
  float mu1 = th[0], mu2 = th[1], s1 = th[2], s2 = th[3];
  float is1 = 1.f / s1, is2 = 1.f / s2, q = 0.f;
  // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}loglik_one{{.*}}': the load from parameter 3 is recomputed in the reverse sweep, not recorded: the function writes no memory but its own [-Rpass=kinase]
  for (int k = 0; k < N; k++) { float d1 = (x[2*k] - mu1) * is1, d2 = (x[2*k+1] - mu2) * is2; q += d1 * d1 + d2 * d2; }
  *logL = -0.5f * q - N * (logf(s1) + logf(s2)) - N * logf(2.f * 3.14159265f);
}

__global__ void gradients(float *logL, float *dlogL, const float *th, float *dth, const float *x, int N, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}loglik_one{{.*}}': the shadow passed for parameter 2 is the thread's own: the request passes base + S * gid + c and the function reaches only the thread's S bytes of it [-Rpass=kinase]
    __enzyme_autodiff((void *)loglik_one, enzyme_dupnoneed, logL + i, dlogL + i, enzyme_dup, th + 4 * i, dth + 4 * i, enzyme_const, x, enzyme_const, N);
}

// Every thread with the same parameters: their shadow is shared.
__device__ float shared_one(const float *th) { return th[0] * th[0]; }
__global__ void shared_gradients(const float *th, float *dth, float *out) {
  // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}shared_one{{.*}}': the shadow passed for parameter 1 is not the thread's own, its adjoints are added atomically: the request does not pass it as base + S * gid + c, {{.*}} [-Rpass-missed=kinase]
  out[threadIdx.x] = __enzyme_autodiff((void *)shared_one, enzyme_dup, th, dth);
}

// All pairs: thread i reads every r[j], so the adjoint of r[j] (dr[j] += ...)
// may come from every thread; r[i] is the thread's, but r is read elsewhere
// too. Derivative kernels are made for every kernel.
__global__ void energies(float *e, const float *r, const float *scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.f;
  for (int j = 0; j < n; j++) {
    // CHECK-DAG: device.cu:[[@LINE+2]]:{{[0-9]+}}: remark: gradient of '{{.*}}energies{{.*}}': the adjoint of the load from parameter 2: summed across the warp at the end of each loop iteration and added atomically by one lane when all 32 lanes enter the loop together and agree on its count and on what the address is computed from, else atomic per lane, because the address is not base + S * gid + c in the thread's global index gid (blockIdx.x * blockDim.x + threadIdx.x): other threads may add to the same element (shared) [-Rpass-missed=kinase]
    // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}energies{{.*}}': the adjoint of the load from parameter 2: atomic add, because the address depends on the thread index, but the function also reaches that parameter outside the thread's S bytes [S * gid, S * gid + S) (the load at line [[#@LINE+1]]): shared [-Rpass-missed=kinase]
    float d = r[i] - r[j];
    s += d * d;
  }
  // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}energies{{.*}}': the adjoint of the load from parameter 3: atomic add, because the address is the same for every thread: shared [-Rpass-missed=kinase]
  e[i] = s * *scale;
}

// One element a thread: plain adds.
__global__ void squares(float *y, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}squares{{.*}}': the adjoint of the load from parameter 2: plain add (owned by thread) in a one-dimensional launch, atomic in others (threads may share an x index), because the address is base + S * gid + c and the function reaches only the thread's S bytes of base [-Rpass=kinase]
  y[i] = x[i] * x[i];
}

// __shared__ memory is the block's: its adjoints are atomic (summed across
// the warp first where all its lanes add to one address; here one lane does).
__global__ void block_sums(float *out, const float *x) {
  __shared__ float s[256];
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int k = 0; k < 256; k++)
      // CHECK-DAG: device.cu:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of '{{.*}}block_sums{{.*}}': the adjoint of the load from the __shared__ variable '{{.*}}': summed across the warp at the end of each loop iteration and added atomically by one lane when all 32 lanes enter the loop together and agree on its count and on what the address is computed from, else atomic per lane, because the address is in a variable every thread reaches (global or __shared__): shared [-Rpass-missed=kinase]
      t += s[k];
    out[blockIdx.x] = t;
  }
}
