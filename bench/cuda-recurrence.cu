// A kernel whose gradient needs a tape: each thread runs a recurrence in
// registers (s = sin(s) x + c[k], as a per-sample integrator or a Horner-like
// evaluation does), so the reverse sweep needs every s it passed. Written as
// its user writes it, a host function launching the kernel, differentiated
// with one host-level request (xs and the shared coefficients c dup):
//
//   __enzyme_autodiff(run, enzyme_dupnoneed, out, dout, enzyme_dup, xs, dxs,
//                     enzyme_dup, c, dc, N, B)
//
// Kinase's reverse kernel records the loop in the launch's tape arena
// (counting launch, allocation, launch). Against a hand-written gradient
// kernel that keeps the same values in a preallocated, coalesced tape
// (tape[k * B + i]) and sums dc per warp before one atomic, and the primal.
// Prints milliseconds (median of BENCH_REPEAT) and checks that the gradients
// agree. Build: kinase-cc -O2 --cuda-gpu-arch=sm_90.
#include <kinase.h>
#include "cuda_timing.h"
#include <math.h>
#include <stdio.h>
#include <vector>

#include "recurrence.cuh"

enum { BLOCK = RECUR_BLOCK };

/* The hand-written gradient: out's adjoint is dout[i]; b a multiple of 32. */
__global__ void recur_grad(const float *dout, const float *xs, float *dxs, const float *coef,
                           float *dcoef, float *tape, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = xs[i], s = 0.f;
  for (int k = 0; k < n; k++) {
    tape[(size_t)k * b + i] = s;
    s = sinf(s) * x + coef[k];
  }
  float ds = dout[i], dx = 0.f;
  for (int k = n - 1; k >= 0; k--) {
    float prev = tape[(size_t)k * b + i], sn, cs;
    sincosf(prev, &sn, &cs);
    float sum = ds;
    for (int o = 16; o; o >>= 1)
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if ((threadIdx.x & 31) == 0)
      atomicAdd(&dcoef[k], sum);
    dx += ds * sn;
    ds *= cs * x;
  }
  dxs[i] += dx;
}

static void bench(int b, int n) {
  std::vector<float> xs(b), coef(n), ones(b, 1.f);
  for (int i = 0; i < b; i++)
    xs[i] = 0.3f + 0.5f * (float)(i % 997) / 997.f;
  for (int k = 0; k < n; k++)
    coef[k] = 0.1f * cosf(0.37f * k);
  float *out, *dout, *d_xs, *dxs, *d_coef, *dcoef, *tape, *hxs, *hcoef;
  CHECK(cudaMalloc(&out, b * sizeof(float)));
  CHECK(cudaMalloc(&dout, b * sizeof(float)));
  CHECK(cudaMalloc(&d_xs, b * sizeof(float)));
  CHECK(cudaMalloc(&dxs, b * sizeof(float)));
  CHECK(cudaMalloc(&hxs, b * sizeof(float)));
  CHECK(cudaMalloc(&d_coef, n * sizeof(float)));
  CHECK(cudaMalloc(&dcoef, n * sizeof(float)));
  CHECK(cudaMalloc(&hcoef, n * sizeof(float)));
  CHECK(cudaMalloc(&tape, (size_t)b * n * sizeof(float)));
  CHECK(cudaMemcpy(d_xs, xs.data(), b * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_coef, coef.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  auto seed = [&] { CHECK(cudaMemcpy(dout, ones.data(), b * sizeof(float), cudaMemcpyHostToDevice)); };
  seed();
  float primal = median_ms([&] { run(out, d_xs, d_coef, n, b); });
  float hand = median_ms([&] {
    recur_grad<<<b / BLOCK, BLOCK>>>(dout, d_xs, hxs, d_coef, hcoef, tape, n, b);
  });
  float kinase = median_ms([&] {
    __enzyme_autodiff((void *)run, enzyme_dupnoneed, out, dout, enzyme_dup, d_xs, dxs, enzyme_dup,
                      d_coef, dcoef, n, b);
  });
  /* One more of each from zero, to compare. */
  seed();
  CHECK(cudaMemset(dxs, 0, b * sizeof(float)));
  CHECK(cudaMemset(dcoef, 0, n * sizeof(float)));
  CHECK(cudaMemset(hxs, 0, b * sizeof(float)));
  CHECK(cudaMemset(hcoef, 0, n * sizeof(float)));
  recur_grad<<<b / BLOCK, BLOCK>>>(dout, d_xs, hxs, d_coef, hcoef, tape, n, b);
  __enzyme_autodiff((void *)run, enzyme_dupnoneed, out, dout, enzyme_dup, d_xs, dxs, enzyme_dup,
                    d_coef, dcoef, n, b);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> a(b), h(b), ac(n), hc(n);
  CHECK(cudaMemcpy(a.data(), dxs, b * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h.data(), hxs, b * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ac.data(), dcoef, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hc.data(), hcoef, n * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < b; i++)
    worst = fmax(worst, fabs(a[i] - h[i]) / fmax(fabs(h[i]), 1.0));
  for (int k = 0; k < n; k++)
    worst = fmax(worst, fabs(ac[k] - hc[k]) / fmax(fabs(hc[k]), 1.0));
  printf("B=%-8d N=%-6d primal %8.3f ms  hand gradient %8.3f ms  kinase %8.3f ms (%.2fx hand)  "
         "tape %zu MB  max rel. diff %.1e %s\n",
         b, n, primal, hand, kinase, kinase / hand, (size_t)b * n * sizeof(float) >> 20, worst,
         worst < 1e-3 ? "ok" : "MISMATCH");
  cudaFree(out), cudaFree(dout), cudaFree(d_xs), cudaFree(dxs), cudaFree(hxs);
  cudaFree(d_coef), cudaFree(dcoef), cudaFree(hcoef), cudaFree(tape);
}

int main(void) {
  bench(1 << 20, 100);
  bench(1 << 16, 1000);
  bench(1 << 14, 10000);
  return 0;
}
