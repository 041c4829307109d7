// Dependency files, as make and ninja ask for them: -MD -MF FILE, and -MMD
// (named after the output, system headers left out), while compiling, and
// while compiling and linking in one step.
//
// RUN: rm -f %t.md.d %t.mmd.d %t.link.d
// RUN: %kinase-cc -I%S -MD -MF %t.md.d -c %s -o %t.md.o
// RUN: FileCheck %s --check-prefixes=CHECK,MD --input-file=%t.md.d
// RUN: %kinase-cc -I%S -MMD -c %s -o %t.mmd.o
// RUN: FileCheck %s --input-file=%t.mmd.d --implicit-check-not=stdio.h
// RUN: %kinase-cc -I%S -MMD -MF %t.link.d %s -o %t.exe
// RUN: FileCheck %s --check-prefix=LINK --input-file=%t.link.d --implicit-check-not=stdio.h
// RUN: %t.exe | FileCheck %s --check-prefix=OUT
// CHECK: .o:
// LINK: .exe:
// CHECK-NEXT: driver/depfile.c
// LINK-NEXT: driver/depfile.c
// CHECK-DAG: Inputs/dep-header.h
// LINK-DAG: Inputs/dep-header.h
// MD-DAG: stdio.h
// OUT: 7
#include "Inputs/dep-header.h"
#include <stdio.h>

int main(void) {
  printf("%d\n", DEP_VALUE);
  return 0;
}
