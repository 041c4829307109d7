// The program of the driver tests that link CUDA with C: it launches a kernel
// and calls triple() from Inputs/triple.c, a C function.
#include "report.h"

extern "C" double triple(double x);

int main() {
  launch_kernel();
  printf("triple(2) = %g\n", triple(2));
  report_kinase();
  return 0;
}
