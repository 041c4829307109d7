// The reverse kernel of bench/cuda-axpy-alpha.cu written by hand in CUDA, to
// learn what makes Kinase's slower (docs/PERFORMANCE.md, axpy): the same work
// with buffers from cudaMalloc or from a keeping pool like the runtime's, with
// and without the block sum, and as Kinase emits it (dy[i] zeroed, then stored
// again under a run-time test of the grid's shape). Prints milliseconds
// (median of 16) at n = 2^20 and 2^24. Build: kinase-cc -O2 --cuda-gpu-arch=sm_90.
#include <cuda_runtime.h>
#include <stdio.h>
#include <algorithm>
#include <vector>
#define CHECK(c) do { cudaError_t err_ = (c); if (err_) { printf("%s: %s\n", #c, cudaGetErrorString(err_)); return 1; } } while (0)
__global__ void rep(float *dy, const float *x, float *dx, float alpha, float *dalpha, int n) {
  __shared__ float sum;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float c = 0.f;
  if (i < n) {
    float g = dy[i];
    dy[i] = 0.f;
    dy[i] = g + 0.f;
    dx[i] += alpha * g;
    c = x[i] * g;
  }
  if (!dalpha) return;
  if (threadIdx.x == 0) sum = 0.f;
  __syncthreads();
  for (int o = 16; o; o /= 2) c += __shfl_xor_sync(~0u, c, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&sum, c);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(dalpha, sum);
}
// As Kinase emits it: dy zeroed, then the adjoint added back under a
// run-time test of the grid's shape (atomics when it is not 1-D).
__global__ void rep2(float *dy, const float *x, float *dx, float alpha, float *dalpha, int n) {
  __shared__ float sum;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float c = 0.f;
  if (i < n) {
    float g = dy[i];
    float xi = x[i];
    dy[i] = 0.f;
    if (blockDim.y * blockDim.z * gridDim.y * gridDim.z == 1) {
      dy[i] = g + 0.f;
      dx[i] = dx[i] + alpha * g;
    } else {
      atomicAdd(&dy[i], g);
      atomicAdd(&dx[i], alpha * g);
    }
    c = xi * g;
  }
  if (!dalpha) return;
  if (threadIdx.x == 0) sum = 0.f;
  __syncthreads();
  for (int o = 16; o; o /= 2) c += __shfl_xor_sync(~0u, c, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&sum, c);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(dalpha, sum);
}
__global__ void norev(float *dy, const float *x, float *dx, float alpha, float *dalpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float g = dy[i]; dx[i] += alpha * g; if (x[i] * g == 12345.f) dalpha[0] = 1; }
}
int main() {
  for (int n : {1 << 20, 1 << 24}) {
    size_t b = n * 4ul;
    float *dy, *x, *dx, *acc, *pdx, *pacc;
    CHECK(cudaMalloc(&dy, b)); CHECK(cudaMalloc(&x, b)); CHECK(cudaMalloc(&dx, b)); CHECK(cudaMalloc(&acc, 8));
    cudaMemset(dy, 0, b); cudaMemset(x, 0, b); cudaMemset(dx, 0, b); cudaMemset(acc, 0, 8);
    cudaMemPool_t pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned; props.location.type = cudaMemLocationTypeDevice; props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    unsigned long long keep = 10ull << 30;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    CHECK(cudaMallocFromPoolAsync((void **)&pdx, b, pool, 0));
    CHECK(cudaMallocFromPoolAsync((void **)&pacc, 8, pool, 0));
    cudaMemsetAsync(pdx, 0, b); cudaMemsetAsync(pacc, 0, 8);
    CHECK(cudaDeviceSynchronize());
    struct { const char *name; float *dx, *acc; int k; } v[] = {
      {"malloc dx, malloc acc", dx, acc, 0}, {"pool dx, malloc acc", pdx, acc, 0},
      {"malloc dx, pool acc", dx, pacc, 0}, {"pool dx, pool acc", pdx, pacc, 0},
      {"no reduction", dx, nullptr, 0}, {"stream only (norev)", dx, acc, 1}, {"as emitted (zero, test)", pdx, pacc, 2}};
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    for (auto &w : v) {
      std::vector<float> t;
      for (int r = 0; r < 16; r++) {
        cudaEventRecord(s);
        if (w.k == 2) rep2<<<n / 256, 256>>>(dy, x, w.dx, 0.75f, w.acc, n);
        else if (w.k) norev<<<n / 256, 256>>>(dy, x, w.dx, 0.75f, w.acc, n);
        else rep<<<n / 256, 256>>>(dy, x, w.dx, 0.75f, w.acc, n);
        cudaEventRecord(e); CHECK(cudaEventSynchronize(e));
        float ms; cudaEventElapsedTime(&ms, s, e); t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      printf("n=%d %-24s %.4f ms\n", n, w.name, t[8]);
    }
    cudaFree(dy); cudaFree(x); cudaFree(dx); cudaFree(acc); cudaFreeAsync(pdx, 0); cudaFreeAsync(pacc, 0);
    cudaDeviceSynchronize(); cudaMemPoolDestroy(pool);
  }
}
