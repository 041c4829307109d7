// Regression: __half and __nv_bfloat16 arithmetic in host code (the
// operators, __hadd/__hmul on the host, __half2 pairs, a helper of the
// user's taking and returning __half by value) had a zero derivative. On
// the host those values cross every call as 16-bit integers, and the
// operators are calls (operator* calls __hmul, whose host code is
// __float2half(__half2float(a) * __half2float(b))), so nothing carried the
// derivative from one call to the next. Calls of functions passing the
// 16-bit types, and of their members, are now inlined into the copy being
// differentiated (the standard library's and other classes' members stay
// calls), leaving conversions around float arithmetic.
// The function runs on the host alone: this test runs here, without a GPU,
// reverse and forward mode against the analytic derivative.
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
#include "cuda_check.h"

enum { N = 4 };

__half cube(__half h) { return h * h * h; }

float mixed(const float *x) {
  __half a = __float2half(x[0]), b = __float2half(x[1]);
  __half c = a * b + a;            // ab + a
  c += cube(b);                    // + b^3
  __half d = __hadd(c, __hsub(a, b)); // + a - b
  __nv_bfloat16 e = __float2bfloat16(x[2]);
  __nv_bfloat16 g = e * e - e / __float2bfloat16(2.0f);
  __half2 p = __floats2half2_rn(x[3], x[0]);
  __half2 q = p * p + p;
  return __half2float(d) + __bfloat162float(g) + __low2float(q) + 3.0f * __high2float(q);
}

int main() {
  float x[N] = {0.5f, 0.25f, 0.75f, -0.5f}, dx[N] = {0};
  __enzyme_autodiff((void *)mixed, enzyme_dup, x, dx);
  // d = ab + a + b^3 + a - b; g = e^2 - e/2; q = (x3^2 + x3, x0^2 + x0).
  double a = x[0], b = x[1], e = x[2], w = x[3];
  double want[N] = {b + 2 + 3 * (2 * a + 1), a + 3 * b * b - 1, 2 * e - 0.5, 2 * w + 1};
  double tangent_want = 0;
  for (int i = 0; i < N; i++) {
    check_close(dx[i], want[i], 1e-2, "dmixed/dx[%d]", i);
    tangent_want += want[i] * (i + 1);
  }
  float dir[N] = {1, 2, 3, 4};
  double tangent = __enzyme_fwddiff((void *)mixed, enzyme_dup, x, dir);
  check_close(tangent, tangent_want, 1e-2, "tangent");
  return check_exit();
}
