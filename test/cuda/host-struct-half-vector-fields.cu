// Kernels taking structs by value with float4, __half and __nv_bfloat16
// fields, and a __half by value, launched from differentiated host code,
// both modes:
//   poly:   out_i = c.x + c.y x_i + c.z x_i^2 + c.w x_i^3 (float4 c)
//           dc = sum_i w_i (1, x_i, x_i^2, x_i^3), one adjoint per lane
//   mix:    out_i = s x_i + t y_i (s a __half field, t a __nv_bfloat16 one)
//           ds = sum_i w_i x_i (t, Const here, comes converted from the
//           caller; regress-bf16-host-convert.cu converts in the
//           differentiated function)
//   hscale: out_i = s x_i (s a __half parameter)       ds = sum_i w_i x_i
// The adjoints of by-value floats and fields are summed over each full
// warp with shuffles (16-bit ones in float), then added by one atomic per
// warp in their own precision (a half sum grown a thread at a time loses
// the shares below its last bit).
// A __half2 field gets no derivative kernels: host C++ copies the pair as a
// 32-bit integer, through which no adjoint would come back (the reason is
// in the module).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=ATOM --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --check-prefix=ALIGNED --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// PTX-DAG: __kinase_kwhy__Z4pair4Pair[{{[0-9]+}}] = {105, 116, 32, 116, 97, 107, 101, 115, 32, 97, 32, 95, 95, 104, 97, 108, 102, 50,
// PTX-DAG: .entry __kinase_krev_n__Z4poly4PolyPf(
// PTX-DAG: .entry __kinase_kfwd_d__Z4poly4PolyPf(
// PTX-DAG: .entry __kinase_kfwd_d__Z3mix3MixPf(
// PTX-DAG: .entry __kinase_kfwd_dd__Z6hscalePKf6__halfPfi(
// The 16-bit fields' adjoints go to the accumulator at their offsets (s at
// 8, t at 10; the __half parameter's at 0).
// ATOM-LABEL: .entry __kinase_krev_n__Z3mix3MixPf(
// ATOM-DAG: atom.global.add.noftz.f16 {{.*}}+8]
// ATOM-DAG: atom.global.add.noftz.bf16 {{.*}}+10]
// ATOM-LABEL: .entry __kinase_krev_dn__Z6hscalePKf6__halfPfi(
// ATOM: bar.warp.sync -1;
// ATOM-DAG: cvt.f32.f16
// ATOM-DAG: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// ATOM-DAG: atom.global.add.noftz.f16
// PTX-NOT: .entry __kinase_{{krev|kfwd}}_{{.*}}pair
//
// At -O0 the reverse sweep reads and adds the __half's adjoint 16 bits at
// a time: the kernel's copy of the parameter kept its alignment (moved a
// byte at a time, the adjoint lost its low byte on the H200: 0.75 for
// 0.822).
// ALIGNED-LABEL: .func __kinase_rev_kinase_$_inlined_$__Z6hscalePKf6__halfPfi(
// ALIGNED-NOT: {{ld|st}}.b8
// ALIGNED: add.f16
// ALIGNED-NOT: {{ld|st}}.b8
// ALIGNED: ret;
//
// The host returns the field's adjoint widened from the struct's shadow.
// CHECK-LABEL: define {{.*}} @_Z12mix_gradient
// CHECK: call void @__kinase_launch_reverse(
// CHECK: fpext half

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 64, THREADS = 32 };

template <typename T> T __enzyme_autodiff(void *, ...);

struct Poly {
  const float *x;
  float4 c;
  int n;
};

__global__ void poly(Poly p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) {
    float x = p.x[i];
    out[i] = p.c.x + x * (p.c.y + x * (p.c.z + x * p.c.w));
  }
}

void run_poly(const float *x, const float *c, float *out, int n) {
  Poly p = {x, make_float4(c[0], c[1], c[2], c[3]), n};
  poly<<<(n + THREADS - 1) / THREADS, THREADS>>>(p, out);
}

struct Mix {
  const float *x;
  __half s;
  __nv_bfloat16 t;
  int n;
  const float *y;
};

__global__ void mix(Mix p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    out[i] = __half2float(p.s) * p.x[i] + __bfloat162float(p.t) * p.y[i];
}

void run_mix(const float *x, const float *y, float s, __nv_bfloat16 t, float *out, int n) {
  Mix p = {x, __float2half(s), t, n, y};
  mix<<<(n + THREADS - 1) / THREADS, THREADS>>>(p, out);
}

