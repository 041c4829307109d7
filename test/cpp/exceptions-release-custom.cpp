// When the primal throws inside a reverse-mode derivative that calls a
// registered gradient, what Kinase allocated around the user's augmented
// pass is released (the locals passed to it, moved to the heap; the record
// vectors of the loop holding it), and so is the user's tape when the
// registration names a fourth function, Kinase's, that frees it. Without
// one the tape is the user's (Enzyme's registrations have no way to free it
// but the reverse pass, which never runs): exactly the tapes the augmented
// passes made leak. Blocks are counted by this program's own malloc and
// free (test/cpp/include/live_blocks.h). Compiled with exceptions.
// RUN: %check-c %s %t -std=c++17 -I%S/include
#include "check.h"
#include "live_blocks.h"
#include "throwing_log.h"

extern "C" int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

static int tapes_made;

// y = x * x; the tape holds x, on the heap.
__attribute__((noinline)) void square_into(const double *x, double *y) { *y = *x * *x; }
extern "C" void *square_aug(const double *x, const double *dx, double *y, double *dy) {
  (void)dx, (void)dy;
  double *tape = (double *)malloc(sizeof *tape);
  *tape = *x;
  *y = *tape * *tape;
  tapes_made++;
  return tape;
}
extern "C" void square_rev(const double *x, double *dx, const double *y, double *dy, void *tape) {
  (void)x, (void)y;
  *dx += 2 * *(double *)tape * *dy;
  *dy = 0;
  free(tape);
}
extern "C" void square_free_tape(void *tape) { free(tape); }
void *__enzyme_register_gradient_square[] = {(void *)square_into, (void *)square_aug, (void *)square_rev,
                                             (void *)square_free_tape};

// The same function registered the way Enzyme's programs do: three entries.
__attribute__((noinline)) void square3_into(const double *x, double *y) { *y = *x * *x; }
void *__enzyme_register_gradient_square3[] = {(void *)square3_into, (void *)square_aug, (void *)square_rev};

// sum over i < n of (x - i)^2 log(x - i), throwing at the first x - i <= 0
template <void (*square)(const double *, double *)> static double g(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double xi = x - i, yi;
    square(&xi, &yi);
    s += yi * checked_log(xi);
  }
  return s;
}

static double g_derivative(double x, int n) {
  double d = 0;
  for (int i = 0; i < n; i++)
    d += 2 * (x - i) * __builtin_log(x - i) + (x - i);
  return d;
}

template <void (*square)(const double *, double *)> static bool reverse_throws(double x, int n, double *grad) {
  try {
    *grad = __enzyme_autodiff((void *)g<square>, enzyme_out, x, enzyme_const, n);
    return false;
  } catch (const std::domain_error &) {
    return true;
  }
}

int main() {
  const int n = 6;
  double grad = 0;
  reverse_throws<square_into>(0.5, n, &grad); // the first throw allocates the unwinder's caches
  double xs[] = {7.5, 3.5, 6.0, 0.25, 5.5, 1.0};
  for (double x : xs) {
    long before = live_blocks;
    bool threw = reverse_throws<square_into>(x, n, &grad);
    check_true("with a tape release: throws where x - (n - 1) <= 0", threw == (x - (n - 1) <= 0));
    check_true("with a tape release: every allocation is released", live_blocks == before);
    if (!threw)
      check_close("with a tape release: g'(x)", grad, g_derivative(x, n), 1e-12);
  }
  for (double x : xs) {
    long before = live_blocks;
    tapes_made = 0;
    bool threw = reverse_throws<square3_into>(x, n, &grad);
    check_true("three entries: throws where x - (n - 1) <= 0", threw == (x - (n - 1) <= 0));
    // the augmented passes ran up to the throw; the reverse passes never did
    check_close("three entries: only the user's tapes are left", live_blocks - before, threw ? tapes_made : 0, 0);
    if (!threw)
      check_close("three entries: g'(x)", grad, g_derivative(x, n), 1e-12);
    else
      check_true("three entries: tapes were made before the throw", tapes_made > 0);
  }
  return check_exit();
}
