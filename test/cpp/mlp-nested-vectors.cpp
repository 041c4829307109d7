// A small neural network as C++ users write one: a Net holding a
// std::vector of Layer objects, each with a std::vector<std::vector<double>>
// weight matrix and a bias vector, passed enzyme_dup with a shadow Net of
// the same shape; the forward pass builds and swaps local vectors. The
// gradient of the mean squared error over three samples against central
// differences.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

struct Layer {
  std::vector<std::vector<double>> W;
  std::vector<double> b;
  Layer(int in, int out) : W(out, std::vector<double>(in)), b(out) {}
  // leaky ReLU of W x + b into y
  void apply(const std::vector<double> &x, std::vector<double> &y) const {
    y.assign(b.size(), 0.0);
    for (size_t o = 0; o < b.size(); o++) {
      double s = b[o];
      for (size_t i = 0; i < x.size(); i++)
        s += W[o][i] * x[i];
      y[o] = s > 0 ? s : 0.01 * s;
    }
  }
};

struct Net {
  std::vector<Layer> layers;
  double predict(const std::vector<double> &x) const {
    std::vector<double> a = x, next;
    for (const Layer &l : layers) {
      l.apply(a, next);
      a.swap(next);
    }
    return a[0];
  }
};

static double mse(const Net *net, const std::vector<std::vector<double>> *xs, const std::vector<double> *ys) {
  double l = 0;
  for (size_t k = 0; k < xs->size(); k++) {
    double d = net->predict((*xs)[k]) - (*ys)[k];
    l += d * d;
  }
  return l / xs->size();
}

int main() {
  Net net, dnet;
  net.layers = {Layer(2, 3), Layer(3, 1)};
  dnet.layers = {Layer(2, 3), Layer(3, 1)};
  double v = 0.1;
  for (Layer &l : net.layers) {
    for (auto &row : l.W)
      for (double &w : row)
        w = std::sin(v += 0.37);
    for (double &b : l.b)
      b = 0.05 * (v += 0.1);
  }
  std::vector<std::vector<double>> xs{{0.5, -0.2}, {1.0, 0.3}, {-0.7, 0.8}};
  std::vector<double> ys{0.3, -0.1, 0.5};
  __enzyme_autodiff((void *)mse, enzyme_dup, &net, &dnet, enzyme_const, &xs, enzyme_const, &ys);
  for (size_t l = 0; l < net.layers.size(); l++) {
    Layer &layer = net.layers[l];
    for (size_t o = 0; o < layer.b.size(); o++) {
      std::vector<double *> params{&layer.b[o]};
      std::vector<double> grads{dnet.layers[l].b[o]};
      for (size_t i = 0; i < layer.W[o].size(); i++) {
        params.push_back(&layer.W[o][i]);
        grads.push_back(dnet.layers[l].W[o][i]);
      }
      for (size_t k = 0; k < params.size(); k++) {
        double old = *params[k], h = 1e-6;
        *params[k] = old + h;
        double up = mse(&net, &xs, &ys);
        *params[k] = old - h;
        double down = mse(&net, &xs, &ys);
        *params[k] = old;
        check_close("d mse / d parameter", grads[k], (up - down) / (2 * h), 1e-6);
      }
    }
  }
  return check_exit();
}
