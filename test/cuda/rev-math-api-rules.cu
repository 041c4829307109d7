// The CUDA math API functions whose libdevice bodies do not differentiate
// right, each with a rule of its own: sinpi, cospi and sincospi (libdevice
// returns exact zeros at the integers through a branch, whose derivative
// would be 0: sinpi'(0) came out 0, not pi), erfinv, erfcinv and
// normcdfinv (the double ones take the logarithm apart with integer
// operations), normcdf and erfcx (the double normcdf's gradient was 0),
// rhypot, rnorm3d and rnorm4d (0 in float and double), norm3d and norm4d.
// Each thread takes one point's gradient in reverse mode and its
// derivative along (1, 1, 1, 1) in forward mode, float and double; the
// host checks them against the analytic derivatives (those of the inverse
// functions from the value the device computed).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// (test/ir/math-api-rules.ll checks the shape of the derivatives.)

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ double __enzyme_fwddiff_d(void *, ...);

enum { POINTS = 8, ARGS = 4 };

// name, the double body, the float body (x, y, z, w are the arguments)
#define STRIP(...) __VA_ARGS__
#define FUNCTIONS(X)                                                                               \
  X(sinpi_, (return sinpi(x);), (return sinpif(x);))                                               \
  X(cospi_, (return cospi(x);), (return cospif(x);))                                               \
  X(sincospi_, (double s, c; sincospi(x, &s, &c); return s + 2 * c;),                             \
    (float s, c; sincospif(x, &s, &c); return s + 2 * c;))                                         \
  X(erfinv_, (return erfinv(x);), (return erfinvf(x);))                                            \
  X(erfcinv_, (return erfcinv(x);), (return erfcinvf(x);))                                         \
  X(normcdfinv_, (return normcdfinv(x);), (return normcdfinvf(x);))                                \
  X(normcdf_, (return normcdf(x);), (return normcdff(x);))                                         \
  X(erfcx_, (return erfcx(x);), (return erfcxf(x);))                                               \
  X(rhypot_, (return rhypot(x, y);), (return rhypotf(x, y);))                                      \
  X(rnorm3d_, (return rnorm3d(x, y, z);), (return rnorm3df(x, y, z);))                             \
  X(rnorm4d_, (return rnorm4d(x, y, z, w);), (return rnorm4df(x, y, z, w);))                       \
  X(norm3d_, (return norm3d(x, y, z);), (return norm3df(x, y, z);))                                \
  X(norm4d_, (return norm4d(x, y, z, w);), (return norm4df(x, y, z, w);))

enum {
#define ENUMERATE(name, d, f) FN_##name,
  FUNCTIONS(ENUMERATE)
#undef ENUMERATE
  NFUNCTIONS
};

#define DEFINE(name, d, f)                                                                         \
  __device__ double d_##name(const double *p) {                                                    \
    double x = p[0], y = p[1], z = p[2], w = p[3];                                                 \
    (void)y, (void)z, (void)w;                                                                     \
    STRIP d                                                                                        \
  }                                                                                                \
  __device__ float f_##name(const float *p) {                                                      \
    float x = p[0], y = p[1], z = p[2], w = p[3];                                                  \
    (void)y, (void)z, (void)w;                                                                     \
    STRIP f                                                                                        \
  }
FUNCTIONS(DEFINE)
#undef DEFINE

