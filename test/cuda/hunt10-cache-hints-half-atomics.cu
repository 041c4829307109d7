// Streaming loads and stores with cache hints, and atomicAdd on __half and
// __nv_bfloat16 accumulators, as bandwidth-minded mixed-precision code
// writes them: particles read once as float4 with __ldcs, doubles with
// __ldcg and __ldcv, results written with __stwt, a half-precision running
// sum and a bfloat16 one accumulated with atomicAdd. clang's headers spell
// all of these as inline assembly (ld.global.cs.v4.f32, st.global.wt.f32,
// atom.add.noftz.f16, ...), which Kinase refused: "it contains inline
// assembly ('ld.global.cg.f32 $0,[$1]'), which Kinase has no derivative rule
// for". They are now the loads, stores and atomicrmw fadd they mean.
//   loss = sum_i c_i s_i + w_h half(sum_i 0.01 s_i) + w_b bf16(sum_i p_i.x)
//          + sum_i d_i^2,     s_i = p_i.x p_i.y + p_i.z p_i.w
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
// The reverse kernel adds the accumulators' adjoints back as it reads them;
// forward mode adds the tangents atomically in half and bfloat16.
// CHECK-LABEL: .entry __kinase_kfwd_{{[a-z]+}}__Z12stream_stats
// CHECK-DAG: atom.global.add.noftz.f16
// CHECK-DAG: atom.global.add.noftz.bf16

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 256 };

__global__ void stream_stats(float *s, __half *hsum, __nv_bfloat16 *bsum, double *dsq,
                             const float4 *p, const double *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 v = __ldcs(&p[i]);
  float si = v.x * v.y + v.z * v.w;
  __stwt(&s[i], si);
  atomicAdd(hsum, __float2half(0.01f * si));
  atomicAdd(bsum, __float2bfloat16(v.x));
  double di = __ldcg(&d[i]) + 0.0 * __ldcv(&d[i]);
  __stwt(&dsq[i], di * di);
}

float loss(const float *p, const double *d, const float *c, float wh, float wb, int n) {
  float *s;
  double *dsq;
  __half *hsum;
  __nv_bfloat16 *bsum;
  cudaMalloc(&s, n * sizeof(float));
  cudaMalloc(&dsq, n * sizeof(double));
  cudaMalloc(&hsum, sizeof(__half));
  cudaMalloc(&bsum, sizeof(__nv_bfloat16));
  cudaMemset(hsum, 0, sizeof(__half));
  cudaMemset(bsum, 0, sizeof(__nv_bfloat16));
  stream_stats<<<(n + 63) / 64, 64>>>(s, hsum, bsum, dsq, (const float4 *)p, d, n);
  std::vector<float> hs(n);
  std::vector<double> hd(n);
  __half h;
  __nv_bfloat16 bf;
  cudaMemcpy(hs.data(), s, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hd.data(), dsq, n * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h, hsum, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&bf, bsum, sizeof bf, cudaMemcpyDeviceToHost);
  float total = wh * __half2float(h) + wb * __bfloat162float(bf);
  for (int i = 0; i < n; i++)
    total += c[i] * hs[i] + (float)hd[i];
  cudaFree(s);
  cudaFree(dsq);
  cudaFree(hsum);
  cudaFree(bsum);
  return total;
}

int main() {
  require_device();
  const float wh = 1.0f, wb = 0.5f;
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
                    c.data(), enzyme_const, wh, enzyme_const, wb, enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_p, d_tp, enzyme_dup, d_d, d_td,
                                    enzyme_const, c.data(), enzyme_const, wh, enzyme_const, wb,
                                    enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dp(4 * N);
  std::vector<double> dd(N);
  from_device(dp, d_dp);
  from_device(dd, d_dd);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    const float *v = &p[4 * i];
    double k = c[i] + wh * 0.01;
    double want[4] = {k * v[1] + wb, k * v[0], k * v[3], k * v[2]};
    for (int j = 0; j < 4; j++) {
      check_close(dp[4 * i + j], want[j], 2e-3, "dloss/dp[%d].%d", i, j);
      t_want += want[j] * tp[4 * i + j];
    }
    check_close(dd[i], 2.0 * d[i], 1e-12, "dloss/dd[%d]", i);
    t_want += 2.0 * d[i] * td[i];
  }
  check_close(tangent, t_want, 1e-2, "tangent");
  device_free_all();
  return check_exit();
}
