// C and CUDA sources on one command line, linked in one step, in either
// order. The driver runs clang++ (for the CUDA source and the link), which
// would compile the C source as C++; it must stay C, or its function would
// get a C++ name that calls-triple.cu's extern "C" declaration does not find.
//
// REQUIRES: cuda
// RUN: %kinase-cc %S/Inputs/calls-triple.cu %S/Inputs/triple.c -o %t.exe
// RUN: %cuda-host-run %t.exe | FileCheck %s
// RUN: %kinase-cc %S/Inputs/triple.c %S/Inputs/calls-triple.cu -o %t.c-first.exe
// RUN: %cuda-host-run %t.c-first.exe | FileCheck %s
// CHECK: triple(2) = 6
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
