// AVX code (-mavx): 256-bit vectors want 32-byte alignment, and clang
// accesses them so (vmovapd). Reverse mode keeps a local's shadow, and a
// local moved off the stack, on the heap, and records values for the
// reverse sweep on the tape, whose memory calloc and realloc align to 16
// bytes only: an aligned shadow or tape access of a vector crashed (what
// Eigen's packet reductions, sum(), prod(), maxCoeff(), did with -mavx).
// Shadows of locals now keep the local's alignment (aligned_alloc), and
// the tape is accessed at most 16-byte aligned.
// RUN: %check-c %s %t -std=c++17 -mavx
#include <immintrin.h>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sum over i of x[i]^3, four lanes at a time (n a multiple of 4)
__attribute__((noinline)) static double cubes(const double *x, int n) {
  __m256d acc = _mm256_setzero_pd();
  for (int i = 0; i < n; i += 4) {
    __m256d v = _mm256_loadu_pd(x + i);
    acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_mul_pd(v, v), v));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, acc);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

// The lanes' product, as Eigen's predux_mul reduces a packet: through a
// 32-byte aligned local array, the vector recorded for the reverse sweep.
static double product(const double *x) {
  __m256d v = _mm256_loadu_pd(x);
  __m256d w = _mm256_mul_pd(v, _mm256_permute2f128_pd(v, v, 1));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, w);
  return lanes[0] * lanes[1];
}

int main() {
  const int n = 12;
  double x[n], dx[n] = {0}, tx[n] = {0};
  for (int i = 0; i < n; i++)
    x[i] = 0.25 * i - 1.1;
  __enzyme_autodiff((void *)cubes, enzyme_dup, x, dx, enzyme_const, n);
  for (int i = 0; i < n; i++)
    check_close("reverse, cubes", dx[i], 3 * x[i] * x[i], 1e-13);
  tx[5] = 1;
  check_close("forward, cubes", __enzyme_fwddiff((void *)cubes, enzyme_dup, x, tx, enzyme_const, n),
              3 * x[5] * x[5], 1e-13);
  double y[4] = {1.5, -0.5, 2.0, 0.75}, dy[4] = {0};
  __enzyme_autodiff((void *)product, enzyme_dup, y, dy);
  double all = y[0] * y[1] * y[2] * y[3];
  for (int i = 0; i < 4; i++)
    check_close("reverse, product", dy[i], all / y[i], 1e-13);
  return check_exit();
}
