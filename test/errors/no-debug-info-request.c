// Without debug information (-g0) an error in the request itself names the
// function holding the __enzyme_fwddiff call and says how to get the line;
// kinase-cc's default line tables give the line.
// RUN: not %kinase-cc -g0 -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g0 -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
#include <kinase.h>

static double h(double x, ...) { return x * x; }

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: {{^}}error: kinase: in function 'test': __enzyme_fwddiff: 'h' is variadic (compile with -g for the source line){{$}}
// CHECK: 1 error generated.
// LINE: no-debug-info-request.c:11:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'h' is variadic{{$}}
