// cudaLaunchKernel called directly with 2-D dim3 grid and block (each dim3
// two operands in the IR) and an argument array: out[r][c] = in[r][c] *
// rowscale[r] * alpha, with in, rowscale and alpha all active: din, the
// row scales' adjoints (summed over the rows' threads) and d alpha.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_launch_augment(ptr {{.*}}scale_rows
// CHECK-DAG: call void @__kinase_driver_launch_reverse(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

// A 2-D grid: out[r][c] = in[r][c] * rowscale[r] * alpha
__global__ void scale_rows(float *out, const float *in, const float *rowscale, float alpha,
                           int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[r * cols + c] = in[r * cols + c] * rowscale[r] * alpha;
}

// cudaLaunchKernel called directly, with dim3 grid and block in 2-D.
void scale_matrix(float *out, const float *in, const float *rowscale, float alpha, int rows,
                  int cols) {
  dim3 block(16, 8), grid((cols + 15) / 16, (rows + 7) / 8);
  void *args[] = {&out, &in, &rowscale, &alpha, &rows, &cols};
  cudaLaunchKernel((const void *)scale_rows, grid, block, args, 0, nullptr);
}

int main() {
  require_device();
  const int rows = 37, cols = 53, n = rows * cols;
  const float alpha = 1.25f;
  std::vector<float> in(n), rs(rows), dout(n);
  for (int i = 0; i < n; i++) {
    in[i] = 0.01f * (i % 23) - 0.1f;
    dout[i] = 1.0f + 0.5f * (i % 3);
  }
  for (int r = 0; r < rows; r++)
    rs[r] = 0.5f + 0.05f * r;
  float *d_in = to_device(in), *d_rs = to_device(rs), *d_out = device_alloc<float>(n);
  float *d_dout = to_device(dout), *d_din = device_alloc<float>(n), *d_drs = device_alloc<float>(rows);
  check_cuda(cudaMemset(d_din, 0, n * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_drs, 0, rows * sizeof(float)), "memset");
  double dalpha = __enzyme_autodiff((void *)scale_matrix, enzyme_dup, d_out, d_dout, enzyme_dup,
                                    d_in, d_din, enzyme_dup, d_rs, d_drs, enzyme_out, alpha,
                                    enzyme_const, rows, enzyme_const, cols);
  check_kernel("gradient of scale_matrix");
  std::vector<float> din(n), drs(rows), out(n);
  from_device(din, d_din);
  from_device(drs, d_drs);
  from_device(out, d_out);
  double want_alpha = 0;
  std::vector<double> want_rs(rows, 0.0);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      int i = r * cols + c;
      check_close(out[i], in[i] * rs[r] * alpha, 1e-6, "out[%d][%d]", r, c);
      check_close(din[i], dout[i] * rs[r] * alpha, 1e-6, "din[%d][%d]", r, c);
      want_rs[r] += dout[i] * in[i] * alpha;
      want_alpha += dout[i] * in[i] * rs[r];
    }
  for (int r = 0; r < rows; r++)
    check_close(drs[r], want_rs[r], 1e-4, "drowscale[%d]", r);
  check_close(dalpha, want_alpha, 1e-4, "d alpha");
  return check_exit();
}
