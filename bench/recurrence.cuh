// The recurrence kernel of bench/cuda-recurrence.cu, also run by
// test/cuda/regress-tape-arena.cu: each thread carries s in registers
// (s = sin(s) x + c[k]), so a reverse sweep needs every s it passed.
#ifndef KINASE_BENCH_RECURRENCE_CUH
#define KINASE_BENCH_RECURRENCE_CUH

enum { RECUR_BLOCK = 256 };

__global__ void recur(float *out, const float *xs, const float *coef, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  float x = xs[i], s = 0.f;
  for (int k = 0; k < n; k++)
    s = sinf(s) * x + coef[k];
  out[i] = s;
}

void run(float *out, const float *xs, const float *coef, int n, int b) {
  recur<<<(b + RECUR_BLOCK - 1) / RECUR_BLOCK, RECUR_BLOCK>>>(out, xs, coef, n, b);
}

#endif
