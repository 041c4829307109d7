// Pitched 2-D arrays in differentiated host code, the way CUDA programs
// keep images and matrices with padded rows:
//  - energy: cudaMallocPitch for input and output, cudaMemcpy2D of a packed
//    host array into the pitched input, a 2-D grid kernel indexing rows by
//    pitch, cudaMemcpy2D of the pitched output back into a packed host
//    array, a weighted sum on the host; gradient with respect to the host
//    input (analytic) and the scale (analytic), and in forward mode;
//  - smooth: on a stream, cudaMemset2DAsync of a wider pitched array,
//    cudaMemcpy2DAsync of packed device data into its columns 1..w
//    (device to device: the element type comes from the kernel), a
//    three-point kernel into another pitched array, cudaMemcpy2DAsync back
//    to the host, sum of sines; gradient with respect to the device data
//    (central differences of a double reference), both modes.
// Only the rows are copied: the padding between them is never read, and
// the reverse of a copy adds and zeroes rows, never the padding.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=O0 --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The shadow of a pitched allocation is pitch * height bytes, the pitch
// read back after the call:
// O0-LABEL: define internal {{.*}}@__kinase_aug__Z6energyPKffii(
// O0: {{call|invoke}} i32 @cudaMallocPitch(ptr {{.*}}, ptr noundef nonnull [[PSLOT:%[0-9]+]], i64 noundef %{{[0-9]+}}, i64 noundef [[HEIGHT:%[0-9]+]])
// O0: [[PITCH:%[0-9]+]] = load i64, ptr [[PSLOT]]
// O0-NEXT: [[SPAN:%[0-9]+]] = mul i64 [[PITCH]], [[HEIGHT]]
// O0-NEXT: call ptr @__kinase_shadow_alloc(i64 [[SPAN]], i32 0,
// The reverse of a 2-D copy adds rows of floats (i32 4: the host reads
// them as floats), or of the type the kernels launched with the memory tell
// (i32 0: the host never reads it as numbers); a pitched set's reverse only
// zeroes rows (null source).
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call void @__kinase_copy2d_reverse(ptr {{.*}}, i32 1, ptr {{.*}}, i32 0,
// CHECK-DAG: call void @__kinase_copy2d_reverse(ptr {{.*}}, i32 2, ptr {{.*}}, i32 4,
// CHECK-DAG: call void @__kinase_copy2d_reverse(ptr {{.*}}, i32 3, ptr {{.*}}, i32 0,
// CHECK-DAG: call void @__kinase_copy2d_reverse(ptr null, i64 0, ptr {{.*}}, i32 4, ptr
// CHECK-DAG: call void @__kinase_before_write(
// The pitches (size_t) are Const in the launch's activity, the scale active:
// CHECK-DAG: c"dcdcocc\00"
// Forward mode copies the tangents' rows with the same call, into the
// tangent of the same pitch:
// O0-LABEL: define internal float @__kinase_fwd__Z6energyPKffii(ptr %0, ptr %1,
// O0: call i32 @cudaMemcpy2D(ptr noundef %{{[0-9]+}}, i64 noundef [[DPITCH:%[0-9]+]], ptr noundef %0, i64
// O0-NEXT: call i32 @cudaMemcpy2D(ptr noundef %{{[0-9]+}}, i64 noundef [[DPITCH]], ptr noundef %1, i64

#include <kinase.h>
#include <math.h>
#include <stdlib.h>
#include <vector>
#include "cuda_check.h"

enum { W = 37, H = 11 }; // rows of 148 bytes: padded to the device's pitch

static float weight(int x, int y) { return 0.5f + 0.01f * (float)((3 * x + 7 * y) % 13); }

// out[y][x] = scale * in[y][x]^2 + in[y][x-1]
__global__ void square_rows(float *out, size_t out_pitch, const float *in, size_t in_pitch,
                            float scale, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float *row = (const float *)((const char *)in + y * in_pitch);
  float *out_row = (float *)((char *)out + y * out_pitch);
  out_row[x] = scale * row[x] * row[x] + (x > 0 ? row[x - 1] : 0.0f);
}

float energy(const float *h_in, float scale, int w, int h) {
  float *d_in, *d_out;
  size_t in_pitch, out_pitch, row = w * sizeof(float);
  cudaMallocPitch((void **)&d_in, &in_pitch, row, h);
  cudaMallocPitch((void **)&d_out, &out_pitch, row, h);
  cudaMemcpy2D(d_in, in_pitch, h_in, row, row, h, cudaMemcpyHostToDevice);
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  square_rows<<<grid, block>>>(d_out, out_pitch, d_in, in_pitch, scale, w, h);
  float *h_out = (float *)malloc(row * h);
  cudaMemcpy2D(h_out, row, d_out, out_pitch, row, h, cudaMemcpyDeviceToHost);
  float e = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      e += weight(x, y) * h_out[y * w + x];
  free(h_out);
  cudaFree(d_in);
  cudaFree(d_out);
  return e;
}

// b[y][x] = a[y][x] + 0.5 a[y][x+1] + 0.25 a[y][x+2] over a padded row a
__global__ void smooth_rows(float *b, size_t b_pitch, const float *a, size_t a_pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float *row = (const float *)((const char *)a + y * a_pitch);
  ((float *)((char *)b + y * b_pitch))[x] = row[x] + 0.5f * row[x + 1] + 0.25f * row[x + 2];
}

float smooth(const float *d_src, int w, int h) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *d_a, *d_b;
  size_t a_pitch, b_pitch, row = w * sizeof(float);
  cudaMallocPitch((void **)&d_a, &a_pitch, row + 2 * sizeof(float), h);
  cudaMallocPitch((void **)&d_b, &b_pitch, row, h);
  cudaMemset2DAsync(d_a, a_pitch, 0, row + 2 * sizeof(float), h, s);
  cudaMemcpy2DAsync(d_a + 1, a_pitch, d_src, row, row, h, cudaMemcpyDeviceToDevice, s);
  dim3 block(32, 4), grid((w + 31) / 32, (h + 3) / 4);
  smooth_rows<<<grid, block, 0, s>>>(d_b, b_pitch, d_a, a_pitch, w, h);
  std::vector<float> out(w * h);
  cudaMemcpy2DAsync(out.data(), row, d_b, b_pitch, row, h, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float total = 0;
  for (int i = 0; i < w * h; i++)
    total += sinf(out[i]);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaStreamDestroy(s);
  return total;
}

static double smooth_reference(const std::vector<double> &src, int w, int h) {
  double total = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      auto a = [&](int c) { return c >= 1 && c <= w ? src[y * w + c - 1] : 0.0; };
      total += sin(a(x) + 0.5 * a(x + 1) + 0.25 * a(x + 2));
    }
  return total;
}

