/* scale_check.h: the check of a gradient of the driver-API tests' scale
 * kernel (Inputs/loglik.cu), out = alpha * in, for plain C programs with
 * cu_check.h:
 *
 *   check_scale("name", alpha, dalpha, d_out, d_din, in, dout, n);
 *
 * checks what the gradient left: din = alpha dout, d alpha = sum(dout in),
 * and out itself.
 */
#ifndef KINASE_TEST_SCALE_CHECK_H
#define KINASE_TEST_SCALE_CHECK_H

#include <stdlib.h>
#include "cu_check.h"

static inline void check_scale(const char *name, float alpha, double dalpha, CUdeviceptr d_out,
                               CUdeviceptr d_din, const float *in, const float *dout, int n) {
  float *din = malloc((size_t)n * sizeof *din), *out = malloc((size_t)n * sizeof *out);
  if (!din || !out)
    check_cu(CUDA_ERROR_OUT_OF_MEMORY, "host memory");
  double want = 0;
  from_device_f(din, d_din, (size_t)n);
  from_device_f(out, d_out, (size_t)n);
  for (int i = 0; i < n; i++) {
    want += dout[i] * in[i];
    check_close(din[i], alpha * dout[i], 1e-6, "%s: din[%d]", name, i);
    check_close(out[i], alpha * in[i], 1e-6, "%s: out[%d]", name, i);
  }
  check_close(dalpha, want, 1e-4, "%s: d alpha", name);
  free(din);
  free(out);
}

#endif
