// Regression: host conversions into and out of __half2 and __nv_bfloat162
// pairs (__floats2half2_rn, __float2half2_rn, __float22half2_rn,
// __halves2half2, __low2float, __high2float, __low2half, __high2half,
// __half22float2, and the bfloat16 names). In host code they are integer
// arithmetic on the bits, through which no derivative flows: a host
// function packing floats into pairs before a copy to the device, or
// reading a kernel's pairs back, had a zero gradient. They are now the
// conversions they are, as the scalar ones (__float2half, __half2float)
// were; host C++ passes a pair by the address of a copy and returns it
// through sret, and with a std::vector among the locals clang invokes them.
// The function runs on the host alone, so this test runs here, without a
// GPU: reverse and forward mode against the analytic gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %cuda-host-run %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: %cuda-host-run %t.exe

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 6 };

float packed(const float *x, int n) {
  std::vector<__half2> p(n / 2);
  for (int i = 0; i < n / 2; i++)
    p[i] = __floats2half2_rn(x[2 * i], x[2 * i + 1]);
  float s = 0;
  for (int i = 0; i < n / 2; i++)
    s += 3.0f * __low2float(p[i]) + __high2float(p[i]) * __high2float(p[i]);
  float2 r = __half22float2(__float2half2_rn(x[0]));
  s += r.x + 2.0f * r.y;
  __half2 u = __float22half2_rn(make_float2(x[1], x[2]));
  s += __half2float(__low2half(u)) + 5.0f * __half2float(__high2half(u));
  __half2 h = __halves2half2(__float2half(x[3]), __float2half(x[4]));
  s += 7.0f * __low2float(h) + __high2float(h);
  __nv_bfloat162 b = __floats2bfloat162_rn(x[5], x[0]);
  s += 11.0f * __low2float(b) + __high2float(b);
  float2 t = __bfloat1622float2(__float22bfloat162_rn(make_float2(x[1], x[2])));
  s += t.x - t.y;
  __nv_bfloat162 c = __halves2bfloat162(__float2bfloat16(x[3]), __float2bfloat16(x[4]));
  s += __bfloat162float(__low2bfloat16(c)) + 13.0f * __bfloat162float(__high2bfloat16(c));
  s += 17.0f * __high2float(__float2bfloat162_rn(x[5]));
  return s;
}

int main() {
  float x[N] = {0.5f, -0.25f, 0.75f, 1.5f, -2.0f, 0.125f}, dx[N] = {0};
  __enzyme_autodiff((void *)packed, enzyme_dup, x, dx, enzyme_const, N);
  // The odd x's are squared through the half pairs: 2 half(x).
  double want[N] = {3 + 3 + 1, 2.0 * __half2float(__float2half(x[1])) + 1 + 1, 3 + 5 - 1,
                    2.0 * __half2float(__float2half(x[3])) + 7 + 1, 3 + 1 + 13,
                    2.0 * __half2float(__float2half(x[5])) + 11 + 17};
  double tangent_want = 0;
  for (int i = 0; i < N; i++) {
    check_close(dx[i], want[i], 1e-2, "dpacked/dx[%d]", i);
    tangent_want += want[i] * (i + 1);
  }
  float dir[N] = {1, 2, 3, 4, 5, 6};
  double tangent = __enzyme_fwddiff((void *)packed, enzyme_dup, x, dir, enzyme_const, N);
  check_close(tangent, tangent_want, 1e-2, "tangent");
  return check_exit();
}
