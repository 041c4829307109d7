// A CUDA program that calls the runtime as generated code would: linked by
// kinase-cc, whose link line has the runtime archive before cudart and the
// driver.
#include "kinase_cuda.h"

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1) // never at run time: only the link matters
    __kinase_copy_reverse(0, 0, 0, 4, 0, 4, "main");
  return 0;
}
