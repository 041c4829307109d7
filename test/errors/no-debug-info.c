// Without debug information (-g0) there is no source line: the message still
// names the function and says how to get the line. The compilation fails all
// the same. Without a -g option, kinase-cc adds line tables: the line is
// there.
// RUN: not %kinase-cc -g0 -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g0 -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINE
#include <kinase.h>

double ext(double);

static double h(double x) { return ext(x) * 2.0; }

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: {{^}}error: kinase: cannot differentiate 'h': external function 'ext' has no derivative rule and no body to differentiate (compile with -g for the source line){{$}}
// CHECK: 1 error generated.
// LINE: no-debug-info.c:12:{{[0-9]+}}: error: kinase: cannot differentiate 'h': external function 'ext' has no derivative rule and no body to differentiate{{$}}
