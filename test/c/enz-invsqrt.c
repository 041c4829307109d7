// RUN: %check-c %s %t
// A bit-twiddling fast inverse square root (integer reinterpretation of a
// float, a magic constant, Newton steps) that Kinase cannot differentiate
// through the integer operations, given a custom gradient the way Enzyme's
// tests register one: an augmented forward function that returns nothing
// (no tape, and the primal result is not needed) and a reverse function
// that takes the argument and the result's adjoint and returns the
// argument's adjoint. A custom forward derivative is registered too.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) float fast_rsqrt(float v)
{
  float half = 0.5f * v, y = v;
  int32_t bits;
  memcpy(&bits, &y, sizeof bits);
  bits = 0x5f375a86 - (bits >> 1);
  memcpy(&y, &bits, sizeof y);
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  return y;
}

void fast_rsqrt_aug(float v) { (void)v; }
float fast_rsqrt_rev(float v, float dret) { return -0.5f * dret * fast_rsqrt(v) / v; }
void *__enzyme_register_gradient_rsqrt[3] = {(void *)fast_rsqrt, (void *)fast_rsqrt_aug, (void *)fast_rsqrt_rev};

float fast_rsqrt_fwd(float v, float dv) { return -0.5f * dv * fast_rsqrt(v) / v; }
void *__enzyme_register_derivative_rsqrt[2] = {(void *)fast_rsqrt, (void *)fast_rsqrt_fwd};

/* 1 / |A| */
double inv_norm(double *__restrict A, int n)
{
  double ss = 0;
  for (int i = 0; i < n; i++)
    ss += A[i] * A[i];
  return fast_rsqrt((float)ss);
}

int main(void)
{
  enum { N = 4 };
  char what[64];
  double *A = malloc(sizeof(double) * N), *dA = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    A[i] = 0.5 * (i + 1);
    dA[i] = 0.0;
  }
  __enzyme_autodiff((void *)inv_norm, A, dA, N);
  double ss = 0;
  for (int i = 0; i < N; i++)
    ss += A[i] * A[i];
  double r3 = pow(ss, -1.5);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "reverse dA[%d]", i);
    check_close(what, dA[i], -A[i] * r3, 1e-5);
  }
  for (int i = 0; i < N; i++) {
    double t[N] = {0};
    t[i] = 1.0;
    snprintf(what, sizeof what, "forward along e%d", i);
    check_close(what, __enzyme_fwddiff((void *)inv_norm, A, t, N), -A[i] * r3, 1e-5);
  }
  free(A);
  free(dA);
  return check_exit();
}
