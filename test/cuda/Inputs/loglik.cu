// The kernels of the driver-API tests (regress-driver-*.c): the seed's
// batched log-likelihood, as the driver-API example has it (loglik), and a
// kernel with an active by-value float (scale). extern "C": the host looks
// them up by these names with cuModuleGetFunction.
#include "../../../examples/hmc-loglik-kernel.cu"

// out[i] = alpha * in[i]: d alpha = sum(dout * in), din = alpha * dout.
extern "C" __global__ void scale(float *out, const float *in, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = alpha * in[i];
}

// A buffer the host reaches with cuModuleGetGlobal
// (regress-driver-module-global.c); no kernel names it.
__device__ float staging[8192];
