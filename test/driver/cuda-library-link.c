// A C program of the CUDA driver API names -lcuda (or -lcudart) when it
// links; the Kinase runtime it links calls the CUDA runtime too, so such a
// link gets cudart, the driver and their run path, and stays a C link. It
// finds cuda.h without a -I: the toolkit's headers are searched last.
//
// REQUIRES: cuda
// RUN: %kinase-cc -fsyntax-only -x c - < %S/../cuda/include/cu_check.h
// RUN: %kinase-cc -### -c %S/Inputs/triple.c -o %t.o 2>&1 | FileCheck %s --check-prefix=HEADERS
// HEADERS: "-idirafter" "{{[^"]*}}/include"
// RUN: %kinase-cc -c %S/Inputs/triple.c -o %t.o
// RUN: %kinase-cc -### %t.o -o %t.exe -lcuda 2>&1 | FileCheck %s
// RUN: %kinase-cc -### %t.o -o %t.exe -l cudart 2>&1 | FileCheck %s
// RUN: %kinase-cc -### %t.o -o %t.exe 2>&1 | FileCheck %s --check-prefix=PLAIN
// CHECK: libkinase_rt.a" "-lcudart" "-lcuda" "-rpath"
// CHECK-NOT: -lstdc++
// PLAIN: libkinase_rt.a"
// PLAIN-NOT: cuda
