// Constructors that copy one scalar field with memcpy, as clang writes
// implicit copies: an integer field where trivially copyable fields run
// together (Eigen's CwiseNullaryOp: its `Index m_rows` and empty `m_cols`,
// 8 bytes with no TBAA, then a functor with a copy constructor of its own),
// and at -O0 the reference a std::tuple holds (std::unordered_map's
// operator[] moves its key through forward_as_tuple). instcombine makes
// each memcpy an i64 load and store at the object's own address, where
// nothing says what the bytes are; Kinase stopped with "it copies 8 bytes
// whose type Kinase cannot decide". The copy is now a load and store of the
// field's type, noted before instcombine. Both modes against the analytic
// derivative n * v^2, and Enzyme's map.cpp: d(x*x) through a map entry.
// RUN: %check-c %s %t
// RUN: %kinase-cc -O0 %testinc -S -emit-llvm %s -o - | FileCheck %s
// The augmented copy constructor copies the integer as one.
// CHECK-LABEL: define internal {{.*}}@__kinase_aug__ZN6FilledC2ERKS_(
// CHECK: [[ROWS:%.*]] = load i64, ptr
// CHECK: store i64 [[ROWS]], ptr
#include <string>
#include <unordered_map>
#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Rows {
  long n;
};
struct Cols {};
struct Value {
  double v;
  Value(double v) : v(v) {}
  Value(const Value &o) : v(o.v) {}
};
struct Filled {
  Rows rows;
  Cols cols;
  Value value;
  Filled(long n, double v) : rows{n}, cols{}, value(v) {}
  __attribute__((noinline)) Filled(const Filled &) = default;
};

static double total(const Filled *f) {
  Filled copy(*f);
  return copy.rows.n * copy.value.v * copy.value.v;
}

using Dict = std::unordered_map<std::string, double>;

static void square_entry(Dict &vals) { vals["x"] = vals["x"] * vals["x"]; }

int main() {
  Filled f(3, 1.5), df(0, 0.0);
  __enzyme_autodiff((void *)total, enzyme_dup, &f, &df);
  check_close("reverse: d/dv n v^2", df.value.v, 2 * 3 * 1.5, 1e-15);
  check_true("reverse: the integer's shadow untouched", df.rows.n == 0);

  Filled tangent(0, 1.0);
  double t = __enzyme_fwddiff((void *)total, enzyme_dup, &f, &tangent);
  check_close("forward: d/dv n v^2", t, 2 * 3 * 1.5, 1e-15);

  Dict vals, dvals;
  vals["x"] = 3.0;
  dvals["x"] = 1.0;
  __enzyme_autodiff((void *)square_entry, enzyme_dup, &vals, &dvals);
  check_close("map entry: primal", vals["x"], 9.0, 1e-15);
  check_close("map entry: d(x*x)", dvals["x"], 6.0, 1e-15);
  return check_exit();
}
