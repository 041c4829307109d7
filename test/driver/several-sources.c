// Several sources on one command line: compiled and linked in one step, and
// compiled with one -c (no -o: one object each) then linked.
//
// RUN: %kinase-cc %S/Inputs/calls-triple.c %S/Inputs/triple.c -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: cd %t.dir && %kinase-cc -c %S/Inputs/calls-triple.c %S/Inputs/triple.c
// RUN: cd %t.dir && %kinase-cc calls-triple.o triple.o -o %t.separate.exe
// RUN: %t.separate.exe | FileCheck %s
// CHECK: triple(2) = 6
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
