// The device side of __kinase_copy_reverse (cuda_copy.c): a[i] += b[i] for
// i < n, then b[i] = 0 when zero_b, in a grid-stride loop; float, double,
// half (_Float16, __half's bits) and bfloat16 (__bf16, __nv_bfloat16's). The build compiles
// this file to PTX (for sm_75, which newer GPUs JIT-compile) and embeds the
// text in the runtime (accumulate_ptx.c), which loads it with
// cuLibraryLoadData.

template <class T> __device__ void accumulate(T *a, T *b, size_t n, int zero_b) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    a[i] += b[i];
    if (zero_b)
      b[i] = 0;
  }
}

extern "C" __global__ void kinase_accumulate_f32(float *a, float *b, size_t n, int zero_b) {
  accumulate(a, b, n, zero_b);
}

extern "C" __global__ void kinase_accumulate_f64(double *a, double *b, size_t n, int zero_b) {
  accumulate(a, b, n, zero_b);
}

extern "C" __global__ void kinase_accumulate_f16(_Float16 *a, _Float16 *b, size_t n, int zero_b) {
  accumulate(a, b, n, zero_b);
}

extern "C" __global__ void kinase_accumulate_bf16(__bf16 *a, __bf16 *b, size_t n, int zero_b) {
  accumulate(a, b, n, zero_b);
}
