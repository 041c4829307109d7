// How remarks are turned on: off by default; -Rpass=kinase and
// -Rpass-missed=kinase through clang's diagnostics (tape.c); -mllvm
// -kinase-remarks (kinase-cc loads the plugin early enough for -mllvm) or
// KINASE_REMARKS=1 show both kinds without clang's -Rpass, printed in
// clang's format, at the source line with -g and naming the function
// without it; kinase-opt --remarks likewise.
// RUN: env -u KINASE_REMARKS %kinase-cc -O2 -c %s -o /dev/null 2>&1 | count 0
// RUN: env -u KINASE_REMARKS %clang-plugin -g -O2 -c %s -o /dev/null 2>&1 | count 0
// RUN: %kinase-cc -g -O2 -c %s -o /dev/null -mllvm -kinase-remarks 2>&1 | FileCheck %s --check-prefix=LINE
// RUN: env KINASE_REMARKS=1 %clang-plugin -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
// RUN: env KINASE_REMARKS=1 %clang-plugin -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLINE
// -fsave-optimization-record writes them all, shows none:
// RUN: env -u KINASE_REMARKS %kinase-cc -O2 -c %s -o /dev/null -fsave-optimization-record -foptimization-record-file=%t.yaml 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=YAML --input-file=%t.yaml
// YAML: --- !Missed
// YAML-NEXT: Pass: kinase
// YAML-NEXT: Name: Recorded
// YAML-NEXT: DebugLoc: { File: '{{.*}}options.c', Line: [[#]], Column: [[#]] }
// YAML-NEXT: Function: scale
// YAML: --- !Passed
// YAML-NEXT: Pass: kinase
// RUN: %clang -g -O1 -Xclang -disable-llvm-passes -S -emit-llvm -I%S/../../include %s -o %t.ll
// RUN: %kinase-opt --remarks %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
#include <kinase.h>

double scale(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    // LINE-DAG: options.c:[[@LINE+2]]:{{[0-9]+}}: remark: gradient of 'scale': the load from parameter 1 is recorded on the tape {{.*}}(the store at line [[#@LINE+3]]){{.*}} [-Rpass-missed=kinase]
    // NOLINE-DAG: {{^}}remark: gradient of 'scale': the load from parameter 1 is recorded on the tape {{.*}}(the store){{.*}} [-Rpass-missed=kinase]
    s += x[i] * x[i];
  x[0] = s;
  return s * x[n - 1]; /* read after the write: the write cannot wait */
}

double sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    // LINE-DAG: options.c:[[@LINE+2]]:{{[0-9]+}}: remark: gradient of 'sum': the load from parameter 1 is recomputed in the reverse sweep, not recorded: {{.*}} [-Rpass=kinase]
    // NOLINE-DAG: {{^}}remark: gradient of 'sum': the load from parameter 1 is recomputed {{.*}} [-Rpass=kinase]
    s += x[i];
  return s;
}

void gradients(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)sum, enzyme_dup, x, dx, enzyme_const, n);
}
