// Response files (@file) naming a CUDA source: cuda.rsp names
// cuda-inner.rsp, which says -x "cuda" (quoted) before kernel.cpp. Only by
// reading through both files does the driver see a CUDA source, to add the
// CUDA toolkit, its GPU and, when linking, cudart.
//
// REQUIRES: cuda
// RUN: cd %S/Inputs/response && %kinase-cc @cuda.rsp -o %t.exe
// RUN: %cuda-host-run %t.exe | FileCheck %s
// CHECK: hello, nested response files
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