__global__ void hscale(const float *x, __half s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __half2float(s) * x[i];
}

void run_hscale(const float *x, float s, float *out, int n) {
  hscale<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, __float2half(s), out, n);
}

struct Pair {
  float *out;
  __half2 ab;
};

__global__ void pair(Pair p) { p.out[threadIdx.x] = __low2float(p.ab) * __high2float(p.ab); }

float mix_gradient(const float *x, const float *y, float s, __nv_bfloat16 t, float *out,
                   float *dout) {
  return __enzyme_autodiff<float>((void *)run_mix, enzyme_const, x, enzyme_const, y, enzyme_out, s,
                                  enzyme_const, t, enzyme_dupnoneed, out, dout, enzyme_const, (int)N);
}

int main(void) {
  require_device();
  static float x[N], y[N], w[N], ones[N], got[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(0.5 + 0.5 * sin(0.1 * i));
    y[i] = (float)(0.25 + 0.5 * cos(0.07 * i));
    w[i] = (float)((1.0 + 0.01 * i) / N);
    ones[i] = 1;
  }
  float *d_x = to_device(x), *d_y = to_device(y), *d_out = device_alloc<float>(N);

  // poly, reverse: the coefficients are host floats with a shadow.
  float c[4] = {0.5f, -1.0f, 0.25f, 2.0f}, dc[4] = {0, 0, 0, 0};
  float *d_w = to_device(w);
  __enzyme_autodiff<void>((void *)run_poly, enzyme_const, d_x, enzyme_dup, c, dc, enzyme_dupnoneed,
                          d_out, d_w, enzyme_const, (int)N);
  check_kernel("poly reverse");
  double want[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 4; k++)
      want[k] += w[i] * pow(x[i], k);
  for (int k = 0; k < 4; k++)
    check_close(dc[k], want[k], 1e-5, "poly dc[%d]", k);

  // poly, forward: tangent 1 along every coefficient.
  float tc[4] = {1, 1, 1, 1};
  float *d_tout = device_alloc<float>(N);
  __enzyme_fwddiff((void *)run_poly, enzyme_const, d_x, enzyme_dup, c, tc, enzyme_dup, d_out,
                   d_tout, enzyme_const, (int)N);
  check_kernel("poly forward");
  from_device(got, d_tout);
  for (int i = 0; i < N; i++)
    check_close(got[i], 1 + x[i] + x[i] * x[i] + x[i] * x[i] * x[i], 1e-5, "poly tangent[%d]", i);

  // mix, reverse: s active.
  const float s = 0.75f;
  const __nv_bfloat16 t = __float2bfloat16(-1.25f);
  float *d_w2 = to_device(w);
  float ds_mix = mix_gradient(d_x, d_y, s, t, d_out, d_w2);
  check_kernel("mix reverse");
  double want_ds = 0;
  for (int i = 0; i < N; i++)
    want_ds += (double)w[i] * x[i];
  check_close(ds_mix, want_ds, 1e-2, "mix ds (__half field)");

  // mix, forward: tangent 1 along s (exact in 16 bits).
  __enzyme_fwddiff((void *)run_mix, enzyme_const, d_x, enzyme_const, d_y, enzyme_dup, s, 1.0f,
                   enzyme_const, t, enzyme_dup, d_out, d_tout, enzyme_const, (int)N);
  check_kernel("mix forward");
  from_device(got, d_tout);
  for (int i = 0; i < N; i++)
    check_close(got[i], x[i], 1e-6, "mix tangent[%d]", i);

  // hscale, reverse and forward.
  float *d_w3 = to_device(w);
  float ds = __enzyme_autodiff<float>((void *)run_hscale, enzyme_const, d_x, enzyme_out, s,
                                      enzyme_dupnoneed, d_out, d_w3, enzyme_const, (int)N);
  check_kernel("hscale reverse");
  check_close(ds, want_ds, 1e-2, "hscale ds (__half parameter)");
  float *d_ones = to_device(ones);
  __enzyme_fwddiff((void *)run_hscale, enzyme_dup, d_x, d_ones, enzyme_dup, s, 1.0f, enzyme_dup,
                   d_out, d_tout, enzyme_const, (int)N);
  check_kernel("hscale forward");
  from_device(got, d_tout);
  for (int i = 0; i < N; i++)
    check_close(got[i], x[i] + __half2float(__float2half(s)), 1e-6, "hscale tangent[%d]", i);
  device_free_all();
  return check_exit();
}
