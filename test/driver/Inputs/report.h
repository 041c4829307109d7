/* What the driver tests print, from C, C++ or CUDA host code: a derivative
 * (the Kinase pass ran) and the runtime's version (kinase-cc linked its
 * runtime). Checked with
 *   CHECK: d square(3) = 6
 *   CHECK-NEXT: runtime {{.+}}
 * CUDA tests also launch a kernel (the program needs cudart and the device
 * code); without a GPU the launch is skipped.
 */
#include <kinase.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
#endif
    const char *kinase_runtime_version(void);

static double report_square(double x) { return x * x; }

static void report_kinase(void) {
  printf("d square(3) = %g\n", __enzyme_autodiff((void *)report_square, 3.0));
  printf("runtime %s\n", kinase_runtime_version());
}

#ifdef __CUDA__
__global__ void report_scale(double *x) { x[threadIdx.x] *= 2; }

static void launch_kernel(void) {
  double *x = nullptr;
  if (cudaMalloc(&x, sizeof *x) == cudaSuccess) {
    report_scale<<<1, 1>>>(x);
    cudaFree(x);
  }
}
#endif
