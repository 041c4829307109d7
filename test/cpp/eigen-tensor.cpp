// Eigen's tensors (unsupported/Eigen/CXX11/Tensor): a 2-D convolution
// assigned to a Tensor, differentiated in reverse mode with respect to the
// kernel and the input. Its evaluators copy the dimensions and the data
// through helpers that take `void *` or a `std::array<long, N>` by
// reference (DefaultDevice::memcpy, DSizes::operator=): the element type of
// those copies shows only in their callers (a field of the evaluator, a
// float * they pass), which Kinase reads (analysis/copytypes.c).
//
//   O[i][j] = sum over a, b of I[i + a][j + b] K[a][b]
//   L = sum over i, j of O[i][j] W[i][j]  (W: the seed in O's shadow)
//   dL/dK[a][b] = sum over i, j of I[i + a][j + b] W[i][j]
//   dL/dI[p][q] = sum over a, b with 0 <= p - a < 4, 0 <= q - b < 5 of K[a][b] W[p - a][q - b]
//
// At -O0 clang writes no TBAA, and the pointers the copies get are
// `ptr`; what the source declares them as is in the mangled names of the
// functions passing them (`DefaultDevice::get<float *>(float *)`), which
// Kinase reads (analysis/paramtypes.c). At -O1, TBAA ("p1 float").
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
// RUN: %kinase-cc -O1 -std=c++17 -fno-exceptions %testinc %s -o %t.O1 && %t.O1
#include <eigen3/unsupported/Eigen/CXX11/Tensor>

#include "check.h"

extern "C" int enzyme_dup;
void __enzyme_autodiff(void *, ...);

using Eigen::Tensor;

__attribute__((noinline)) static void convolve(const Tensor<float, 2> *kernel, const Tensor<float, 2> *input,
                                               Tensor<float, 2> *output) {
  Eigen::array<ptrdiff_t, 2> dims({0, 1});
  *output = input->convolve(*kernel, dims);
}

int main() {
  Tensor<float, 2> K(2, 3), I(5, 7), O(4, 5), dK(2, 3), dI(5, 7), W(4, 5);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      K(a, b) = 0.5f + 0.25f * a - 0.125f * b;
  for (int p = 0; p < 5; p++)
    for (int q = 0; q < 7; q++)
      I(p, q) = 0.1f * p - 0.05f * q + 0.01f * p * q;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      W(i, j) = 1.0f + 0.1f * i + 0.2f * j;
  dK.setZero();
  dI.setZero();
  Tensor<float, 2> dO = W;
  __enzyme_autodiff((void *)convolve, enzyme_dup, &K, &dK, enzyme_dup, &I, &dI, enzyme_dup, &O, &dO);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      double o = 0;
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
          o += I(i + a, j + b) * K(a, b);
      check_close("the convolution itself", O(i, j), o, 1e-5);
    }
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++) {
      double want = 0;
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
          want += I(i + a, j + b) * W(i, j);
      check_close("dL/dK", dK(a, b), want, 1e-5);
    }
  for (int p = 0; p < 5; p++)
    for (int q = 0; q < 7; q++) {
      double want = 0;
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
          if (p - a >= 0 && p - a < 4 && q - b >= 0 && q - b < 5)
            want += K(a, b) * W(p - a, q - b);
      check_close("dL/dI", dI(p, q), want, 1e-5);
    }
  return check_exit();
}
