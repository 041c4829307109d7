// A struct of floats passed in memory (byval) and marked enzyme_out has its
// gradient returned by __enzyme_autodiff; split mode has no result to
// return it in, so it is an error at the request.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_out;
struct V3 {
  double x, y, z;
};
template <typename RT, typename... Args> RT __enzyme_augmentfwd(void *, Args...);

static double product(V3 v) { return v.x * v.y * v.z; }

void *test(V3 w) {
  // CHECK: {{.*}}out-struct-in-memory-split.cpp:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test(V3)': __enzyme_augmentfwd: parameter 1 of 'product(V3)' is a struct passed in memory and marked enzyme_out, which only __enzyme_autodiff without enzyme_width supports; take the struct by pointer and pass it with enzyme_dup
  return __enzyme_augmentfwd<void *>((void *)product, enzyme_out, w);
}
// CHECK: 1 error generated.