int main() {
  require_device();
  const int n = W * H;
  std::vector<float> in(n), din(n, 0.0f), v(n);
  for (int i = 0; i < n; i++) {
    in[i] = 0.3f + 0.7f * sinf(0.37f * i);
    v[i] = cosf(0.11f * i);
  }
  const float scale = 1.25f;

  // energy: reverse mode
  float dscale = __enzyme_autodiff((void *)energy, enzyme_dup, in.data(), din.data(), enzyme_out,
                                   scale, enzyme_const, W, enzyme_const, H);
  check_kernel("gradient of energy");
  double want_dscale = 0, directional = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      double g = weight(x, y) * 2.0 * scale * in[i] + (x + 1 < W ? weight(x + 1, y) : 0.0);
      check_close(din[i], g, 1e-5, "energy: d in[%d][%d]", y, x);
      want_dscale += weight(x, y) * (double)in[i] * in[i];
      directional += g * v[i];
    }
  check_close(dscale, want_dscale, 1e-4, "energy: d scale");

  // energy: forward mode, tangent v of the input and 1 of the scale
  float tangent = __enzyme_fwddiff((void *)energy, enzyme_dup, in.data(), v.data(), enzyme_dup,
                                   scale, 1.0f, enzyme_const, W, enzyme_const, H);
  check_kernel("tangent of energy");
  check_close(tangent, directional + want_dscale, 1e-4, "energy: forward mode");

  // smooth: device data, reverse and forward mode
  std::vector<double> src(n);
  for (int i = 0; i < n; i++)
    src[i] = in[i];
  float *d_src = to_device(in), *d_dsrc = device_alloc<float>(n), *d_v = to_device(v);
  check_cuda(cudaMemset(d_dsrc, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)smooth, enzyme_dup, d_src, d_dsrc, enzyme_const, W, enzyme_const, H);
  check_kernel("gradient of smooth");
  std::vector<float> dsrc(n);
  from_device(dsrc, d_dsrc);
  double h = 1e-5;
  directional = 0;
  for (int i = 0; i < n; i++) {
    std::vector<double> up = src, down = src;
    up[i] += h;
    down[i] -= h;
    double fd = (smooth_reference(up, W, H) - smooth_reference(down, W, H)) / (2 * h);
    check_close(dsrc[i], fd, 1e-4, "smooth: d src[%d]", i);
    directional += fd * v[i];
  }
  float smooth_tangent = __enzyme_fwddiff((void *)smooth, enzyme_dup, d_src, d_v, enzyme_const, W,
                                          enzyme_const, H);
  check_kernel("tangent of smooth");
  check_close(smooth_tangent, directional, 1e-4, "smooth: forward mode");
  // the primal ran too, and left its input alone
  check_close(smooth(d_src, W, H), smooth_reference(src, W, H), 1e-5, "smooth: value");
  std::vector<float> after(n);
  from_device(after, d_src);
  for (int i = 0; i < n; i++)
    check_close(after[i], in[i], 0, "smooth: input kept[%d]", i);
  device_free_all();
  return check_exit();
}
