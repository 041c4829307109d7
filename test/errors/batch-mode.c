// Batch mode misused: each a located error naming the function, and the
// compilation fails; none reaches the derivative or crashes.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_const, enzyme_out, enzyme_scalar;
typedef struct {
  double d0, d1;
} T2;
T2 __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_one(void *, ...);
double __enzyme_autodiff(void *, ...);
T2 __enzyme_batch(void *, ...);

static double sq(double x) { return x * x; }
static void scale(const double *x, double *y) { y[0] = 3 * x[0]; }

T2 width_not_constant(double x, int w) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'width_not_constant': __enzyme_fwddiff: the width after enzyme_width must be a positive integer constant
  return __enzyme_fwddiff((void *)sq, enzyme_width, w, x, 1.0, 2.0);
}

T2 width_zero(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'width_zero': __enzyme_fwddiff: the width after enzyme_width must be a positive integer constant
  return __enzyme_fwddiff((void *)sq, enzyme_width, 0, x);
}

T2 width_twice(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'width_twice': __enzyme_fwddiff: enzyme_width is given twice
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, enzyme_width, 2, x, 1.0, 2.0);
}

T2 width_too_wide(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'width_too_wide': __enzyme_fwddiff: enzyme_width 65 is more lanes than Kinase has (64)
  return __enzyme_fwddiff((void *)sq, enzyme_width, 65, x, 1.0);
}

T2 shadow_missing_at_end(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'shadow_missing_at_end': __enzyme_fwddiff: 'sq' has 1 parameter but the call ends at parameter 1 (dup needs a value and its 2 shadows, one per lane of enzyme_width 2)
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, x, 1.0);
}

void shadow_missing_before_marker(double *x, double *dx, double *y, double *dy0, double *dy1) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'shadow_missing_before_marker': __enzyme_fwddiff: a marker stands where parameter 1 of 'scale' expects its shadow for lane 1 (enzyme_width 2: one shadow per lane)
  __enzyme_fwddiff((void *)scale, enzyme_width, 2, enzyme_dup, x, dx, enzyme_dup, y, dy0, dy1);
}

double result_too_small(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'result_too_small': __enzyme_fwddiff: the declared return type cannot hold the 2 tangents of 'sq''s result: declare a struct or array of 2 of its type
  return __enzyme_fwddiff_one((void *)sq, enzyme_width, 2, x, 1.0, 2.0);
}

void stride_missing(double *x, double *dx) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'stride_missing': __enzyme_fwddiff: enzyme_dupv must be followed by the stride in bytes between lanes, the value and its shadows' array
  __enzyme_fwddiff((void *)scale, enzyme_width, 2, enzyme_const, x, enzyme_dupv, dx);
}

void stride_not_integer(double *x, double *dx, double *y, double *dy) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'stride_not_integer': __enzyme_fwddiff: the stride after enzyme_dupv must be an integer (bytes between lanes)
  __enzyme_fwddiff((void *)scale, enzyme_width, 2, enzyme_dupv, x, y, dx, enzyme_const, dy);
}

double reverse_mode(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'reverse_mode': __enzyme_autodiff: enzyme_width (Enzyme's batch mode) is supported in forward mode only (__enzyme_fwddiff); call the gradient once per direction
  return __enzyme_autodiff((void *)sq, enzyme_width, 2, enzyme_out, x);
}

T2 batch_lane_missing(double x0) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'batch_lane_missing': __enzyme_batch: 'sq' has 1 parameter but the call ends at parameter 1 (a vector argument takes one value per lane)
  return __enzyme_batch((void *)sq, enzyme_width, 2, x0);
}

T2 batch_extra(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'batch_extra': __enzyme_batch: 'sq' has 1 parameter but the call passes 1 more argument
  return __enzyme_batch((void *)sq, enzyme_width, 2, enzyme_scalar, x, x);
}
double state;
static double accumulate(double x) {
  state += x;
  return state * x;
}

T2 global_written(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'global_written': __enzyme_fwddiff: batch mode (enzyme_width) is not supported for 'accumulate', which uses a global variable holding floats that the program writes: its one shadow cannot hold a tangent per lane
  return __enzyme_fwddiff((void *)accumulate, enzyme_width, 2, x, 1.0, 2.0);
}
// CHECK: 13 errors generated.
