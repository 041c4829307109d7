// Streaming loads and stores with cache hints, as bandwidth-minded code
// writes them: particles read once as float4 with __ldcs, doubles with
// __ldcg and __ldcv, results written with __stwt. clang's headers spell
// these as inline assembly (ld.global.cs.v4.f32, st.global.wt.f32, ...),
// which Kinase refused: "it contains inline assembly ('ld.global.cg.f32
// $0,[$1]'), which Kinase has no derivative rule for". They are now the
// loads and stores they mean. (atomicAdd on __half and __nv_bfloat16
// accumulators, read as atomicrmw fadd, gave wrong gradients on the H200:
// it stays an error naming the assembly, and this program no longer uses it.)
//   loss = sum_i c_i s_i + sum_i d_i^2,     s_i = p_i.x p_i.y + p_i.z p_i.w
// Gradients against the analytic ones; forward mode along a direction
// against the gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*stream_stats" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
//
// The forward kernel loads the particles and their tangents and stores both.
// CHECK-LABEL: .entry __kinase_kfwd_{{[a-z]+}}__Z12stream_stats
// CHECK: ld.global.b32
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 256 };

__global__ void stream_stats(float *s, double *dsq, const float4 *p, const double *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 v = __ldcs(&p[i]);
  float si = v.x * v.y + v.z * v.w;
  __stwt(&s[i], si);
  double di = __ldcg(&d[i]) + 0.0 * __ldcv(&d[i]);
  __stwt(&dsq[i], di * di);
}

float loss(const float *p, const double *d, const float *c, int n) {
  float *s;
  double *dsq;
  cudaMalloc(&s, n * sizeof(float));
  cudaMalloc(&dsq, n * sizeof(double));
  stream_stats<<<(n + 63) / 64, 64>>>(s, dsq, (const float4 *)p, d, n);
  std::vector<float> hs(n);
  std::vector<double> hd(n);
  cudaMemcpy(hs.data(), s, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hd.data(), dsq, n * sizeof(double), cudaMemcpyDeviceToHost);
  float total = 0;
  for (int i = 0; i < n; i++)
    total += c[i] * hs[i] + (float)hd[i];
  cudaFree(s);
  cudaFree(dsq);
  return total;
}

int main() {
  require_device();
  std::vector<float> p(4 * N), c(N), tp(4 * N);
  std::vector<double> d(N), td(N);
  for (int i = 0; i < 4 * N; i++) {
    p[i] = 0.5f * sinf(0.31f * i);
    tp[i] = cosf(0.17f * i);
  }
  for (int i = 0; i < N; i++) {
    c[i] = 1.0f + 0.25f * cosf(0.2f * i);
    d[i] = 0.3 * cos(0.05 * i);
    td[i] = sin(0.4 * i);
  }
  float *d_p = to_device(p), *d_dp = device_alloc<float>(4 * N), *d_tp = to_device(tp);
  double *d_d = to_device(d), *d_dd = device_alloc<double>(N), *d_td = to_device(td);
  check_cuda(cudaMemset(d_dp, 0, 4 * N * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dd, 0, N * sizeof(double)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_p, d_dp, enzyme_dup, d_d, d_dd, enzyme_const,
                    c.data(), enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_p, d_tp, enzyme_dup, d_d, d_td,
                                    enzyme_const, c.data(), enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dp(4 * N);
  std::vector<double> dd(N);
  from_device(dp, d_dp);
  from_device(dd, d_dd);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    const float *v = &p[4 * i];
    double k = c[i];
    double want[4] = {k * v[1], k * v[0], k * v[3], k * v[2]};
    for (int j = 0; j < 4; j++) {
      check_close(dp[4 * i + j], want[j], 1e-5, "dloss/dp[%d].%d", i, j);
      t_want += want[j] * tp[4 * i + j];
    }
    check_close(dd[i], 2.0 * d[i], 1e-12, "dloss/dd[%d]", i);
    t_want += 2.0 * d[i] * td[i];
  }
  check_close(tangent, t_want, 1e-4, "tangent");
  device_free_all();
  return check_exit();
}
