// A 2-D stencil on a 2-D grid: each 16x16 block loads its tile and a halo of
// one cell into __shared__ memory, waits at __syncthreads, and writes a
// 5-point stencil of the squares of its tile. Differentiated through the host
// function that launches it, reverse and forward mode; a grid-stride loop
// over a 1-D launch beside it. Against analytic gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep -E "kwhy__Z[0-9]+(stencil|strided)" %t.O0.ptx %t.ptx
// RUN: not grep malloc %t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { TILE = 16, W = 70, H = 45 };

static __host__ __device__ int clampi(int v, int hi) { return v < 0 ? 0 : v >= hi ? hi - 1 : v; }

__global__ void stencil(double *out, const double *u, int w, int h) {
  __shared__ double tile[TILE + 2][TILE + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
  int cx = clampi(x, w), cy = clampi(y, h);
  double v = u[cy * w + cx];
  tile[ty + 1][tx + 1] = v * v;
  if (tx == 0)
    tile[ty + 1][0] = u[cy * w + clampi(x - 1, w)] * u[cy * w + clampi(x - 1, w)];
  if (tx == TILE - 1)
    tile[ty + 1][TILE + 1] = u[cy * w + clampi(x + 1, w)] * u[cy * w + clampi(x + 1, w)];
  if (ty == 0)
    tile[0][tx + 1] = u[clampi(y - 1, h) * w + cx] * u[clampi(y - 1, h) * w + cx];
  if (ty == TILE - 1)
    tile[TILE + 1][tx + 1] = u[clampi(y + 1, h) * w + cx] * u[clampi(y + 1, h) * w + cx];
  __syncthreads();
  if (x < w && y < h)
    out[y * w + x] = 4.0 * tile[ty + 1][tx + 1] - tile[ty][tx + 1] - tile[ty + 2][tx + 1] -
                     tile[ty + 1][tx] - tile[ty + 1][tx + 2];
}

__global__ void strided(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * sinf(x[i]);
}

void laplacian(double *out, const double *u, int w, int h) {
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE), block(TILE, TILE);
  stencil<<<grid, block>>>(out, u, w, h);
}

void sines(float *y, const float *x, float a, int n) { strided<<<3, 64>>>(y, x, a, n); }

/* The host stencil, for the reference gradient: out = L(u^2) with clamped
 * borders. */
static int at(int x, int y) { return clampi(y, H) * W + clampi(x, W); }

int main(void) {
  require_device();
  std::vector<double> u(W * H), seed(W * H), tu(W * H);
  for (int i = 0; i < W * H; i++) {
    u[i] = 0.5 + 0.3 * sin(0.07 * i);
    seed[i] = 1.0 + 0.01 * (i % 19);
    tu[i] = cos(0.03 * i);
  }
  double *d_u = to_device(u), *d_du = device_alloc<double>(W * H), *d_out = device_alloc<double>(W * H);
  double *d_seed = to_device(seed), *d_tu = to_device(tu), *d_dir = device_alloc<double>(W * H);
  check_cuda(cudaMemset(d_du, 0, W * H * sizeof(double)), "memset");
  __enzyme_autodiff((void *)laplacian, enzyme_dupnoneed, d_out, d_seed, enzyme_dup, d_u, d_du, W, H);
  check_kernel("gradient of laplacian");
  std::vector<double> du(W * H), want(W * H, 0.0);
  from_device(du, d_du);
  /* d out[y][x] / d u[c] = 2 u[c] * (4 [c = (x,y)] - [c = each clamped neighbour]) */
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double s = seed[y * W + x];
      want[at(x, y)] += 8.0 * u[at(x, y)] * s;
      int nx[4] = {x, x, x - 1, x + 1}, ny[4] = {y - 1, y + 1, y, y};
      for (int k = 0; k < 4; k++)
        want[at(nx[k], ny[k])] -= 2.0 * u[at(nx[k], ny[k])] * s;
    }
  for (int i = 0; i < W * H; i++)
    check_close(du[i], want[i], 1e-12, "d laplacian / du[%d]", i);

  __enzyme_fwddiff((void *)laplacian, enzyme_dup, d_out, d_dir, enzyme_dup, d_u, d_tu, W, H);
  check_kernel("tangent of laplacian");
  std::vector<double> dir(W * H);
  from_device(dir, d_dir);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double t = 8.0 * u[at(x, y)] * tu[at(x, y)];
      int nx[4] = {x, x, x - 1, x + 1}, ny[4] = {y - 1, y + 1, y, y};
      for (int k = 0; k < 4; k++)
        t -= 2.0 * u[at(nx[k], ny[k])] * tu[at(nx[k], ny[k])];
      check_close(dir[y * W + x], t, 1e-12, "tangent of laplacian[%d][%d]", y, x);
    }

  /* Grid-stride loop: 192 threads over 1000 elements; a is active. */
  enum { N = 1000 };
  std::vector<float> xs(N), ys(N, 1.0f);
  for (int i = 0; i < N; i++)
    xs[i] = 0.01f * i - 3.0f;
  float *d_x = to_device(xs), *d_dx = device_alloc<float>(N), *d_y = device_alloc<float>(N);
  float *d_dy = to_device(ys);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  float a = 1.5f;
  float da = __enzyme_autodiff((void *)sines, enzyme_dup, d_y, d_dy, enzyme_dup, d_x, d_dx, a, N);
  check_kernel("gradient of sines");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  double want_da = 0;
  for (int i = 0; i < N; i++) {
    check_close(dx[i], a * cos((double)xs[i]), 1e-5, "d sines / dx[%d]", i);
    want_da += sin((double)xs[i]);
  }
  check_close(da, want_da, 1e-4, "d sines / da");
  device_free_all();
  return check_exit();
}
