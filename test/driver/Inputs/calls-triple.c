/* The program of the driver tests that link C sources or objects: it calls
 * triple() from Inputs/triple.c. */
#include "report.h"

double triple(double x);

int main(void) {
  printf("triple(2) = %g\n", triple(2));
  report_kinase();
  return 0;
}
