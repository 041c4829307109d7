#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorString(r_, &s); printf("%s: %s\n", #x, s); exit(1); } } while (0)
static int cmp(const void *a, const void *b) { float x = *(float *)a, y = *(float *)b; return x < y ? -1 : x > y; }
static float time_kernel(CUfunction f, int n, void **args) {
  CUevent a, b; float t[15];
  CK(cuEventCreate(&a, 0)); CK(cuEventCreate(&b, 0));
  for (int r = 0; r < 15; r++) {
    CK(cuEventRecord(a, 0));
    CK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, 0));
    CK(cuEventRecord(b, 0)); CK(cuEventSynchronize(b)); CK(cuEventElapsedTime(&t[r], a, b));
  }
  qsort(t, 15, sizeof(float), cmp); return t[7];
}
int main(int argc, char **argv) {
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate(&ctx, NULL, 0, dev));
  for (int n = 4096; n <= 16384; n *= 4) {
    size_t bytes = 3 * (size_t)n * 4;
    float *x = malloc(bytes), *ones = malloc(n * 4);
    int side = (int)ceil(cbrt((double)n));
    for (int i = 0; i < n; i++) { ones[i] = 1;
      for (int c = 0; c < 3; c++) { int coord = c == 0 ? i % side : c == 1 ? (i / side) % side : i / (side * side);
        x[3 * i + c] = 0.5f * coord + 0.1f * sinf(1.7f * i + 2.3f * c); } }
    CUdeviceptr dx, ddx, dg, de, dde;
    CK(cuMemAlloc(&dx, bytes)); CK(cuMemAlloc(&ddx, bytes)); CK(cuMemAlloc(&dg, bytes)); CK(cuMemAlloc(&de, n * 4)); CK(cuMemAlloc(&dde, n * 4));
    CK(cuMemcpyHtoD(dx, x, bytes));
    for (int v = 1; v < argc; v++) {
      CUmodule m; CK(cuModuleLoad(&m, argv[v]));
      CUfunction hand, rev; CK(cuModuleGetFunction(&hand, m, "_Z13hand_gradientPfPKfi")); CK(cuModuleGetFunction(&rev, m, "__kinase_krev_nd__Z8energiesPfPKfi"));
      void *hargs[] = {&dg, &dx, &n};
      CUdeviceptr null = 0;
      void *rargs[] = {&de, &dde, &dx, &ddx, &n, &null};
      float th = time_kernel(hand, n, hargs);
      float tr = time_kernel(rev, n, rargs);
      /* correctness: one run from zero with de = 1 */
      CK(cuMemsetD8(ddx, 0, bytes)); CK(cuMemcpyHtoD(dde, ones, n * 4));
      CK(cuLaunchKernel(rev, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, rargs, 0)); CK(cuCtxSynchronize());
      float *g = malloc(bytes), *w = malloc(bytes);
      CK(cuMemcpyDtoH(g, ddx, bytes)); CK(cuLaunchKernel(hand, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, hargs, 0)); CK(cuMemcpyDtoH(w, dg, bytes));
      double worst = 0, scale = 0; for (int k = 0; k < 3 * n; k++) scale = fmax(scale, fabs(w[k]));
      for (int k = 0; k < 3 * n; k++) worst = fmax(worst, fabs(g[k] - w[k]) / scale);
      printf("n=%d %s hand %.3f ms rev %.3f ms ratio %.2fx err %.1e\n", n, argv[v], th, tr, tr / th, worst);
      CK(cuModuleUnload(m)); free(g); free(w);
    }
  }
  return 0;
}
