// Output to standard output (-o -) from CUDA: the PTX of the device side
// (--cuda-device-only -S), for the default GPU the driver adds.
//
// REQUIRES: cuda
// RUN: %kinase-cc --cuda-device-only -S -o - %s | FileCheck %s
// CHECK: .target sm_90
// CHECK: .entry _Z5scalePd(
__global__ void scale(double *x) { x[threadIdx.x] *= 2; }
