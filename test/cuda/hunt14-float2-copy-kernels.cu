// Kernels that copy structs of two floats whole, launched from
// differentiated host code with RAII buffers and std::vector<float2>:
//  - a gather of float2 particles through an index with repeats,
//    `out[i] = in[idx[i]]`;
//  - a kernel copying a `struct Pair { float a, b; }` array beside float
//    work on other pointers, `b[i] = a[i]; z[i] = 2 * w[i]`;
//  - a {float score; int id;} pair moved whole through a permutation;
//  - a float2 local rotated by a helper that is not inlined, then copied
//    out (the local's first copy, made a <2 x float> load and store, hid
//    the floats from the second).
// clang copies such a struct with a memcpy of 8 bytes, which instcombine
// makes one i64 load and store: the kernel info saw no floats move through
// those pointers. The gather had no derivative kernels ("no floating-point
// value reaches it"), and the mixed kernel's reverse kernel took the Pair
// pointers as Const: their gradient was silently 0.
//   loss1 = sum_i q_i.x^2 + 3 q_i.y,  q_i = p[idx[i]]
//     d/dp_j = count(idx == j) (2 p_j.x, 3)
//   loss2 = sum_i b_i.a b_i.b + z_i^2,  b = a, z = 2 w
//     d/da_i = (a_i.b, a_i.a), d/dw_i = 8 w_i
//   loss3 = sum_i o_i.x + 2 o_i.y,  o = R p (R the rotation by (0.8, 0.6))
//     d/dp_i = R^T (1, 2) = (2, 1)
//   loss4 = sum_i c(q_i.id) q_i.score^2,  q_i = s[idx[i]], c(id) = 1 or 0.5
//     d/ds_j.score = count(idx == j) 2 c(j) s_j.score
// Gradients against these; forward mode of loss1 along a direction
// against its gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __kinase_kwhy
// CHECK-DAG: .entry __kinase_krev_dnc__Z6gather
// CHECK-DAG: .entry __kinase_krev_dndn__Z14copy_and_scale
// CHECK-DAG: .entry __kinase_krev_dn__Z10rotate_all
// CHECK-DAG: .entry __kinase_krev_dnc__Z14permute_scored

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 777, THREADS = 128 };

struct Pair {
  float a, b;
};

__global__ void gather(const float2 *in, float2 *out, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[idx[i]];
}

__global__ void energy(const float2 *q, float *e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(e, q[i].x * q[i].x + 3.0f * q[i].y);
}

__global__ void copy_and_scale(const Pair *a, Pair *b, const float *w, float *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i] = a[i];
    z[i] = 2.0f * w[i];
  }
}

// A value with its index, moved whole through a permutation.
struct Scored {
  float score;
  int id;
};

__global__ void permute_scored(const Scored *in, Scored *out, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[idx[i]];
}

// The local is rotated by a helper that is not inlined, then copied out.
__device__ __noinline__ void rotate(float2 *v, float c, float s) {
  float x = v->x;
  v->x = c * x - s * v->y;
  v->y = s * x + c * v->y;
}

__global__ void rotate_all(const float2 *in, float2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float2 v = in[i];
    rotate(&v, 0.8f, 0.6f);
    out[i] = v;
  }
}

template <class T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t n) : n_(n) { cudaMalloc(&p_, n * sizeof(T)); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  T *get() const { return p_; }
  size_t size() const { return n_; }

private:
  T *p_ = nullptr;
  size_t n_;
};

float loss1(const std::vector<float2> &p, const int *idx) {
  int n = (int)p.size();
  DeviceBuffer<float2> d_p(n), d_q(n);
  DeviceBuffer<float> e(1);
  cudaMemcpy(d_p.get(), p.data(), n * sizeof(float2), cudaMemcpyHostToDevice);
  cudaMemset(e.get(), 0, sizeof(float));
  gather<<<blocks_for(n, THREADS), THREADS>>>(d_p.get(), d_q.get(), idx, n);
  energy<<<blocks_for(n, THREADS), THREADS>>>(d_q.get(), e.get(), n);
  float h;
  cudaMemcpy(&h, e.get(), sizeof h, cudaMemcpyDeviceToHost);
  return h;
}

