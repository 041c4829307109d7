// A 1-D heat equation advanced on the host by a time loop, one kernel
// launch per step, the two device buffers swapped with std::swap after each
// step as every explicit solver does: each step overwrites the state the
// step before last produced, and the caller's buffer is one of the two. The
// diffusion number alpha is a by-value float (enzyme_out), the initial
// state enzyme_dup; the loss is a weighted sum of the final state computed
// by a second kernel into a scalar and copied back. Reverse mode against
// the adjoint recursion run on the host; forward mode along the initial
// state and alpha against the same.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <utility>
#include <vector>
#include "cuda_check.h"

enum { N = 257, STEPS = 20 };

// Periodic boundary: u_new[i] = u[i] + alpha (u[i-1] - 2 u[i] + u[i+1]).
__global__ void heat_step(float *__restrict__ next, const float *__restrict__ cur, float alpha,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int l = i == 0 ? n - 1 : i - 1, r = i == n - 1 ? 0 : i + 1;
  next[i] = cur[i] + alpha * (cur[l] - 2.0f * cur[i] + cur[r]);
}

__global__ void weighted_sum(float *out, const float *u, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, w[i] * u[i] * u[i]);
}

// The caller's state u is the first buffer of the pair: after an even
// number of steps the final state is back in it.
float run_heat(float *u, const float *w, float alpha, int n, int steps) {
  float *scratch, *d_out;
  cudaMalloc(&scratch, n * sizeof(float));
  cudaMalloc(&d_out, sizeof(float));
  float *cur = u, *next = scratch;
  for (int s = 0; s < steps; s++) {
    heat_step<<<(n + 127) / 128, 128>>>(next, cur, alpha, n);
    std::swap(cur, next);
  }
  cudaMemset(d_out, 0, sizeof(float));
  weighted_sum<<<(n + 127) / 128, 128>>>(d_out, cur, w, n);
  float out;
  cudaMemcpy(&out, d_out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(scratch);
  cudaFree(d_out);
  return out;
}

static std::vector<double> step_host(const std::vector<double> &u, double alpha) {
  int n = (int)u.size();
  std::vector<double> v(n);
  for (int i = 0; i < n; i++)
    v[i] = u[i] + alpha * (u[(i + n - 1) % n] - 2 * u[i] + u[(i + 1) % n]);
  return v;
}

static double loss_host(std::vector<double> u, const std::vector<double> &w, double alpha) {
  for (int s = 0; s < STEPS; s++)
    u = step_host(u, alpha);
  double out = 0;
  for (int i = 0; i < N; i++)
    out += w[i] * u[i] * u[i];
  return out;
}

int main() {
  require_device();
  const float alpha = 0.21f;
  std::vector<float> u0(N), w(N), du_dir(N);
  std::vector<double> u0d(N), wd(N);
  for (int i = 0; i < N; i++) {
    u0d[i] = u0[i] = expf(-0.002f * (i - 100) * (i - 100)) + 0.2f * sinf(0.1f * i);
    wd[i] = w[i] = 1.0f + 0.5f * cosf(0.05f * i);
    du_dir[i] = sinf(0.3f * i);
  }
  // adjoint recursion: a_T = 2 w u_T, a_{s} = A^T a_{s+1} (A symmetric)
  std::vector<std::vector<double>> states{u0d};
  for (int s = 0; s < STEPS; s++)
    states.push_back(step_host(states.back(), alpha));
  std::vector<double> a(N);
  for (int i = 0; i < N; i++)
    a[i] = 2 * wd[i] * states[STEPS][i];
  double dalpha_want = 0;
  for (int s = STEPS - 1; s >= 0; s--) {
    const std::vector<double> &u = states[s];
    for (int i = 0; i < N; i++)
      dalpha_want += a[i] * (u[(i + N - 1) % N] - 2 * u[i] + u[(i + 1) % N]);
    a = step_host(a, alpha);
  }
  double fd = (loss_host(u0d, wd, alpha + 1e-4) - loss_host(u0d, wd, alpha - 1e-4)) / 2e-4;
  require_exact(dalpha_want, fd, 1e-5, "dloss/dalpha");

  float *d_u = to_device(u0), *d_du = device_alloc<float>(N), *d_w = to_device(w);
  check_cuda(cudaMemset(d_du, 0, N * sizeof(float)), "memset");
  double dalpha = __enzyme_autodiff((void *)run_heat, enzyme_dup, d_u, d_du, enzyme_const, d_w,
                                    enzyme_out, alpha, enzyme_const, N, enzyme_const, STEPS);
  check_kernel("gradient of run_heat");
  std::vector<float> du(N), u_final(N);
  from_device(du, d_du);
  from_device(u_final, d_u);
  for (int i = 0; i < N; i++) {
    check_close(du[i], a[i], 1e-3, "dloss/du0[%d]", i);
    check_close(u_final[i], states[STEPS][i], 1e-4, "u after the steps[%d]", i);
  }
  check_close(dalpha, dalpha_want, 2e-3, "dloss/dalpha");

  // forward mode from the initial state again
  check_cuda(cudaMemcpy(d_u, u0.data(), N * sizeof(float), cudaMemcpyHostToDevice), "reset");
  float *d_tu = to_device(du_dir);
  double tangent = __enzyme_fwddiff((void *)run_heat, enzyme_dup, d_u, d_tu, enzyme_const, d_w,
                                    enzyme_dup, alpha, 0.5f, enzyme_const, N, enzyme_const,
                                    STEPS);
  check_kernel("tangent of run_heat");
  double want = 0.5 * dalpha_want;
  for (int i = 0; i < N; i++)
    want += a[i] * du_dir[i];
  check_close(tangent, want, 2e-3, "tangent along (du, 0.5)");
  device_free_all();
  return check_exit();
}
