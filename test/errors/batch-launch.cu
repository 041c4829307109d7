// Batch mode through a kernel launch: the forward kernel runs the kernel
// too, so W lanes would run it W times. A located error, not W launches.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_width, enzyme_dup;
extern void __enzyme_fwddiff(void *, ...);

__global__ void square(double *x, double *y) { y[threadIdx.x] = x[threadIdx.x] * x[threadIdx.x]; }

__attribute__((noinline)) void host(double *x, double *y) {
  // CHECK: {{.*}}batch-launch.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'host(double*, double*)': batch mode (enzyme_width) is not supported here: it launches a kernel, whose forward kernel would run once per lane
  square<<<1, 4>>>(x, y);
}

void run(double *x, double *dx0, double *dx1, double *y, double *dy0, double *dy1) {
  __enzyme_fwddiff((void *)host, enzyme_width, 2, enzyme_dup, x, dx0, dx1, enzyme_dup, y, dy0, dy1);
}
// CHECK: 1 error generated
