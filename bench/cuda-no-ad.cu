// A CUDA program with no derivative request, for bench/cuda-compile-time.sh:
// the kernels CUDA code is made of (an elementwise map, the seed's
// log-likelihood, a 2-D stencil, a shared-memory reduction, a tiled matrix
// product) and the host code that launches them. Kinase still gives every
// kernel its derivative kernels (the device module cannot know which launches
// the host will differentiate); this measures what that costs.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <vector>

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  const float *t = th + 4 * i;
  float q = 0.f;
  for (int k = 0; k < n; k++) {
    float d1 = (x[2 * k] - t[0]) / t[2], d2 = (x[2 * k + 1] - t[1]) / t[3];
    q += d1 * d1 + d2 * d2;
  }
  logL[i] = -0.5f * q - n * (logf(t[2]) + logf(t[3]));
}

__global__ void stencil(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
    return;
  out[y * w + x] = 0.25f * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] +
                            in[(y + 1) * w + x]) - in[y * w + x];
}

__global__ void block_sum(float *out, const float *x, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}

enum { TILE = 16 };
__global__ void matmul(float *c, const float *a, const float *b, int n) {
  __shared__ float ta[TILE][TILE], tb[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n / TILE; t++) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

int main(void) {
  const int n = 1 << 16;
  std::vector<float> h(n, 1.0f);
  float *x, *y, *s;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&s, n / 256 * sizeof(float));
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<n / 256, 256>>>(y, x, 2.0f, n);
  loglik<<<4, 256>>>(y, x, x, 64, 1024);
  stencil<<<dim3(16, 16), dim3(16, 16)>>>(y, x, 256, 256);
  block_sum<<<n / 256, 256>>>(s, y, n);
  matmul<<<dim3(16, 16), dim3(TILE, TILE)>>>(y, x, x, 256);
  cudaMemcpy(h.data(), s, n / 256 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%g\n", h[0]);
  cudaFree(x);
  cudaFree(y);
  cudaFree(s);
  return 0;
}
