/* mlp_kernels.cuh: the two layers of the MLP tests (host-mlp-device-buffers.cu
 * through <<<>>>, host-driver-mlp-stream.c through Inputs/mlp.cu and
 * cuLaunchKernel), extern "C" so that the driver finds them by name. */
#ifndef KINASE_TEST_MLP_KERNELS_CUH
#define KINASE_TEST_MLP_KERNELS_CUH

// h[b][j] = tanh(bias[j] + sum_i W[j][i] x[b][i])
extern "C" __global__ void dense_tanh(float *h, const float *x, const float *W, const float *bias,
                                      int batch, int in, int out) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= batch * out)
    return;
  int b = idx / out, j = idx % out;
  float s = bias[j];
  for (int i = 0; i < in; i++)
    s += W[j * in + i] * x[b * in + i];
  h[idx] = tanhf(s);
}

// y[b] = sum_j v[j] h[b][j]
extern "C" __global__ void dense_out(float *y, const float *h, const float *v, int batch, int hid) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch)
    return;
  float s = 0;
  for (int j = 0; j < hid; j++)
    s += v[j] * h[b * hid + j];
  y[b] = s;
}

#endif
