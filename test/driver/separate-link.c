// Compile (-c) and link as separate steps, as build systems do. A link of C
// objects stays a plain C link: clang, not clang++, and no CUDA libraries.
//
// RUN: %kinase-cc -c %S/Inputs/calls-triple.c -o %t.main.o
// RUN: %kinase-cc -c %S/Inputs/triple.c -o %t.triple.o
// RUN: %kinase-cc %t.main.o %t.triple.o -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: %kinase-cc -### %t.main.o %t.triple.o -o %t.exe 2>&1 | FileCheck %s --check-prefix=PLAIN
// CHECK: triple(2) = 6
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
// PLAIN: libkinase_rt.a"
// PLAIN-NOT: cuda
// PLAIN-NOT: -lstdc++
