// CUDA in a file named .cpp: compiled as CUDA only because cuda-inner.rsp
// says -x "cuda" before it (response-file.cu).
#include "Inputs/report.h"

int main() {
  launch_kernel();
  printf("hello, %s\n", WHO);
  report_kinase();
  return 0;
}
