// The kernels of host-driver-offsets.c: y = alpha x^2, and a weighted sum
// into a scalar with atomicAdd.
extern "C" __global__ void sq_scale(float *y, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] * x[i];
}
extern "C" __global__ void dot_w(float *acc, const float *y, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(acc, y[i] * w[i]);
}
