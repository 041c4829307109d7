// Response files (@file): clang expands them itself, but the driver reads
// the command line to choose clang or clang++ and what to add, so it must
// read through them: nested, with quotes and backslashes. Here cxx.rsp names
// cxx-inner.rsp, which compiles this file as C++ ("-x" 'c++', quoted): the
// driver must run clang++, whose link adds the C++ library that operator new
// needs. A cycle and a missing file are clang's to report.
//
// RUN: cd %S/Inputs/response && %kinase-cc @cxx.rsp -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: cd %S/Inputs/response && not %kinase-cc @self.rsp 2>&1 | FileCheck %s --check-prefix=CYCLE
// RUN: not %kinase-cc @%t.missing.rsp 2>&1 | FileCheck %s --check-prefix=MISSING
// CHECK: hello, response files from C++
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
// CYCLE: recursive expansion
// MISSING: error: no such file or directory: '@{{.*}}missing.rsp'
#include "Inputs/report.h"

int main(void) {
#ifdef __cplusplus
  const char *language = new char[4]{'C', '+', '+', '\0'};
#else
  const char *language = "C";
#endif
  printf("hello, %s from %s\n", WHO, language);
  report_kinase();
  return 0;
}
