// C++ as it is written today, around a differentiated function: models owned
// by std::unique_ptr and std::shared_ptr with virtual energy terms, a tree of
// std::unique_ptr nodes walked recursively, std::optional, structured
// bindings, a Const std::map<int, double>, std::inner_product, and
// std::transform with a lambda into a local vector.
// RUN: %check-c %s %t -std=c++17
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Energy {
  virtual ~Energy() = default;
  virtual double eval(const double *x, int n) const = 0;
};
struct Quadratic : Energy {
  double k;
  explicit Quadratic(double k) : k(k) {}
  double eval(const double *x, int n) const override {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += k * x[i] * x[i];
    return s;
  }
};
struct Sine : Energy {
  double eval(const double *x, int n) const override {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += std::sin(x[i]);
    return s;
  }
};
struct Model {
  std::vector<std::unique_ptr<Energy>> terms;
  std::shared_ptr<Energy> extra;
};

// sum of the terms: k x^2 (k = 1.5), sin x, and 0.5 x^2 (shared)
static double total(const Model *m, const double *x, int n) {
  double s = 0;
  for (const auto &t : m->terms)
    s += t->eval(x, n);
  if (m->extra)
    s += m->extra->eval(x, n);
  return s;
}

struct Node {
  double w;
  std::unique_ptr<Node> left, right;
};
static std::unique_ptr<Node> tree(int depth, double w) {
  if (!depth)
    return nullptr;
  auto n = std::make_unique<Node>();
  n->w = w;
  n->left = tree(depth - 1, w * 0.5);
  n->right = tree(depth - 1, w * 1.5);
  return n;
}
// sum over the nodes of sin(w x), and its derivative
static double tree_sum(const Node *n, double x) {
  return n ? std::sin(n->w * x) + tree_sum(n->left.get(), x) + tree_sum(n->right.get(), x) : 0;
}
static double tree_derivative(const Node *n, double x) {
  return n ? n->w * std::cos(n->w * x) + tree_derivative(n->left.get(), x) +
                 tree_derivative(n->right.get(), x)
           : 0;
}

struct Params {
  std::optional<double> scale;
  std::map<int, double> weights;
};
static std::pair<double, double> split(double x) { return {x * x, std::exp(x)}; }
// scale * sum of w_i (x_i^2 + e^x_i), w_i from the map or 1
static double weighted(const double *x, const Params *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    auto [a, b] = split(x[i]);
    auto it = p->weights.find(i);
    s += (it == p->weights.end() ? 1.0 : it->second) * (a + b);
  }
  if (p->scale)
    s *= *p->scale;
  return s;
}

static double dot(const std::vector<double> *a, const std::vector<double> *b) {
  return std::inner_product(a->begin(), a->end(), b->begin(), 0.0);
}
// sum of 3 a_i^2
static double mapped(const std::vector<double> *a) {
  std::vector<double> out(a->size());
  std::transform(a->begin(), a->end(), out.begin(), [](double v) { return v * v * 3; });
  return std::accumulate(out.begin(), out.end(), 0.0);
}

int main() {
  Model m;
  m.terms.push_back(std::make_unique<Quadratic>(1.5));
  m.terms.push_back(std::make_unique<Sine>());
  m.extra = std::make_shared<Quadratic>(0.5);
  double x[3] = {0.1, 0.2, 0.3}, dx[3] = {0};
  __enzyme_autodiff((void *)total, enzyme_const, &m, enzyme_dup, x, dx, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("owned models", dx[i], 3 * x[i] + std::cos(x[i]) + x[i], 1e-14);

  auto t = tree(4, 1.0);
  check_close("tree, reverse", __enzyme_autodiff((void *)tree_sum, enzyme_const, t.get(), enzyme_out, 0.3),
              tree_derivative(t.get(), 0.3), 1e-14);
  check_close("tree, forward", __enzyme_fwddiff((void *)tree_sum, enzyme_const, t.get(), enzyme_dup, 0.3, 1.0),
              tree_derivative(t.get(), 0.3), 1e-14);

  Params p;
  p.scale = 2.0;
  p.weights[1] = 0.5;
  p.weights[2] = 3.0;
  double dw[3] = {0}, w[3] = {1, 0.5, 3};
  __enzyme_autodiff((void *)weighted, enzyme_dup, x, dw, enzyme_const, &p, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("optional, bindings, map", dw[i], 2 * w[i] * (2 * x[i] + std::exp(x[i])), 1e-14);

  std::vector<double> a{1, 2, 3}, b{4, 5, 6}, da(3), db(3), dm(3);
  __enzyme_autodiff((void *)dot, enzyme_dup, &a, &da, enzyme_dup, &b, &db);
  __enzyme_autodiff((void *)mapped, enzyme_dup, &a, &dm);
  for (int i = 0; i < 3; i++) {
    check_close("inner_product, d/da", da[i], b[i], 0);
    check_close("inner_product, d/db", db[i], a[i], 0);
    check_close("transform", dm[i], 6 * a[i], 1e-15);
  }
  return check_exit();
}
