// RUN: %check-c %s %t
// Reverse mode with an array of structs {double pos[2]; double mass; int id;}
// behind a dup pointer: the pairwise potential sum_{i<j} m_i m_j / r_ij.
// The gradient of every position and mass lands in the matching field of the
// shadow array; the integer ids of the shadow are left alone.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

struct particle {
  double pos[2];
  double mass;
  int id;
};

enum { N = 4 };

static double potential(const struct particle *p, int n)
{
  double e = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double dx = p[i].pos[0] - p[j].pos[0], dy = p[i].pos[1] - p[j].pos[1];
      e += p[i].mass * p[j].mass / sqrt(dx * dx + dy * dy);
    }
  return e;
}

int main(void)
{
  struct particle p[N] = {{{0.0, 0.0}, 1.0, 7}, {{1.0, 0.5}, 2.0, 8}, {{-0.5, 1.5}, 0.5, 9}, {{2.0, -1.0}, 1.5, 10}};
  struct particle dp[N];
  for (int i = 0; i < N; i++) {
    dp[i] = p[i];
    dp[i].pos[0] = dp[i].pos[1] = dp[i].mass = 0.0;
  }
  __enzyme_autodiff_v((void *)potential, enzyme_dup, p, dp, N);

  for (int i = 0; i < N; i++) {
    double gx = 0.0, gy = 0.0, gm = 0.0;
    for (int j = 0; j < N; j++) {
      if (j == i)
        continue;
      double dx = p[i].pos[0] - p[j].pos[0], dy = p[i].pos[1] - p[j].pos[1];
      double r = sqrt(dx * dx + dy * dy);
      gm += p[j].mass / r;
      gx += -p[i].mass * p[j].mass * dx / (r * r * r);
      gy += -p[i].mass * p[j].mass * dy / (r * r * r);
    }
    char what[64];
    snprintf(what, sizeof what, "particle %d: d pos[0]", i);
    check_close(what, dp[i].pos[0], gx, 1e-12);
    snprintf(what, sizeof what, "particle %d: d pos[1]", i);
    check_close(what, dp[i].pos[1], gy, 1e-12);
    snprintf(what, sizeof what, "particle %d: d mass", i);
    check_close(what, dp[i].mass, gm, 1e-12);
    snprintf(what, sizeof what, "particle %d: shadow id unchanged", i);
    check_true(what, dp[i].id == p[i].id);
  }

  /* The gradient of a position against a central difference. */
  double h = 1e-5, saved = p[2].pos[1];
  p[2].pos[1] = saved + h;
  double ep = potential(p, N);
  p[2].pos[1] = saved - h;
  double em = potential(p, N);
  p[2].pos[1] = saved;
  check_close("particle 2: d pos[1] vs central difference", dp[2].pos[1], (ep - em) / (2 * h), 1e-6);
  return check_exit();
}
