// RUN: %check-c %s %t
// A bump allocator declared to Enzyme as an allocation function with
// __enzyme_allocation_like: {allocator, index of the size argument, the
// argument indices the deallocator takes ("2,-1": the allocator's third
// argument and the returned pointer), deallocator}. Active values stored in
// memory it returns must get a shadow allocation, in reverse and forward
// mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static char arena[4096] __attribute__((aligned(16)));
static int used;
static int frees;

void *bump_alloc(void *base, int size, int *off)
{
  char *cur = (char *)base;
  int prev = *off;
  *off += (size + 15) & ~15;
  return &cur[prev];
}

void bump_free(int *off, void *p)
{
  (void)off, (void)p;
  frees++;
}

void *__enzyme_allocation_like[4] = {(void *)bump_alloc, (void *)1, (void *)"2,-1", (void *)bump_free};

__attribute__((noinline)) double *boxed(double x)
{
  double *m = (double *)bump_alloc(arena, sizeof(double), &used);
  *m = x * x;
  return m;
}

double unbox(double x)
{
  double *t = boxed(x);
  return *t * x;
}

double buffer(double x)
{
  double *b = (double *)bump_alloc(arena, 4 * sizeof(double), &used);
  for (int i = 0; i < 4; i++)
    b[i] = sin(x * (i + 1));
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += b[i] * b[(i + 1) % 4];
  return s;
}

// Freed through the registered deallocator: the primal's free still runs
// once per call, and the shadow is freed by Kinase.
double scratch(double x)
{
  double *s = (double *)bump_alloc(arena, 2 * sizeof(double), &used);
  s[0] = cos(x);
  s[1] = s[0] * x;
  double r = s[1] + s[0];
  bump_free(&used, s);
  return r;
}

static double buffer_x(double x)
{
  int save = used;
  double r = buffer(x);
  used = save;
  return r;
}

int main(void)
{
  double x = 0.7;
  used = 0;
  check_close("boxed in allocation-like memory, reverse", __enzyme_autodiff((void *)unbox, x), 3 * x * x, 1e-14);
  used = 0;
  check_close("boxed in allocation-like memory, forward", __enzyme_fwddiff((void *)unbox, x, 1.0), 3 * x * x, 1e-14);
  double fd = central_difference(buffer_x, x);
  used = 0;
  check_close("buffer in allocation-like memory, reverse", __enzyme_autodiff((void *)buffer, x), fd, 1e-7);
  used = 0;
  check_close("buffer in allocation-like memory, forward", __enzyme_fwddiff((void *)buffer, x, 1.0), fd, 1e-7);
  double dscratch = -sin(x) * x + cos(x) - sin(x);
  check_close("freed allocation-like memory, reverse", __enzyme_autodiff((void *)scratch, x), dscratch, 1e-14);
  check_close("freed allocation-like memory, forward", __enzyme_fwddiff((void *)scratch, x, 1.0), dscratch, 1e-14);
  check_true("the deallocator ran once per call", frees == 2);
  return check_exit();
}
