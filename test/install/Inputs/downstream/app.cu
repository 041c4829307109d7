// A kernel differentiating a __device__ function, forward and reverse,
// through Kinase::plugin with clang as the CUDA compiler. Built, not run.
#include <kinase.h>
#include <cstdio>

__device__ double f(double x) { return x * sin(x); }

__global__ void derivatives(const double *x, double *tangent, double *gradient, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  tangent[i] = __enzyme_fwddiff((void *)f, enzyme_dup, x[i], 1.0);
  gradient[i] = __enzyme_autodiff((void *)f, enzyme_out, x[i]);
}

int main() {
  enum { N = 256 };
  double *x, *tangent, *gradient;
  cudaMalloc(&x, N * sizeof *x);
  cudaMalloc(&tangent, N * sizeof *tangent);
  cudaMalloc(&gradient, N * sizeof *gradient);
  derivatives<<<1, N>>>(x, tangent, gradient, N);
  cudaError_t status = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(status));
  return status != cudaSuccess;
}
