/* Kinase demo: derivatives of ordinary C functions, computed by the compiler.
 *
 * __enzyme_fwddiff(fn, args...) is forward mode: every argument marked
 * enzyme_dup is followed by its tangent (a direction), and the call returns the
 * derivative of fn's result in that direction. __enzyme_autodiff(fn, args...)
 * is reverse mode: one call gives the whole gradient, enzyme_out scalars'
 * partials returned (several as a struct), enzyme_dup arrays' partials added
 * into their shadows. Kinase generates the derivative functions at compile
 * time; here each one is compared against a central finite difference.
 *
 *   build/bin/kinase-cc -O2 examples/demo.c -o demo -lm && ./demo
 */
#include <kinase.h> /* __enzyme_fwddiff, enzyme_dup, enzyme_const (Enzyme's C ABI) */
#include <math.h>
#include <stdio.h>

/* A function of two variables. */
static double f(double x, double y) { return sin(x) * exp(y) + x * x * y; }

/* The negative log-likelihood of data under a normal distribution with mean mu
 * and standard deviation exp(log_sigma): a loop over an array. */
static double nll(const double *data, int n, double mu, double log_sigma) {
  double sigma = exp(log_sigma), sum = 0;
  for (int i = 0; i < n; i++) {
    double z = (data[i] - mu) / sigma;
    sum += 0.5 * z * z + log_sigma + 0.91893853320467274; /* log(sqrt(2 pi)) */
  }
  return sum;
}

/* Derivatives of f and nll in the direction (dx, dy), by Kinase... */
static double df(double x, double y, double dx, double dy) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
}

static double dnll(const double *data, int n, double mu, double log_sigma, double dmu,
                   double dlog_sigma) {
  return __enzyme_fwddiff((void *)nll, enzyme_const, data, enzyme_const, n, enzyme_dup, mu, dmu,
                          enzyme_dup, log_sigma, dlog_sigma);
}

/* The whole gradient of nll in one reverse-mode call: the partials of the
 * enzyme_out scalars come back in a struct, those of the data array are added
 * into ddata. (The entry point's name only has to contain __enzyme_autodiff.) */
typedef struct {
  double mu, log_sigma;
} NllGradient;
NllGradient __enzyme_autodiff_nll(void *, ...);

static NllGradient gradient_nll(const double *data, double *ddata, int n, double mu,
                                double log_sigma) {
  return __enzyme_autodiff_nll((void *)nll, enzyme_dup, data, ddata, enzyme_const, n, enzyme_out,
                               mu, enzyme_out, log_sigma);
}

/* ...and by central finite differences. */
static const double h = 1e-5;

static double fd_f(double x, double y, double dx, double dy) {
  return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

static double fd_nll(const double *data, int n, double mu, double log_sigma, double dmu,
                     double dlog_sigma) {
  return (nll(data, n, mu + h * dmu, log_sigma + h * dlog_sigma) -
          nll(data, n, mu - h * dmu, log_sigma - h * dlog_sigma)) /
         (2 * h);
}

static int mismatches;

static void row(const char *what, double value, double kinase, double fd) {
  int ok = fabs(kinase - fd) <= 1e-6 * fmax(fabs(fd), 1.0);
  mismatches += !ok;
  printf("%-26s %12.6f %16.9f %16.9f   %s\n", what, value, kinase, fd, ok ? "OK" : "MISMATCH");
}

int main(void) {
  printf("%-26s %12s %16s %16s\n", "derivative", "value", "Kinase", "finite diff.");

  static const double points[][2] = {{0.5, 1.0}, {2.0, -0.5}, {-1.25, 0.3}};
  for (int i = 0; i < 3; i++) {
    double x = points[i][0], y = points[i][1];
    char what[64];
    snprintf(what, sizeof what, "df/dx at (%g, %g)", x, y);
    row(what, f(x, y), df(x, y, 1, 0), fd_f(x, y, 1, 0));
    snprintf(what, sizeof what, "df/dy at (%g, %g)", x, y);
    row(what, f(x, y), df(x, y, 0, 1), fd_f(x, y, 0, 1));
  }

  static const double data[] = {0.8, 1.9, 1.1, 0.4, 1.6, 2.3, 1.2, 0.9};
  int n = sizeof data / sizeof data[0];
  double mu = 1.0, log_sigma = 0.2, value = nll(data, n, mu, log_sigma);
  row("dnll/dmu", value, dnll(data, n, mu, log_sigma, 1, 0), fd_nll(data, n, mu, log_sigma, 1, 0));
  row("dnll/dlog_sigma", value, dnll(data, n, mu, log_sigma, 0, 1),
      fd_nll(data, n, mu, log_sigma, 0, 1));

  double ddata[8] = {0}, moved[8];
  NllGradient g = gradient_nll(data, ddata, n, mu, log_sigma);
  row("reverse: dnll/dmu", value, g.mu, fd_nll(data, n, mu, log_sigma, 1, 0));
  row("reverse: dnll/dlog_sigma", value, g.log_sigma, fd_nll(data, n, mu, log_sigma, 0, 1));
  for (int i = 0; i < n; i++)
    moved[i] = data[i];
  moved[2] = data[2] + h;
  double up = nll(moved, n, mu, log_sigma);
  moved[2] = data[2] - h;
  row("reverse: dnll/ddata[2]", value, ddata[2], (up - nll(moved, n, mu, log_sigma)) / (2 * h));

  if (mismatches) {
    printf("%d derivative(s) disagree with finite differences\n", mismatches);
    return 1;
  }
  printf("all derivatives agree with finite differences\n");
  return 0;
}
