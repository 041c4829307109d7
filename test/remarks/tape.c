// Remarks on the tape (issue 11): a loop that reads memory a later store
// overwrites has its loads recorded, and the remark names the store; a loop
// that only reads has them recomputed. Recorded values are missed remarks
// (-Rpass-missed=kinase), recomputed ones passed remarks (-Rpass=kinase);
// -Rpass turns on clang's location tracking, so no -g is needed.
// RUN: %kinase-cc -O0 -c %s -o /dev/null -Rpass=kinase -Rpass-missed=kinase 2>&1 | FileCheck %s
// RUN: %kinase-cc -O2 -c %s -o /dev/null -Rpass=kinase -Rpass-missed=kinase 2>&1 | FileCheck %s
// Each kind alone:
// RUN: %kinase-cc -O2 -c %s -o /dev/null -Rpass-missed=kinase 2>&1 | FileCheck %s --check-prefix=MISSED --implicit-check-not='[-Rpass=kinase]'
// RUN: %kinase-cc -O2 -c %s -o /dev/null -Rpass=kinase 2>&1 | FileCheck %s --check-prefix=PASSED --implicit-check-not='[-Rpass-missed=kinase]'
// clang with the plugin, as kinase-cc runs it:
// RUN: %clang-plugin -O2 -c %s -o /dev/null -Rpass-missed=kinase 2>&1 | FileCheck %s --check-prefix=MISSED --implicit-check-not='[-Rpass=kinase]'
#include <kinase.h>

double overwritten(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    // CHECK-DAG: tape.c:[[@LINE+2]]:{{[0-9]+}}: remark: gradient of 'overwritten': the load from parameter 1 is recorded on the tape (in a heap buffer that grows with the loop), not recomputed: the function writes the memory it reads (the store at line [[#@LINE+3]]) before the reverse sweep runs [-Rpass-missed=kinase]
    // MISSED: tape.c:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of 'overwritten': the load from parameter 1 is recorded on the tape {{.*}}(the store at line [[#@LINE+2]]){{.*}} [-Rpass-missed=kinase]
    s += x[i] * x[i];
  x[0] = 0;
  return s * x[n - 1]; /* read after the write: the write cannot wait */
}

// Another pointer written in the loop: it may alias the one read.
double written_elsewhere(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    // CHECK-DAG: tape.c:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of 'written_elsewhere': the load from parameter 1 is recorded on the tape (in a heap buffer that grows with the loop), not recomputed: the function writes memory it does not own (the store at line [[#@LINE+2]]), which may overwrite what the load read before the reverse sweep runs [-Rpass-missed=kinase]
    s += x[i] * x[i];
    y[i] = s;
  }
  return s;
}

// A store that ends the function is made after the reverse sweep.
double result_at_end(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    // CHECK-DAG: tape.c:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of 'result_at_end': the load from parameter 1 is recomputed in the reverse sweep, not recorded: the function's writes to memory not its own end it (the store at line [[#@LINE+2]]): they are made after the reverse sweep [-Rpass=kinase]
    s += x[i] * x[i];
  *y = s;
  return s;
}

double read_only(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    // CHECK-DAG: tape.c:[[@LINE+2]]:{{[0-9]+}}: remark: gradient of 'read_only': the load from parameter 1 is recomputed in the reverse sweep, not recorded: the function writes no memory but its own [-Rpass=kinase]
    // PASSED: tape.c:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of 'read_only': the load from parameter 1 is recomputed in the reverse sweep, not recorded
    s += x[i] * x[i];
  return s;
}

// A library math call in a loop is recorded on the host.
double exps(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    // CHECK-DAG: tape.c:[[@LINE+1]]:{{[0-9]+}}: remark: gradient of 'exps': the call of 'exp' at line [[#@LINE+1]] is recorded on the tape (in a heap buffer that grows with the loop), not recomputed: a math function called in a loop: on the host a record costs less than calling it again [-Rpass-missed=kinase]
    s += __builtin_exp(x[i]);
  return s;
}

void gradients(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)overwritten, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)written_elsewhere, enzyme_dup, x, dx, enzyme_const, x + n, n);
  __enzyme_autodiff((void *)result_at_end, enzyme_dup, x, dx, enzyme_const, x + n, n);
  __enzyme_autodiff((void *)read_only, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)exps, enzyme_dup, x, dx, enzyme_const, n);
}
