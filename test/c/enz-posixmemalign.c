// RUN: %check-c %s %t
// Aligned allocations in reverse and forward mode: posix_memalign into an
// array of pointers inside a loop (each block written from the active input
// and read later), aligned_alloc, and a block freed before returning.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

int posix_memalign(void **memptr, size_t alignment, size_t size);
float __enzyme_autodiff(void *, float, int);
double __enzyme_autodiff_d(void *, ...);
double __enzyme_fwddiff(void *, ...);

float blocks(float inp, int n)
{
  float *x[8];
  for (int i = 0; i < 8; i++) {
    posix_memalign((void **)&x[i], 16, sizeof(float) * (i + 1));
    for (int k = 0; k <= i; k++)
      x[i][k] = inp * (float)(k + 1);
  }
  float r = 0;
  for (int i = 0; i < n && i < 8; i++)
    r += x[i][i];
  for (int i = 0; i < 8; i++)
    free(x[i]);
  return r;
}

double aligned(double a)
{
  double *p = aligned_alloc(64, 8 * sizeof(double));
  for (int i = 0; i < 8; i++)
    p[i] = a * a * (i % 3);
  double s = 0;
  for (int i = 0; i < 8; i++)
    s += p[i];
  free(p);
  return s;
}

int main(void)
{
  /* r = sum_{i<n} inp (i+1) */
  check_close("posix_memalign blocks, reverse", __enzyme_autodiff((void *)blocks, 2.0f, 5), 15.0, 1e-6);
  check_close("posix_memalign blocks, forward", __enzyme_fwddiff((void *)blocks, 2.0f, 1.0f, 5), 15.0, 1e-6);
  /* sum (i%3) over 8 = 0+1+2+0+1+2+0+1 = 7 */
  check_close("aligned_alloc, reverse", __enzyme_autodiff_d((void *)aligned, 1.5), 2 * 1.5 * 7, 1e-14);
  check_close("aligned_alloc, forward", __enzyme_fwddiff((void *)aligned, 1.5, 1.0), 2 * 1.5 * 7, 1e-14);
  return check_exit();
}
