// min and max with .xorsign.abs (sm_86 and later; clang's
// __nvvm_fmin_xorsign_abs_f): sign(a) sign(b) min(|a|, |b|), max alike.
// The derivative goes to the operand of the chosen magnitude, times the
// other's sign: checked against that formula (the function being piecewise
// linear, central differences would agree exactly away from the ties), both
// modes, inside a kernel, for every sign combination.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK: min.xorsign.abs.f32
// CHECK: max.xorsign.abs.f32

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 64 };

extern __device__ float __enzyme_fwddiff_f(void *, ...);

__device__ float picked(float a, float b) {
  return __nvvm_fmin_xorsign_abs_f(a, b) * 3.0f + __nvvm_fmax_xorsign_abs_f(a, b);
}

__global__ void gradients(const float *a, const float *b, float *da, float *db, float *ta) {
  int i = threadIdx.x;
  if (i >= N)
    return;
  da[i] = __enzyme_autodiff((void *)picked, a[i], enzyme_const, b[i]);
  db[i] = __enzyme_autodiff((void *)picked, enzyme_const, a[i], b[i]);
  ta[i] = __enzyme_fwddiff_f((void *)picked, enzyme_dup, a[i], 1.0f, enzyme_const, b[i]);
}

static double sign(double v) { return v < 0 ? -1.0 : 1.0; }

int main(void) {
  require_device();
  static float a[N], b[N], da[N], db[N], ta[N];
  for (int i = 0; i < N; i++) { /* magnitudes apart, every sign combination */
    a[i] = (float)((i % 2 ? -1 : 1) * (0.5 + 0.03 * i));
    b[i] = (float)((i % 4 < 2 ? 1 : -1) * (1.21 - 0.02 * i));
  }
  float *d_a = to_device(a), *d_b = to_device(b), *d_da = device_alloc<float>(N);
  float *d_db = device_alloc<float>(N), *d_ta = device_alloc<float>(N);
  gradients<<<1, N>>>(d_a, d_b, d_da, d_db, d_ta);
  check_kernel("gradients");
  from_device(da, d_da);
  from_device(db, d_db);
  from_device(ta, d_ta);
  for (int i = 0; i < N; i++) {
    bool a_smaller = fabs(a[i]) <= fabs(b[i]);
    /* min picks the smaller magnitude (weight 3), max the larger (weight 1). */
    double want_da = (a_smaller ? 3.0 : 1.0) * sign(b[i]), want_db = (a_smaller ? 1.0 : 3.0) * sign(a[i]);
    check_close(da[i], want_da, 1e-6, "d/da at (%g, %g)", a[i], b[i]);
    check_close(db[i], want_db, 1e-6, "d/db at (%g, %g)", a[i], b[i]);
    check_close(ta[i], want_da, 1e-6, "tangent along a at (%g, %g)", a[i], b[i]);
  }
  device_free_all();
  return check_exit();
}
