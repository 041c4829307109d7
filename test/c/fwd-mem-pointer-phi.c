// RUN: %check-c %s %t
// Forward mode when pointers into dup memory are themselves computed: a
// pointer induction variable running from begin to end, a pointer chosen by
// a select or an if/else between two dup arrays. The shadow pointer must
// follow the primal pointer.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

/* sum of cubes over [b, e) */
static double range_cubes(const double *b, const double *e)
{
  double s = 0.0;
  for (const double *p = b; p != e; ++p)
    s += *p * *p * *p;
  return s;
}

/* The larger of a[0] and b[0] decides which array is summed (squared). */
static double pick_array(const double *a, const double *b, int n)
{
  const double *p = a[0] > b[0] ? a : b;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return s;
}

/* Write through a pointer chosen by if/else. */
static void write_chosen(double *a, double *b, double x, int which)
{
  double *p;
  if (which)
    p = a + 1;
  else
    p = b + 2;
  *p = x * x;
}

int main(void)
{
  enum { N = 4 };
  double a[N] = {2.0, -1.0, 0.5, 1.5}, da[N] = {1.0, 0.5, -1.0, 2.0};
  double b[N] = {1.0, 3.0, -2.0, 0.25}, db[N] = {0.0, 1.0, 1.0, -4.0};

  double want = 0.0;
  for (int i = 0; i < N; i++)
    want += 3 * a[i] * a[i] * da[i];
  check_close("d range_cubes", __enzyme_fwddiff((void *)range_cubes, enzyme_dup, a, da, enzyme_dup, a + N, da + N),
              want, 1e-14);

  double wa = 0.0, wb = 0.0;
  for (int i = 0; i < N; i++) {
    wa += 2 * a[i] * da[i];
    wb += 2 * b[i] * db[i];
  }
  check_close("d pick_array picks a", __enzyme_fwddiff((void *)pick_array, enzyme_dup, a, da, enzyme_dup, b, db, N),
              wa, 1e-14);
  check_close("d pick_array picks b", __enzyme_fwddiff((void *)pick_array, enzyme_dup, b, db, enzyme_dup, a, da, N),
              wa, 1e-14);
  check_close("d pick_array, b first", __enzyme_fwddiff((void *)pick_array, enzyme_dup, b, db, enzyme_dup, b, db, N),
              wb, 1e-14);

  double sa[N] = {0}, sb[N] = {0};
  __enzyme_fwddiffv((void *)write_chosen, enzyme_dup, a, sa, enzyme_dup, b, sb, enzyme_dup, 3.0, 1.0, 1);
  check_close("write_chosen(1): a[1]", a[1], 9.0, 1e-15);
  check_close("write_chosen(1): shadow a[1]", sa[1], 6.0, 1e-15);
  check_close("write_chosen(1): shadow b[2] untouched", sb[2], 0.0, 1e-15);
  __enzyme_fwddiffv((void *)write_chosen, enzyme_dup, a, sa, enzyme_dup, b, sb, enzyme_dup, -2.0, 1.0, 0);
  check_close("write_chosen(0): shadow b[2]", sb[2], -4.0, 1e-15);
  check_close("write_chosen(0): shadow a[1] kept", sa[1], 6.0, 1e-15);
  return check_exit();
}
