// A CUDA source compiled (-c) then linked as an object with a C object, and
// from an archive: nothing on the link line says CUDA but the object itself,
// which the driver reads. The link must get what clang++ would need (cudart,
// the C++ library) without any flag from the user.
//
// REQUIRES: cuda
// RUN: %kinase-cc -c %S/Inputs/calls-triple.cu -o %t.main.o
// RUN: %kinase-cc -c %S/Inputs/triple.c -o %t.triple.o
// RUN: %kinase-cc %t.main.o %t.triple.o -o %t.exe
// RUN: %cuda-host-run %t.exe | FileCheck %s
// RUN: rm -f %t.a && llvm-ar rcs %t.a %t.main.o
// RUN: %kinase-cc %t.triple.o %t.a -o %t.archive.exe
// RUN: %cuda-host-run %t.archive.exe | FileCheck %s
// RUN: %kinase-cc -### %t.main.o %t.triple.o -o %t.exe 2>&1 | FileCheck %s --check-prefix=LINK
// CHECK: triple(2) = 6
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
// LINK: libkinase_rt.a" "-lcudart" "-lcuda"
// LINK-SAME: "-lstdc++"
