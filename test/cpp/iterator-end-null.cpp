// A container's end() builds an iterator holding nullptr in a local object
// through a constructor call and returns its pointer: the null pointer goes
// to the constructor with a (null) shadow, so the local object has a shadow
// and the returned pointer has one (before: "a pointer here may point
// either to memory with a shadow ... or to memory without one"). The
// iterator loops of std::unordered_map and std::forward_list are written
// so. Both modes, against the analytic gradient.
// RUN: %check-c %s %t -std=c++17
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
#include "check.h"

extern "C" int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Node {
  double value;
  Node *next;
};

struct Iterator {
  Node *at;
  __attribute__((noinline)) explicit Iterator(Node *n) : at(n) {}
};

struct List {
  Node *head;
  __attribute__((noinline)) Node *begin() const { return Iterator(head).at; }
  __attribute__((noinline)) Node *end() const { return Iterator(nullptr).at; }
};

__attribute__((noinline)) static double sum_cubes(const List *l) {
  double s = 0;
  for (Node *n = l->begin(); n != l->end(); n = n->next)
    s += n->value * n->value * n->value;
  return s;
}

int main() {
  Node c{0.5, nullptr}, b{-2.0, &c}, a{1.5, &b};
  Node dc{0, nullptr}, db{0, &dc}, da{0, &db};
  List l{&a}, dl{&da};
  __enzyme_autodiff((void *)sum_cubes, enzyme_dup, &l, &dl);
  check_close("reverse: a", da.value, 3 * 1.5 * 1.5, 1e-14);
  check_close("reverse: b", db.value, 3 * 2.0 * 2.0, 1e-14);
  check_close("reverse: c", dc.value, 3 * 0.5 * 0.5, 1e-14);
  Node tc{1, nullptr}, tb{1, &tc}, ta{1, &tb};
  List tl{&ta};
  double t = __enzyme_fwddiff((void *)sum_cubes, enzyme_dup, &l, &tl);
  check_close("forward: tangent along (1,1,1)", t, 3 * (1.5 * 1.5 + 2.0 * 2.0 + 0.5 * 0.5), 1e-14);
  return check_exit();
}
