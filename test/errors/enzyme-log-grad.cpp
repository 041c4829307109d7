// A program defining enzymeLogGrad, the function Enzyme's gradient logging
// calls with each adjoint, counts on calls Kinase never makes: a located
// error at the first request instead of a run without them.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
double __enzyme_autodiff(void *, ...);

int logged = 0;

void enzymeLogGrad(double grad, const char *opcode, const char *callee, const char *module,
                   const char *function, unsigned block, unsigned inst) {
  ++logged;
}

static double square(double x) { return x * x; }

double dsquare(double x) {
  // CHECK: {{.*}}enzyme-log-grad.cpp:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'dsquare(double)': Enzyme's gradient logging is not supported: Kinase never calls 'enzymeLogGrad(double, char const*, char const*, char const*, char const*, unsigned int, unsigned int)', which this program defines
  return __enzyme_autodiff((void *)square, x);
}
// CHECK: 1 error generated.