float loss2(const Pair *a, const float *w, int n) {
  DeviceBuffer<Pair> b(n);
  DeviceBuffer<float> z(n);
  copy_and_scale<<<blocks_for(n, THREADS), THREADS>>>(a, b.get(), w, z.get(), n);
  std::vector<Pair> hb(n);
  std::vector<float> hz(n);
  cudaMemcpy(hb.data(), b.get(), n * sizeof(Pair), cudaMemcpyDeviceToHost);
  cudaMemcpy(hz.data(), z.get(), n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += hb[i].a * hb[i].b + hz[i] * hz[i];
  return s;
}

float loss3(const float2 *in, int n) {
  DeviceBuffer<float2> out(n);
  rotate_all<<<blocks_for(n, THREADS), THREADS>>>(in, out.get(), n);
  std::vector<float2> h(n);
  cudaMemcpy(h.data(), out.get(), n * sizeof(float2), cudaMemcpyDeviceToHost);
  float s = 0;
  for (const float2 &v : h)
    s += v.x + 2.0f * v.y;
  return s;
}

float loss4(const Scored *in, const int *idx, int n) {
  DeviceBuffer<Scored> out(n);
  permute_scored<<<blocks_for(n, THREADS), THREADS>>>(in, out.get(), idx, n);
  std::vector<Scored> h(n);
  cudaMemcpy(h.data(), out.get(), n * sizeof(Scored), cudaMemcpyDeviceToHost);
  float s = 0;
  for (const Scored &v : h)
    s += v.score * v.score * (v.id % 2 ? 1.0f : 0.5f);
  return s;
}

int main() {
  require_device();
  std::vector<float2> p(N), dp(N, make_float2(0.f, 0.f)), tp(N);
  std::vector<int> idx(N), count(N, 0);
  for (int i = 0; i < N; i++) {
    p[i] = make_float2(sinf(0.3f * i), cosf(0.17f * i));
    tp[i] = make_float2(cosf(0.05f * i), 0.5f * sinf(0.9f * i));
    idx[i] = (5 * i + 3) % (N / 3 + 1);
    count[idx[i]]++;
  }
  int *d_idx = to_device(idx);
  __enzyme_autodiff((void *)loss1, enzyme_dup, &p, &dp, enzyme_const, d_idx);
  check_kernel("gradient of loss1");
  double t = __enzyme_fwddiff((void *)loss1, enzyme_dup, &p, &tp, enzyme_const, d_idx);
  check_kernel("tangent of loss1");
  double t_want = 0;
  for (int j = 0; j < N; j++) {
    double gx = count[j] * 2.0 * p[j].x, gy = count[j] * 3.0;
    check_close(dp[j].x, gx, 1e-4, "dloss1/dp[%d].x", j);
    check_close(dp[j].y, gy, 1e-4, "dloss1/dp[%d].y", j);
    t_want += gx * tp[j].x + gy * tp[j].y;
  }
  check_close(t, t_want, 1e-3, "tangent of loss1");

  std::vector<Pair> a(N), da(N, Pair{0.f, 0.f});
  std::vector<float> w(N), dw(N, 0.f);
  for (int i = 0; i < N; i++) {
    a[i] = Pair{0.4f + 0.1f * sinf(0.2f * i), cosf(0.6f * i)};
    w[i] = sinf(0.45f * i);
  }
  Pair *d_a = to_device(a), *d_da = to_device(da);
  float *d_w = to_device(w), *d_dw = to_device(dw);
  __enzyme_autodiff((void *)loss2, enzyme_dup, d_a, d_da, enzyme_dup, d_w, d_dw, enzyme_const, N);
  check_kernel("gradient of loss2");
  from_device(da, d_da);
  from_device(dw, d_dw);
  for (int i = 0; i < N; i++) {
    check_close(da[i].a, a[i].b, 1e-4, "dloss2/da[%d].a", i);
    check_close(da[i].b, a[i].a, 1e-4, "dloss2/da[%d].b", i);
    check_close(dw[i], 8.0 * w[i], 1e-4, "dloss2/dw[%d]", i);
  }

  float2 *d_p = to_device(p), *d_dp2 = device_alloc<float2>(N);
  check_cuda(cudaMemset(d_dp2, 0, N * sizeof(float2)), "memset");
  __enzyme_autodiff((void *)loss3, enzyme_dup, d_p, d_dp2, enzyme_const, N);
  check_kernel("gradient of loss3");
  from_device(dp, d_dp2);
  for (int i = 0; i < N; i++) {
    check_close(dp[i].x, 0.8 + 0.6 * 2, 1e-5, "dloss3/dp[%d].x", i);
    check_close(dp[i].y, -0.6 + 0.8 * 2, 1e-5, "dloss3/dp[%d].y", i);
  }

  std::vector<Scored> sc(N), dsc(N, Scored{0.f, 0});
  for (int i = 0; i < N; i++)
    sc[i] = Scored{cosf(0.7f * i), i};
  Scored *d_sc = to_device(sc), *d_dsc = to_device(dsc);
  __enzyme_autodiff((void *)loss4, enzyme_dup, d_sc, d_dsc, enzyme_const, d_idx, enzyme_const, N);
  check_kernel("gradient of loss4");
  from_device(dsc, d_dsc);
  for (int j = 0; j < N; j++) {
    check_close(dsc[j].score, count[j] * 2.0 * sc[j].score * (j % 2 ? 1.0 : 0.5), 1e-4, "dloss4/din[%d].score", j);
    if (dsc[j].id != 0)
      check_close(dsc[j].id, 0, 0, "the shadow of in[%d].id (an integer) changed", j);
  }
  device_free_all();
  return check_exit();
}
