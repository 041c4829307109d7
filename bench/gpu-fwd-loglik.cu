// Per-sample gradients of a Gaussian log-likelihood on the GPU, the
// motivating workload: each thread owns (mu, log_sigma) and sums over the
// same K data points, passed as a constant. Kinase's forward mode (one
// __enzyme_fwddiff per direction) and reverse mode (one __enzyme_autodiff,
// both partials) against a hand-written gradient kernel.
// Prints the time of each and their ratio. Build: kinase-cc -O2 (sm_90).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__device__ int enzyme_dup;
__device__ int enzyme_const;
__device__ int enzyme_out;
extern __device__ double __enzyme_fwddiff(void *, ...);
struct Grad2 {
  double dmu, dls;
};
extern __device__ Grad2 __enzyme_autodiff(void *, ...);

enum { SAMPLES = 1 << 20, K = 256, BLOCK = 256, REPEAT = 20 };

__device__ double loglik(double mu, double log_sigma, const double *data, int k) {
  double inv = exp(-log_sigma), s = 0;
  for (int j = 0; j < k; j++) {
    double z = (data[j] - mu) * inv;
    s += -0.5 * z * z - log_sigma;
  }
  return s;
}

__global__ void kinase_gradient(const double *mu, const double *ls, const double *data, int k,
                                double *dmu, double *dls) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= SAMPLES)
    return;
  dmu[i] = __enzyme_fwddiff((void *)loglik, enzyme_dup, mu[i], 1.0, enzyme_dup, ls[i], 0.0,
                            enzyme_const, data, enzyme_const, k);
  dls[i] = __enzyme_fwddiff((void *)loglik, enzyme_dup, mu[i], 0.0, enzyme_dup, ls[i], 1.0,
                            enzyme_const, data, enzyme_const, k);
}

__global__ void kinase_reverse(const double *mu, const double *ls, const double *data, int k,
                               double *dmu, double *dls) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= SAMPLES)
    return;
  Grad2 g = __enzyme_autodiff((void *)loglik, enzyme_out, mu[i], enzyme_out, ls[i], enzyme_const, data,
                              enzyme_const, k);
  dmu[i] = g.dmu;
  dls[i] = g.dls;
}

/* d/dmu = sum z * inv; d/dlog_sigma = sum z^2 - 1. */
__global__ void hand_gradient(const double *mu, const double *ls, const double *data, int k,
                              double *dmu, double *dls) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= SAMPLES)
    return;
  double inv = exp(-ls[i]), a = 0, b = 0;
  for (int j = 0; j < k; j++) {
    double z = (data[j] - mu[i]) * inv;
    a += z * inv;
    b += z * z - 1.0;
  }
  dmu[i] = a;
  dls[i] = b;
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e = (call);                                                                        \
    if (e != cudaSuccess) {                                                                        \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);               \
      return 2;                                                                                    \
    }                                                                                              \
  } while (0)

typedef void (*Kernel)(const double *, const double *, const double *, int, double *, double *);

static float best_ms(Kernel kernel, const double *mu, const double *ls, const double *data,
                     double *dmu, double *dls) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int r = 0; r < REPEAT; r++) {
    cudaEventRecord(start);
    kernel<<<SAMPLES / BLOCK, BLOCK>>>(mu, ls, data, K, dmu, dls);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    best = ms < best ? ms : best;
  }
  return best;
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("NO CUDA DEVICE\n");
    return 2;
  }
  size_t bytes = SAMPLES * sizeof(double);
  double *h_mu = (double *)malloc(bytes), *h_ls = (double *)malloc(bytes), h_data[K];
  for (int i = 0; i < SAMPLES; i++) {
    h_mu[i] = 0.001 * (i % 1000);
    h_ls[i] = -0.5 + 0.0001 * (i % 5000);
  }
  for (int j = 0; j < K; j++)
    h_data[j] = sin(0.1 * j);
  double *mu, *ls, *data, *a_mu, *a_ls, *b_mu, *b_ls;
  CHECK(cudaMalloc(&mu, bytes));
  CHECK(cudaMalloc(&ls, bytes));
  CHECK(cudaMalloc(&data, sizeof h_data));
  CHECK(cudaMalloc(&a_mu, bytes));
  CHECK(cudaMalloc(&a_ls, bytes));
  CHECK(cudaMalloc(&b_mu, bytes));
  CHECK(cudaMalloc(&b_ls, bytes));
  CHECK(cudaMemcpy(mu, h_mu, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ls, h_ls, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(data, h_data, sizeof h_data, cudaMemcpyHostToDevice));
  float hand = best_ms(hand_gradient, mu, ls, data, b_mu, b_ls);
  static const struct {
    const char *name;
    Kernel kernel;
  } variants[2] = {{"forward mode, 2 directions", kinase_gradient}, {"reverse mode", kinase_reverse}};
  double *ga = (double *)malloc(bytes), *gb = (double *)malloc(bytes);
  double worst_all = 0;
  for (int v = 0; v < 2; v++) {
    float kinase = best_ms(variants[v].kernel, mu, ls, data, a_mu, a_ls);
    CHECK(cudaGetLastError());
    double worst = 0;
    for (int pass = 0; pass < 2; pass++) {
      CHECK(cudaMemcpy(ga, pass ? a_ls : a_mu, bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(gb, pass ? b_ls : b_mu, bytes, cudaMemcpyDeviceToHost));
      for (int i = 0; i < SAMPLES; i++) {
        double err = fabs(ga[i] - gb[i]) / (1 + fabs(gb[i]));
        worst = err > worst ? err : worst;
      }
    }
    printf("loglik gradients, %d samples x %d data: kinase %s %.3f ms, hand-written %.3f ms, ratio %.2f, "
           "max relative difference %.1e\n",
           SAMPLES, K, variants[v].name, kinase, hand, kinase / hand, worst);
    worst_all = worst > worst_all ? worst : worst_all;
  }
  return worst_all < 1e-9 ? 0 : 1;
}
