// Enzyme's attributes used wrongly are errors that name the file and line
// of the declaration, the attribute and what is wrong.
// RUN: not %kinase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O0 -c %s -o /dev/null 2>&1 | not grep "'kept'"

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_function_like on 'misspelt' names 'logp1', which has no derivative rule
__attribute__((enzyme_function_like("logp1"))) double misspelt(double x) { return x; }

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_function_like on 'pool_get' names 'malloc', which is not a math function: a function is differentiated like a math function, or like one through which no derivative flows (printf)
__attribute__((enzyme_function_like("malloc"))) void *pool_get(unsigned long n);

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_function_like on 'square' names 'pow', but 'square' does not take 2 floating-point parameters and return a floating-point value, which the derivative of 'pow' needs
__attribute__((enzyme_function_like("pow"))) double square(double x) { return x * x; }

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_function_like on 'counted' names 'sin', but 'counted' does not take 1 floating-point parameter and return a floating-point value, which the derivative of 'sin' needs
__attribute__((enzyme_function_like("sin"))) double counted(int n) { return n; }

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_function_like on 'unnamed' needs the name of a library function: enzyme_function_like("log1p")
__attribute__((annotate("enzyme_function_like"))) double unnamed(double x) { return x; }

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_function_like on 'table' applies to functions only
__attribute__((enzyme_function_like("exp"))) double table[4];

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_elementwise_read on 'weights' applies to functions only
__attribute__((enzyme_elementwise_read)) double weights[4];

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_nofree on 'argued' takes no arguments
__attribute__((annotate("enzyme_nofree", 1))) void argued(void) {}

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+2]]: enzyme_shadow on 'rate' needs another global variable of the same type: enzyme_shadow(g_shadow)
float rate_shadow;
__attribute__((enzyme_shadow(rate_shadow))) double rate = 1;

// CHECK-DAG: error: kinase: {{.*}}attributes.c:[[@LINE+1]]: enzyme_shadow on 'solve' applies to global variables only
__attribute__((enzyme_shadow(rate))) double solve(double x) { return x * rate; }

// Accepted on globals: no error (the grep above).
__attribute__((annotate("enzyme_nofree"), enzyme_shouldrecompute, enzyme_inactive)) double kept[4];

void *use(void) { return pool_get(8); }
// CHECK: 10 errors generated.
