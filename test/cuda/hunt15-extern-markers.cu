// Device-side requests written as Enzyme's own GPU tests write them: the
// markers declared `extern __device__ int enzyme_dup;` and the entry points
// as variadic templates, no kinase.h. Every thread differentiates its
// sample's loss with respect to parameters all threads share (the same
// shadow), through a loop with an early break, a local array indexed at
// run time, a __constant__ table and a functor template; a second kernel
// writes the loss through a dupnoneed pointer; a third takes tangents.
//
// At -O0 the requests' loads of the markers stayed behind them, and the
// markers reached the PTX as extern variables nothing defines: ptxas
// warned "Unresolved extern variable 'enzyme_dup'" at every compile. The
// markers no request uses any more are deleted.
//   L_i = (h_m(x_i) + 0.1 sum_{j < first h_j > 0.95} h_j^2 - y_i)^2 / 2,
//   h_j = tanh(th_j x_i + knot_j), m = int(4 |x_i|) mod P
// against central differences of the same sum in double.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// PTXAS-NOT: Unresolved extern
// CHECK-NOT: enzyme_dup
// CHECK-LABEL: .entry _Z5grads
// CHECK-NOT: enzyme_
// CHECK-LABEL: .entry _Z9grads_out

#include <math.h>
#include <vector>
#include "cuda_check.h"

extern __device__ int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename R, typename... A> __device__ R __enzyme_autodiff(void *, A...);
template <typename R, typename... A> __device__ R __enzyme_fwddiff(void *, A...);

enum { NS = 4096, P = 6 };

__constant__ float knots[8] = {0.f, 0.25f, 0.5f, 0.75f, 1.f, 1.25f, 1.5f, 2.f};

struct Tanh { __device__ float operator()(float v) const { return tanhf(v); } };

template <class Act>
__device__ float sample_loss(const float *theta, float x, float y) {
  float h[P];
  for (int j = 0; j < P; j++) h[j] = Act()(theta[j] * x + knots[j]);
  int m = (int)(fabsf(x) * 4.f) % P;   // a run-time index into the local array
  float pred = h[m];
  float acc = 0;
  for (int j = 0; j < P; j++) {
    if (h[j] > 0.95f) break;
    acc += h[j] * h[j];
  }
  float r = pred + 0.1f * acc - y;
  return 0.5f * r * r;
}

__device__ void sample_out(const float *theta, float x, float y, float *out) { *out = sample_loss<Tanh>(theta, x, y); }

__global__ void grads(const float *theta, float *dtheta, const float *xs, const float *ys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __enzyme_autodiff<void>((void *)sample_loss<Tanh>, enzyme_dup, theta, dtheta, enzyme_const, xs[i], enzyme_const, ys[i]);
}

__global__ void grads_out(const float *theta, float *dtheta, const float *xs, const float *ys, float *o, float *d_o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  d_o[i] = 1.0f;
  __enzyme_autodiff<void>((void *)sample_out, enzyme_dup, theta, dtheta, enzyme_const, xs[i], enzyme_const, ys[i],
                          enzyme_dupnoneed, o + i, d_o + i);
}

__global__ void tangents(const float *theta, const float *t, const float *xs, const float *ys, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = __enzyme_fwddiff<float>((void *)sample_loss<Tanh>, enzyme_dup, theta, t, enzyme_const, xs[i], enzyme_const, ys[i]);
}

static double ref(const double *th, double x, double y) {
  const double kn[8] = {0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2};
  double h[P];
  for (int j = 0; j < P; j++) h[j] = tanh(th[j] * x + kn[j]);
  int m = (int)(fabsf((float)x) * 4.f) % P;
  double acc = 0;
  for (int j = 0; j < P; j++) { if ((float)h[j] > 0.95f) break; acc += h[j] * h[j]; }
  double r = h[m] + 0.1 * acc - y;
  return 0.5 * r * r;
}

int main() {
  require_device();
  std::vector<float> th(P), xs(NS), ys(NS), z(P, 0.f), t(P), zn(NS, 0.f);
  for (int j = 0; j < P; j++) { th[j] = 0.3f + 0.2f * j; t[j] = cosf(j); }
  for (int i = 0; i < NS; i++) { xs[i] = 1.9f * sinf(0.37f * i); ys[i] = 0.3f * cosf(0.11f * i); }
  float *dth = to_device(th), *g1 = to_device(z), *g2 = to_device(z), *dxs = to_device(xs), *dys = to_device(ys);
  float *o = to_device(zn), *d_o = to_device(zn), *dt = to_device(t), *tout = to_device(zn);
  grads<<<blocks_for(NS, 128), 128>>>(dth, g1, dxs, dys, NS);
  check_kernel("grads");
  grads_out<<<blocks_for(NS, 128), 128>>>(dth, g2, dxs, dys, o, d_o, NS);
  check_kernel("grads_out");
  tangents<<<blocks_for(NS, 128), 128>>>(dth, dt, dxs, dys, tout, NS);
  check_kernel("tangents");
  std::vector<float> h1(P), h2(P), ht(NS);
  from_device(h1, g1); from_device(h2, g2); from_device(ht, tout);
  double want[P] = {0};
  double e = 1e-7;
  for (int i = 0; i < NS; i++) {
    double T[P]; for (int j = 0; j < P; j++) T[j] = th[j];
    double tw = 0;
    for (int j = 0; j < P; j++) {
      double s = T[j]; T[j] = s + e; double a = ref(T, xs[i], ys[i]); T[j] = s - e; double b = ref(T, xs[i], ys[i]); T[j] = s;
      want[j] += (a - b) / (2 * e);
      tw += (a - b) / (2 * e) * t[j];
    }
    if (i % 17 == 0) check_close(ht[i], tw, 2e-3, "tangent of sample %d", i);
  }
  for (int j = 0; j < P; j++) {
    check_close(h1[j], want[j], 2e-3 * 10, "dtheta[%d]", j);
    check_close(h2[j], want[j], 2e-3 * 10, "dtheta[%d] (dupnoneed out)", j);
  }
  device_free_all();
  return check_exit();
}
