// Split mode (__enzyme_augmentfwd / __enzyme_reverse) used wrongly: each
// mistake is a located error at the call.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_dup, enzyme_tape, enzyme_allocated;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_augmentfwd_void(void *, ...) __asm__("__enzyme_augmentfwd");
double __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);
typedef struct {
  double result;
  double other;
} TwoDoubles;
TwoDoubles __enzyme_augmentfwd_two(void *, ...) __asm__("__enzyme_augmentfwd");

static double sq(double x) { return x * x; }
static void scale(double *x) { *x *= 3; }

void lost_tape(double *x, double *dx) {
  // CHECK: {{.*}}split-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'lost_tape': __enzyme_augmentfwd: the tape is lost: declare it to return a pointer (the tape) or pass enzyme_allocated, n, enzyme_tape, memory
  __enzyme_augmentfwd_void((void *)scale, enzyme_dup, x, dx);
}

void small_tape(double *x, double *dx, char *tape) {
  // CHECK: {{.*}}split-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'small_tape': __enzyme_augmentfwd: enzyme_allocated gives 4 bytes for the tape; Kinase needs 8
  __enzyme_augmentfwd((void *)scale, enzyme_dup, x, dx, enzyme_allocated, 4, enzyme_tape, tape);
}

double no_seed(double x, void *tape) {
  // CHECK: {{.*}}split-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'no_seed': __enzyme_reverse: 'sq' returns a floating-point value: the derivative of the result must follow its parameters
  return __enzyme_reverse((void *)sq, x);
}

double no_tape(double *x, double *dx) {
  // CHECK: {{.*}}split-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'no_tape': __enzyme_reverse: the tape from __enzyme_augmentfwd must follow the parameters
  return __enzyme_reverse((void *)scale, enzyme_dup, x, dx);
}

double tape_in_gradient(double x, void *tape) {
  // CHECK: {{.*}}split-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'tape_in_gradient': __enzyme_autodiff: marker 'enzyme_tape' belongs to split mode
  return __enzyme_autodiff((void *)sq, x, enzyme_tape, tape);
}

double no_room_for_tape(double x) {
  // CHECK: {{.*}}split-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'no_room_for_tape': __enzyme_augmentfwd: the declared return type holds neither {tape, result[, shadow]} nor {result[, shadow], tape} of 'sq'
  return __enzyme_augmentfwd_two((void *)sq, x).other;
}
// CHECK: 6 errors generated.
