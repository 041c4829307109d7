/* cu_check.h: the host side of the self-checking driver-API tests (header
 * only, C11), the counterpart of cuda_check.h for plain C programs that load
 * a module Kinase compiled.
 *
 *   CUmodule m = require_device_module(argv[0]);  cuInit, the first device's primary
 *                                             context, and the PTX at <argv[0]>.ptx
 *                                             (exit 2, "NO CUDA DEVICE: ...", without a GPU)
 *   CUdeviceptr d = to_device_f(x, n);        cuMemAlloc + copy of n host floats
 *   CUdeviceptr d = device_zeros_f(n);        cuMemAlloc of n zeroed floats
 *   from_device_f(x, d, n);                   copy back into the host array x
 *   check_cu(status, "what");                 exit 1, "FAIL: what: <error>", on an error
 *   check_close(got, want, rtol, "f[%d]", i); counts a check; prints the first
 *                                             CHECK_PRINT_MAX failures
 *   return check_exit();                      prints PASS, or how many checks failed
 *
 * The executable finds its PTX next to itself: tools/gpu-bundle.sh and the lit
 * tests build <exe>.ptx from the kernel source the test names.
 */
#ifndef KINASE_TEST_CU_CHECK_H
#define KINASE_TEST_CU_CHECK_H

#include <cuda.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_PRINT_MAX 10

static int check_count_;
static int check_failures_;

static inline void check_cu(CUresult status, const char *what) {
  if (status == CUDA_SUCCESS)
    return;
  const char *message = "unknown error";
  cuGetErrorString(status, &message);
  printf("FAIL: %s: %s\n", what, message);
  exit(1);
}

static inline CUmodule require_device_module(const char *argv0) {
  int count = 0;
  CUresult status = cuInit(0);
  if (status == CUDA_SUCCESS)
    status = cuDeviceGetCount(&count);
  if (status != CUDA_SUCCESS || count < 1) {
    const char *message = "0 devices";
    if (status != CUDA_SUCCESS)
      cuGetErrorString(status, &message);
    printf("NO CUDA DEVICE: %s\n", message ? message : "cuInit failed");
    exit(2);
  }
  CUdevice device;
  CUcontext context;
  check_cu(cuDeviceGet(&device, 0), "cuDeviceGet");
  check_cu(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check_cu(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  char path[4096];
  snprintf(path, sizeof path, "%s.ptx", argv0);
  CUmodule module;
  check_cu(cuModuleLoad(&module, path), path);
  return module;
}

static inline CUdeviceptr to_device_f(const float *x, size_t n) {
  CUdeviceptr d;
  check_cu(cuMemAlloc(&d, n * sizeof(float)), "cuMemAlloc");
  check_cu(cuMemcpyHtoD(d, x, n * sizeof(float)), "copy to device");
  return d;
}

static inline CUdeviceptr device_zeros_f(size_t n) {
  CUdeviceptr d;
  check_cu(cuMemAlloc(&d, n * sizeof(float)), "cuMemAlloc");
  check_cu(cuMemsetD32(d, 0, n), "cuMemsetD32");
  return d;
}

static inline void from_device_f(float *x, CUdeviceptr d, size_t n) {
  check_cu(cuCtxSynchronize(), "kernel run");
  check_cu(cuMemcpyDtoH(x, d, n * sizeof(float)), "copy to host");
}

/* |got - want| <= rtol * max(|want|, 1); NaN never passes. */
static inline __attribute__((format(printf, 4, 5))) int check_close(double got, double want,
                                                                    double rtol, const char *what,
                                                                    ...) {
  check_count_++;
  double tol = rtol * fmax(fabs(want), 1.0);
  if (fabs(got - want) <= tol)
    return 1;
  if (check_failures_++ < CHECK_PRINT_MAX) {
    va_list ap;
    va_start(ap, what);
    printf("FAIL ");
    vprintf(what, ap);
    va_end(ap);
    printf(": got %.17g want %.17g (tolerance %.3g)\n", got, want, tol);
  }
  return 0;
}

static inline int check_exit(void) {
  if (check_failures_ == 0) {
    printf("PASS (%d checks)\n", check_count_);
    return 0;
  }
  printf("FAILED %d of %d checks\n", check_failures_, check_count_);
  return 1;
}

#endif
