// -x c and -x c++, compiled and linked in one step: the runtime archive the
// driver adds after them must not be compiled as C or C++. A character
// constant tells the language: an int in C, a char in C++.
//
// RUN: %kinase-cc -I%S -x c %s -o %t.c.exe
// RUN: %t.c.exe | FileCheck %s --check-prefixes=CHECK,C
// RUN: cp %s %t.cpp
// RUN: %kinase-cc -I%S -x c %t.cpp -o %t.cpp.exe
// RUN: %t.cpp.exe | FileCheck %s --check-prefixes=CHECK,C
// RUN: %kinase-cc -I%S -x c++ %s -o %t.cxx.exe
// RUN: %t.cxx.exe | FileCheck %s --check-prefixes=CHECK,CXX
// C: sizeof 'a' = 4
// CXX: sizeof 'a' = 1
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
#include "Inputs/report.h"

int main(void) {
  printf("sizeof 'a' = %d\n", (int)sizeof 'a');
  report_kinase();
  return 0;
}
