/* The log-likelihood kernel of examples/hmc-loglik-driver.c, compiled on its
 * own to PTX for the CUDA driver API:
 *
 *   build/bin/kinase-cc -O2 --cuda-device-only -S examples/hmc-loglik-kernel.cu \
 *       -o hmc-loglik-kernel.ptx
 *
 * Kinase puts the kernel's derivative kernels and their facts into the same
 * PTX, where the runtime finds them by name when the host differentiates a
 * launch of it. extern "C" keeps the name the host asks
 * cuModuleGetFunction for. */
extern "C" __global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  const float *t = th + 4 * i;
  float mu1 = t[0], mu2 = t[1], s1 = t[2], s2 = t[3];
  float is1 = 1.f / s1, is2 = 1.f / s2, q = 0.f;
  for (int k = 0; k < n; k++) {
    float d1 = (x[2 * k] - mu1) * is1, d2 = (x[2 * k + 1] - mu2) * is2;
    q += d1 * d1 + d2 * d2;
  }
  logL[i] = -0.5f * q - n * (logf(s1) + logf(s2));
}
