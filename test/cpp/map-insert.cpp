// Inserting into std::map and std::set inside the differentiated function
// (operator[], emplace, try_emplace, insert_or_assign, a set's insert; not
// yet a map's insert of a pair, which the allocator's construct copies with
// a memcpy whose type nothing near it says: a stop at run time): libstdc++ links each new node into the
// red-black tree with _Rb_tree_insert_and_rebalance, whose model
// (rules/rbtree.c) makes the same links and rotations, deciding from the
// primal tree's colours, and stores the shadow nodes' addresses at the
// same places of the shadow tree. Twenty keys in a scrambled order rotate
// the tree at every level; a set keyed by values that depend on x orders
// them by the primal values.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <map>
#include <set>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Particle {
  double m;
  double pos[2];
  int id;
};

// keys 7i mod 20: every key once, in an order that rotates the tree
static double weighted(double x) {
  std::map<int, double> w;
  for (int i = 0; i < 20; i++) {
    int k = (7 * i) % 20;
    w[k] = std::sin(x * (k + 1));
  }
  for (int i = 0; i < 20; i += 3)
    w[i] += x * i; // found, not inserted
  w.emplace(20, x * x);
  w.try_emplace(-1, 3 * x);
  w.insert_or_assign(21, 2 * x);
  double s = 0;
  for (const auto &[k, v] : w)
    s += v * (k + 1);
  return s;
}

static double particles(double x) {
  std::map<int, Particle> ps;
  for (int i = 5; i > 0; i--)
    ps[i] = Particle{x * i, {x * 0.5, 1.0 + i}, i};
  ps[0] = Particle{2.0, {x, x * x}, 0};
  double e = 0;
  for (const auto &[id, p] : ps)
    e += p.m * (p.pos[0] * p.pos[0] + p.pos[1]) * (id + 1);
  return e;
}

// the set orders x-dependent values: sorted, each weighted by its rank
static double ranked(double x) {
  std::set<double> s;
  for (int i = 0; i < 12; i++)
    s.insert(std::cos(x + i));
  double r = 0;
  int rank = 1;
  for (double v : s)
    r += rank++ * v;
  return r;
}

static double ranked_derivative(double x) {
  // rank of cos(x + i) among the twelve values
  double d = 0;
  for (int i = 0; i < 12; i++) {
    int rank = 1;
    for (int j = 0; j < 12; j++)
      rank += std::cos(x + j) < std::cos(x + i);
    d += -rank * std::sin(x + i);
  }
  return d;
}

int main() {
  for (double x : {0.3, 1.1}) {
    check_both_modes(weighted, x, 1e-6);
    check_both_modes(particles, x, 1e-6);
    check_close("ranked' reverse", __enzyme_autodiff((void *)ranked, x), ranked_derivative(x), 1e-12);
    check_close("ranked' forward", __enzyme_fwddiff((void *)ranked, x, 1.0), ranked_derivative(x), 1e-12);
  }
  return check_exit();
}