// Thread t of block b: function b at point t. Value, gradient, tangent.
__global__ void derivatives(const double *pd, double *vd, double *gd, double *td, const float *pf,
                            float *vf, float *gf, float *tf, const double *ones_d,
                            const float *ones_f) {
  int at = blockIdx.x * POINTS + threadIdx.x, k = ARGS * at;
  switch (blockIdx.x) {
#define CASE(name, d, f)                                                                           \
  case FN_##name:                                                                                  \
    vd[at] = d_##name(pd + k);                                                                     \
    vf[at] = f_##name(pf + k);                                                                     \
    __enzyme_autodiff((void *)d_##name, enzyme_dup, pd + k, gd + k);                               \
    __enzyme_autodiff((void *)f_##name, enzyme_dup, pf + k, gf + k);                               \
    td[at] = __enzyme_fwddiff_d((void *)d_##name, enzyme_dup, pd + k, ones_d);                     \
    tf[at] = __enzyme_fwddiff_f((void *)f_##name, enzyme_dup, pf + k, ones_f);                     \
    break;
    FUNCTIONS(CASE)
#undef CASE
  }
}

static const double PI = 3.14159265358979323846;

// The point's arguments: inside each function's domain, with integers and
// half-integers for sinpi and cospi, where libdevice branches.
static void point(int fn, int t, double *p) {
  static const double pi_points[POINTS] = {0.0, 1.0, -2.0, 0.5, -1.5, 0.25, 0.7, -0.3};
  double u = (t + 0.5) / POINTS; // in (0, 1)
  p[1] = 0.3 + 0.1 * t;
  p[2] = -0.4 + 0.15 * t;
  p[3] = 0.9 - 0.2 * t;
  switch (fn) {
  case FN_sinpi_:
  case FN_cospi_:
  case FN_sincospi_:
    p[0] = pi_points[t];
    break;
  case FN_erfinv_:
    p[0] = 1.8 * u - 0.9;
    break;
  case FN_erfcinv_:
    p[0] = 0.1 + 1.8 * u;
    break;
  case FN_normcdfinv_:
    p[0] = 0.02 + 0.96 * u;
    break;
  default:
    p[0] = -1.5 + 3.0 * u + 0.05;
  }
}

static double norm(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return sqrt(s);
}

// d f / d p[i] at p, where f's value there is v.
static double exact(int fn, const double *p, double v, int i) {
  double x = p[0];
  switch (fn) {
  case FN_sinpi_:
    return i == 0 ? PI * cos(PI * x) : 0;
  case FN_cospi_:
    return i == 0 ? -PI * sin(PI * x) : 0;
  case FN_sincospi_:
    return i == 0 ? PI * cos(PI * x) - 2 * PI * sin(PI * x) : 0;
  case FN_erfinv_:
    return i == 0 ? sqrt(PI) / 2 * exp(v * v) : 0;
  case FN_erfcinv_:
    return i == 0 ? -sqrt(PI) / 2 * exp(v * v) : 0;
  case FN_normcdfinv_:
    return i == 0 ? sqrt(2 * PI) * exp(v * v / 2) : 0;
  case FN_normcdf_:
    return i == 0 ? exp(-x * x / 2) / sqrt(2 * PI) : 0;
  case FN_erfcx_:
    return i == 0 ? 2 * x * exp(x * x) * erfc(x) - 2 / sqrt(PI) : 0;
  case FN_rhypot_:
    return i < 2 ? -p[i] / pow(norm(p, 2), 3) : 0;
  case FN_rnorm3d_:
    return i < 3 ? -p[i] / pow(norm(p, 3), 3) : 0;
  case FN_rnorm4d_:
    return -p[i] / pow(norm(p, 4), 3);
  case FN_norm3d_:
    return i < 3 ? p[i] / norm(p, 3) : 0;
  default: // norm4d
    return p[i] / norm(p, 4);
  }
}

static const char *const names[] = {
#define NAME(name, d, f) #name,
    FUNCTIONS(NAME)
#undef NAME
};

int main(void) {
  require_device();
  enum { N = NFUNCTIONS * POINTS };
  static double pd[ARGS * N], gd[ARGS * N], vd[N], td[N], ones_d[ARGS] = {1, 1, 1, 1};
  static float pf[ARGS * N], gf[ARGS * N], vf[N], tf[N], ones_f[ARGS] = {1, 1, 1, 1};
  for (int fn = 0; fn < NFUNCTIONS; fn++)
    for (int t = 0; t < POINTS; t++) {
      int at = fn * POINTS + t;
      point(fn, t, pd + ARGS * at);
      for (int i = 0; i < ARGS; i++) {
        pf[ARGS * at + i] = (float)pd[ARGS * at + i];
        pd[ARGS * at + i] = pf[ARGS * at + i]; // both at the same point
      }
    }
  double *d_pd = to_device(pd), *d_gd = to_device(gd), *d_vd = device_alloc(vd),
         *d_td = device_alloc(td), *d_ones_d = to_device(ones_d);
  float *d_pf = to_device(pf), *d_gf = to_device(gf), *d_vf = device_alloc(vf),
        *d_tf = device_alloc(tf), *d_ones_f = to_device(ones_f);
  derivatives<<<NFUNCTIONS, POINTS>>>(d_pd, d_vd, d_gd, d_td, d_pf, d_vf, d_gf, d_tf, d_ones_d,
                                      d_ones_f);
  check_kernel("derivatives");
  from_device(gd, d_gd);
  from_device(vd, d_vd);
  from_device(td, d_td);
  from_device(gf, d_gf);
  from_device(vf, d_vf);
  from_device(tf, d_tf);
  for (int fn = 0; fn < NFUNCTIONS; fn++)
    for (int t = 0; t < POINTS; t++) {
      int at = fn * POINTS + t;
      const double *p = pd + ARGS * at;
      double sum = 0;
      for (int i = 0; i < ARGS; i++) {
        double want_d = exact(fn, p, vd[at], i), want_f = exact(fn, p, vf[at], i);
        sum += want_d;
        check_close(gd[ARGS * at + i], want_d, 1e-9, "%s double at point %d: d/dp[%d]", names[fn], t, i);
        check_close(gf[ARGS * at + i], want_f, 2e-4, "%s float at point %d: d/dp[%d]", names[fn], t, i);
      }
      check_close(td[at], sum, 1e-9, "%s double at point %d: tangent", names[fn], t);
      check_close(tf[at], sum, 2e-4, "%s float at point %d: tangent", names[fn], t);
    }
  device_free_all();
  return check_exit();
}
