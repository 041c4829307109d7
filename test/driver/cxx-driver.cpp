// kinase-c++, the C++ driver: clang++ with what kinase-cc adds. It links the
// C++ library, also where it only links objects (whose language it cannot
// know), and it compiles a .c file as C++, as clang++ does.
//
// RUN: %kinase-cxx -O1 %s -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: rm -rf %t.dir && mkdir %t.dir && cd %t.dir && %kinase-cxx -c %s -o prog.o
// RUN: cd %t.dir && %kinase-cxx prog.o -o %t.separate.exe
// RUN: %t.separate.exe | FileCheck %s
// RUN: %kinase-cxx -### %s -o %t.exe 2>&1 | FileCheck %s --check-prefix=COMMAND
// RUN: cp %S/x-c.c %t.c
// RUN: %kinase-cxx -I%S -Wno-deprecated %t.c -o %t.c.exe
// RUN: %t.c.exe | FileCheck %s --check-prefix=AS-CXX
// RUN: %kinase-cxx --version | FileCheck %s --check-prefix=VERSION
// RUN: %kinase-cxx --help | FileCheck %s --check-prefix=HELP
//
// CHECK: words: 3
// CHECK-NEXT: d square(3) = 6
// CHECK-NEXT: runtime {{.+}}
// COMMAND: "-fpass-plugin={{[^"]*}}/lib/Kinase.so"
// COMMAND: "{{[^"]*}}/lib/libkinase_rt.a"
// COMMAND-SAME: "-lstdc++"
// AS-CXX: sizeof 'a' = 1
// AS-CXX-NEXT: d square(3) = 6
// VERSION: kinase-c++ (Kinase) {{[0-9.]+}}
// HELP: usage: kinase-c++ [clang options] file...
// HELP: Compiles C, C++ and CUDA like clang++,
#include "Inputs/report.h"
#include <sstream>
#include <string>
#include <vector>

int main() {
  std::istringstream in("batch forward mode");
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  printf("words: %zu\n", words.size());
  report_kinase();
  return 0;
}
