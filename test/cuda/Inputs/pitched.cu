// The kernel of host-driver-pitched-2d.c: rows of a pitched array, indexed
// by pitch in bytes. out[y][x] = alpha * in[y][x]^2.
extern "C" __global__ void square_pitched(float *out, size_t out_pitch, const float *in,
                                          size_t in_pitch, float alpha, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float v = ((const float *)((const char *)in + y * in_pitch))[x];
  ((float *)((char *)out + y * out_pitch))[x] = alpha * v * v;
}
