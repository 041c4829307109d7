// The C++ library's streams, locales and strings carry no derivative:
// writing a differentiated value to std::cout, reading numbers from a
// std::stringstream (constants), building a std::string, inside the
// differentiated function.
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
#include <iostream>
#include <sstream>
#include <string>

#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double f(double x) {
  std::stringstream in("3 0.5");
  double a;
  float b;
  in >> a >> b;
  std::string label = "f(" + std::to_string(a) + ")";
  std::cout << label << " at " << x << " is " << a * x * x * b << std::endl;
  std::cerr << "flushed" << std::flush << '\n';
  return a * x * x * b;
}

int main() {
  check_close("reverse", __enzyme_autodiff((void *)f, 2.0), 3.0 * 0.5 * 2 * 2.0, 1e-15);
  check_close("forward", __enzyme_fwddiff((void *)f, 2.0, 1.0), 3.0 * 0.5 * 2 * 2.0, 1e-15);
  return check_exit();
}
