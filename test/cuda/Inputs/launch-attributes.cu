// The kernel of regress-driver-launch-attributes.c: a scale whose factor is
// the number of blocks in the thread block's cluster, which only the launch
// attributes set (1 without a cluster dimension). Its derivative kernels read
// the same register, so a reverse launch made without the launch's cluster
// attribute gives a gradient off by that factor. extern "C": the host looks
// it up by this name.
extern "C" __global__ void scale_by_cluster(float *out, const float *in, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float blocks = (float)__nvvm_read_ptx_sreg_cluster_nctarank();
  if (i < n)
    out[i] = alpha * blocks * in[i];
}
