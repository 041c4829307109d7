// A library object on the heap inside a differentiated function (as
// Enzyme's fbuff.cpp has it): `new std::filebuf` and `new std::ostringstream`,
// used only through the library's members and deleted through their virtual
// destructors. Their memory never holds a derivative, so it has no shadow,
// and the virtual destructor (the library's, not in the translation unit)
// is called with no shadow argument: before, it stopped the derivative at
// run time ("reached an indirect call to a function that was not visible").
//
// The other side: heap memory that a function of the module writes through
// a function pointer (not a virtual function of the object) still has a
// shadow, so its derivative is not lost.
// RUN: %check-c %s %t -std=c++17
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// (3 x)^2, written to a file buffer and a string stream on the way
static double logged_square(double x) {
  std::filebuf *buffer = new std::filebuf();
  buffer->open("library-object-heap.tmp", std::ios::out | std::ios::trunc);
  double y = 3 * x;
  const char text[] = "y computed\n";
  buffer->sputn(text, sizeof text - 1);
  buffer->close();
  delete buffer; // virtual: the library's deleting destructor
  std::ostringstream *log = new std::ostringstream();
  *log << "done";
  delete log;
  return y * y;
}

// x^3 through a heap buffer filled by a function called through a pointer
static void fill_cube(double *out, double x) { *out = x * x * x; }
static void fill_square(double *out, double x) { *out = x * x; }
static void (*volatile filler)(double *, double) = fill_cube;

static double through_pointer(double x) {
  double *cell = (double *)malloc(sizeof *cell);
  filler(cell, x);
  double y = *cell;
  free(cell);
  return y;
}

int main() {
  (void)fill_square;
  const double x = 1.5;
  check_close("reverse, library objects", __enzyme_autodiff((void *)logged_square, x), 18 * x, 1e-14);
  check_close("forward, library objects", __enzyme_fwddiff((void *)logged_square, x, 1.0), 18 * x, 1e-14);
  check_close("reverse, written through a pointer", __enzyme_autodiff((void *)through_pointer, x), 3 * x * x,
              1e-14);
  check_close("forward, written through a pointer", __enzyme_fwddiff((void *)through_pointer, x, 1.0),
              3 * x * x, 1e-14);
  std::remove("library-object-heap.tmp");
  return check_exit();
}
