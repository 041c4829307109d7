// Dependency files of a CUDA source (one compilation for the GPU, one for the
// host, one .d file): -MD -MF FILE and -MMD.
//
// REQUIRES: cuda
// RUN: rm -f %t.md.d %t.mmd.d
// RUN: %kinase-cc -I%S -MD -MF %t.md.d -c %s -o %t.md.o
// RUN: FileCheck %s --check-prefixes=CHECK,MD --input-file=%t.md.d
// RUN: %kinase-cc -I%S -MMD -c %s -o %t.mmd.o
// RUN: FileCheck %s --input-file=%t.mmd.d --implicit-check-not=cuda_runtime.h
// CHECK: .o:
// CHECK-NEXT: driver/depfile.cu
// CHECK-DAG: Inputs/dep-header.h
// MD-DAG: cuda_runtime.h
#include "Inputs/dep-header.h"

__global__ void set(int *x) { *x = DEP_VALUE; }
