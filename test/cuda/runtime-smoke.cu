// The CUDA host runtime (runtime/kinase_cuda.h) on a GPU, without the
// compiler: kernels with hand-written derivative kernels and kernel info,
// named and laid out as kinase_cuda.h says, and the runtime's entry points
// called directly. Checks against analytic values: launches (augment,
// reverse, tangent; a skipped primal; Const shadows; float and double
// adjoints; argument slots gone by the reverse sweep), snapshots (an in-place
// kernel, a later launch, __kinase_before_write on another stream), the
// reverse of copies in every direction, shadow allocations, and the messages
// of kernels without derivatives (in child processes).
//
// Built with plain clang++, not kinase-cc: its own __kinase_* kernels must
// not meet the compiler's. tools/gpu-bundle.sh builds it so for this line:
// GPU-BUILD: clang++
//
// REQUIRES: cuda
// RUN: %clangxx -x cuda --cuda-path=%cuda-root --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version -O2 -Wall -Werror %cudainc %runtimeinc %s -x none %kinase-rt %cuda-link -o %t.exe
// RUN: llvm-nm %t.exe | FileCheck %s
// CHECK: T __kinase_launch_augment

#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_check.h"
#include "kinase_cuda.h"

enum { N = 1000, THREADS = 128 };
static const char WHERE[] = "runtime_smoke";
static const uint32_t GRID[3] = {(N + THREADS - 1) / THREADS, 1, 1}, BLOCK[3] = {THREADS, 1, 1};

#define PTR(access) (KINASE_PARAM_POINTER | (access) | 8u)
#define R KINASE_PARAM_READ
#define W KINASE_PARAM_WRITTEN
#define FLT(bytes) (KINASE_PARAM_FLOAT | (bytes))

// Set by a derivative kernel given an argument kinase_cuda.h rules out.
__device__ int contract_broken;

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// ---- y[i] = a x[i]^2 ----

extern "C" __global__ void scale(float *y, const float *x, float a, int n) {
  int i = thread_index();
  if (i < n)
    y[i] = a * x[i] * x[i];
}
extern "C" __device__ uint32_t __kinase_kinfo_scale[] = {KINASE_KERNEL_INFO_MAGIC, 4, 0, PTR(W),
                                                         PTR(R), FLT(4), 4};

// Reverse kernels store no primal results into written pointers ('n'): the
// primal launch did, or they are not needed.
extern "C" __global__ void __kinase_krev_nd_scale(float *y, float *dy, const float *x, float *dx,
                                                  float a, float *da, int n) {
  int i = thread_index();
  if (i >= n)
    return;
  float xi = x[i], g = dy[i];
  dy[i] = 0;
  dx[i] += 2 * a * xi * g;
  if (da)
    atomicAdd(da, xi * xi * g);
}

// x Const: its shadow must be NULL.
extern "C" __global__ void __kinase_krev_nc_scale(float *y, float *dy, const float *x,
                                                  float *dx, float a, float *da, int n) {
  int i = thread_index();
  if (dx)
    contract_broken = 1;
  if (i >= n)
    return;
  float xi = x[i], g = dy[i];
  dy[i] = 0;
  if (da)
    atomicAdd(da, xi * xi * g);
}

extern "C" __global__ void __kinase_kfwd_dd_scale(float *y, float *dy, const float *x,
                                                  const float *dx, float a, float da, int n) {
  int i = thread_index();
  if (i >= n)
    return;
  float xi = x[i];
  y[i] = a * xi * xi;
  dy[i] = da * xi * xi + 2 * a * xi * dx[i];
}

// ---- y[i] = b x[i], in double ----

extern "C" __global__ void dscale(double *y, const double *x, double b, int n) {
  int i = thread_index();
  if (i < n)
    y[i] = b * x[i];
}
extern "C" __device__ uint32_t __kinase_kinfo_dscale[] = {KINASE_KERNEL_INFO_MAGIC, 4, 0, PTR(W),
                                                          PTR(R), FLT(8), 4};

extern "C" __global__ void __kinase_krev_nd_dscale(double *y, double *dy, const double *x,
                                                   double *dx, double b, double *db, int n) {
  int i = thread_index();
  if (i >= n)
    return;
  double g = dy[i];
  dy[i] = 0;
  dx[i] += b * g;
  if (db)
    atomicAdd(db, x[i] * g);
}

extern "C" __global__ void __kinase_kfwd_dd_dscale(double *y, double *dy, const double *x,
                                                   const double *dx, double b, double db, int n) {
  int i = thread_index();
  if (i >= n)
    return;
  y[i] = b * x[i];
  dy[i] = db * x[i] + b * dx[i];
}

// ---- v[i] = v[i]^2, in place: its reverse needs the v it read ----

extern "C" __global__ void square(float *v, int n) {
  int i = thread_index();
  if (i < n)
    v[i] = v[i] * v[i];
}
extern "C" __device__ uint32_t __kinase_kinfo_square[] = {KINASE_KERNEL_INFO_MAGIC, 2, 0,
                                                          PTR(R | W), 4};

// 'n', as every written pointer; the kernel reads what it overwrites, so
// it stores it again (into the snapshot the runtime passes), as Kinase's do.
extern "C" __global__ void __kinase_krev_n_square(float *v, float *dv, int n) {
  int i = thread_index();
  if (i >= n)
    return;
  float vi = v[i];
  v[i] = vi * vi;
  dv[i] *= 2 * vi;
}

// ---- kernels without derivatives ----

extern "C" __global__ void plain(float *y, int n) {
  int i = thread_index();
  if (i < n)
    y[i] = 1;
}

extern "C" __global__ void opaque(float *y, int n) {
  int i = thread_index();
  if (i < n)
    y[i] = 2;
}
extern "C" __device__ uint32_t __kinase_kinfo_opaque[] = {KINASE_KERNEL_INFO_MAGIC, 2, 0, PTR(W),
                                                          4};
extern "C" __device__ char __kinase_kwhy_opaque[] = "it calls printf";

// ---- host helpers ----

static float x0[N], w[N], u[N], v[N];

static void init_inputs(void) {
  for (int i = 0; i < N; i++) {
    x0[i] = 0.5f + (float)i / N;
    w[i] = 1.0f + 0.25f * (i % 7);
    u[i] = 0.5f - 0.125f * (i % 5);
    v[i] = 0.25f * (i % 3) - 0.25f;
  }
}

template <class T> static T *device_copy(const T (&host)[N]) { return to_device(host); }

template <class T> static T *device_filled(T value) {
  static T host[N];
  for (int i = 0; i < N; i++)
    host[i] = value;
  return to_device(host);
}

template <class T> static void fetch(T (&host)[N], const T *dev) {
  check_cuda(cudaDeviceSynchronize(), "run");
  from_device(host, dev);
}

static void check_contract(const char *section) {
  int broken = 0;
  check_cuda(cudaMemcpyFromSymbol(&broken, contract_broken, sizeof broken), "read flag");
  check_within(broken, 0, 0, "%s: a derivative kernel got an argument the contract rules out",
               section);
  broken = 0;
  check_cuda(cudaMemcpyToSymbol(contract_broken, &broken, sizeof broken), "clear flag");
}

// ---- sections ----

// Forward and reverse sweep of scale; the caller's argument slots are spoilt
// between them (the record must hold copies).
static void reverse_scale(const char *modes, bool skipped) {
  float a = 1.5f;
  int n = N;
  float *x = device_copy(x0), *y = device_filled(-7.0f), *dy = device_copy(w),
        *dx = device_filled(0.25f);
  void *px = x, *py = y, *pdx = dx, *pdy = dy;
  void *args[] = {&py, &px, &a, &n}, *shadows[] = {&pdy, &pdx, NULL, NULL};
  KinaseLaunch *l =
      __kinase_launch_augment((const void *)scale, GRID, BLOCK, 0, NULL, args, shadows, modes, WHERE);
  static float got[N];
  fetch(got, y);
  for (int i = 0; i < N; i++)
    check_close(got[i], skipped ? -7.0 : 1.5 * x0[i] * x0[i], 1e-6, "%s: y[%d]", modes, i);

  a = -100;
  n = 0;
  px = py = pdx = pdy = NULL;
  float da = -1;
  void *adjoints[] = {NULL, NULL, &da, NULL};
  __kinase_launch_reverse(l, adjoints);
  double want_da = 0;
  fetch(got, dx);
  for (int i = 0; i < N; i++) {
    check_close(got[i], 0.25 + 2 * 1.5 * x0[i] * w[i], 1e-5, "%s: dx[%d]", modes, i);
    want_da += (double)x0[i] * x0[i] * w[i];
  }
  fetch(got, dy);
  for (int i = 0; i < N; i++)
    check_within(got[i], 0, 0, "%s: dy[%d] after the reverse sweep", modes, i);
  check_close(da, want_da, 1e-5, "%s: da", modes);
}

static void section_reverse(void) { reverse_scale("ddoc", false); }
static void section_skipped(void) { reverse_scale("ndoc", true); }

// x Const, by its mode or by a NULL shadow: the nc kernel, no adjoint of x,
// and no adjoint of a wanted (adjoints NULL).
static void section_const_shadow(void) {
  const char *const modes[] = {"dcoc", "ddoc"};
  for (int m = 0; m < 2; m++) {
    float a = 1.5f;
    int n = N;
    float *x = device_copy(x0), *y = device_filled(0.0f), *dy = device_copy(w);
    void *px = x, *py = y, *pdy = dy, *pdx = NULL;
    void *args[] = {&py, &px, &a, &n}, *shadows[] = {&pdy, m ? &pdx : NULL, NULL, NULL};
    KinaseLaunch *l = __kinase_launch_augment((const void *)scale, GRID, BLOCK, 0, NULL, args,
                                              shadows, modes[m], WHERE);
    __kinase_launch_reverse(l, NULL);
    static float got[N];
    fetch(got, dy);
    for (int i = 0; i < N; i++)
      check_within(got[i], 0, 0, "%s: dy[%d]", modes[m], i);
    check_contract(modes[m]);
    device_free_all();
  }
}

// y, which the kernel writes, Const (mode c, or a NULL shadow): its
// derivative kernels still take a shadow, a zeroed scratch one, and x gets
// no adjoint since nothing seeds y.
static void section_scratch_shadow(void) {
  const char *const modes[] = {"cdoc", "ddoc"};
  for (int m = 0; m < 2; m++) {
    float a = 1.5f;
    int n = N;
    float *x = device_copy(x0), *y = device_filled(0.0f), *dx = device_filled(0.0f);
    void *px = x, *py = y, *pdx = dx, *pnull = NULL;
    void *args[] = {&py, &px, &a, &n}, *shadows[] = {m ? &pnull : NULL, &pdx, NULL, NULL};
    KinaseLaunch *l = __kinase_launch_augment((const void *)scale, GRID, BLOCK, 0, NULL, args,
                                              shadows, modes[m], WHERE);
    __kinase_launch_reverse(l, NULL);
    static float got[N];
    fetch(got, dx);
    for (int i = 0; i < N; i++)
      check_within(got[i], 0, 0, "%s: dx[%d]", modes[m], i);
    fetch(got, y);
    for (int i = 0; i < N; i++)
      check_close(got[i], 1.5 * x0[i] * x0[i], 1e-6, "%s: y[%d]", modes[m], i);
    check_contract(modes[m]);
    device_free_all();
  }
}

static void section_tangent(void) {
  for (int active = 0; active < 2; active++) {
    float a = 1.5f, ta = 0.75f;
    int n = N;
    float *x = device_copy(x0), *y = device_filled(0.0f), *dx = device_copy(v),
          *dy = device_filled(0.0f);
    void *px = x, *py = y, *pdx = dx, *pdy = dy;
    void *args[] = {&py, &px, &a, &n}, *tangents[] = {&pdy, &pdx, active ? &ta : NULL, NULL};
    __kinase_launch_tangent((const void *)scale, GRID, BLOCK, 0, NULL, args, tangents,
                            active ? "ddoc" : "ddcc", WHERE);
    static float got[N];
    fetch(got, y);
    for (int i = 0; i < N; i++)
      check_close(got[i], 1.5 * x0[i] * x0[i], 1e-6, "tangent: y[%d]", i);
    fetch(got, dy);
    for (int i = 0; i < N; i++)
      check_close(got[i], (active ? 0.75 * x0[i] * x0[i] : 0) + 2 * 1.5 * x0[i] * v[i], 1e-5,
                  "tangent (a %s): dy[%d]", active ? "active" : "const", i);
    device_free_all();
  }
}

static void section_double(void) {
  static double xd[N], wd[N], vd[N], got[N];
  for (int i = 0; i < N; i++) {
    xd[i] = x0[i];
    wd[i] = w[i];
    vd[i] = v[i];
  }
  double b = 0.3, db = -1, tb = 2.5, want_db = 0;
  int n = N;
  double *x = device_copy(xd), *y = device_filled(0.0), *dy = device_copy(wd),
         *dx = device_filled(1.0);
  void *px = x, *py = y, *pdx = dx, *pdy = dy;
  void *args[] = {&py, &px, &b, &n}, *shadows[] = {&pdy, &pdx, NULL, NULL};
  KinaseLaunch *l = __kinase_launch_augment((const void *)dscale, GRID, BLOCK, 0, NULL, args,
                                            shadows, "ddoc", WHERE);
  void *adjoints[] = {NULL, NULL, &db, NULL};
  __kinase_launch_reverse(l, adjoints);
  fetch(got, dx);
  for (int i = 0; i < N; i++) {
    check_close(got[i], 1.0 + 0.3 * wd[i], 1e-14, "double: dx[%d]", i);
    want_db += xd[i] * wd[i];
  }
  check_close(db, want_db, 1e-12, "double: db");

  double *tx = device_copy(vd), *ty = device_filled(0.0);
  void *ptx = tx, *pty = ty;
  void *tangents[] = {&pty, &ptx, &tb, NULL};
  __kinase_launch_tangent((const void *)dscale, GRID, BLOCK, 0, NULL, args, tangents, "ddoc",
                          WHERE);
  fetch(got, ty);
  for (int i = 0; i < N; i++)
    check_close(got[i], 2.5 * xd[i] + 0.3 * vd[i], 1e-14, "double tangent: dy[%d]", i);
}

// square alone (its own launch overwrites what it reads), then scale
// followed by square on a stream of their own (the second launch overwrites
// what the first read): dx = 2 x0 (u + a w), and the primal x stays x0^2.
static void section_snapshot_launches(void) {
  static float got[N];
  int n = N;
  {
    float *x = device_copy(x0), *dx = device_copy(u);
    void *px = x, *pdx = dx;
    void *args[] = {&px, &n}, *shadows[] = {&pdx, NULL};
    KinaseLaunch *l = __kinase_launch_augment((const void *)square, GRID, BLOCK, 0, NULL, args,
                                              shadows, "dc", WHERE);
    __kinase_launch_reverse(l, NULL);
    fetch(got, dx);
    for (int i = 0; i < N; i++)
      check_close(got[i], 2.0 * x0[i] * u[i], 1e-5, "in place: dv[%d]", i);
    device_free_all();
  }
  cudaStream_t s;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  float a = 1.5f, da = 0;
  float *x = device_copy(x0), *y = device_filled(0.0f), *dx = device_copy(u), *dy = device_copy(w);
  void *px = x, *py = y, *pdx = dx, *pdy = dy;
  void *scale_args[] = {&py, &px, &a, &n}, *scale_shadows[] = {&pdy, &pdx, NULL, NULL};
  void *square_args[] = {&px, &n}, *square_shadows[] = {&pdx, NULL};
  KinaseLaunch *first = __kinase_launch_augment((const void *)scale, GRID, BLOCK, 0, s, scale_args,
                                                scale_shadows, "ddoc", WHERE);
  KinaseLaunch *second = __kinase_launch_augment((const void *)square, GRID, BLOCK, 0, s,
                                                 square_args, square_shadows, "dc", WHERE);
  void *adjoints[] = {NULL, NULL, &da, NULL};
  __kinase_launch_reverse(second, NULL);
  __kinase_launch_reverse(first, adjoints);
  check_cuda(cudaStreamSynchronize(s), "stream");
  fetch(got, dx);
  for (int i = 0; i < N; i++)
    check_close(got[i], 2.0 * x0[i] * (u[i] + 1.5 * w[i]), 1e-5, "chain: dx[%d]", i);
  fetch(got, x);
  for (int i = 0; i < N; i++)
    check_close(got[i], (double)x0[i] * x0[i], 1e-6, "chain: primal x[%d] after the reverse", i);
  check_cuda(cudaStreamDestroy(s), "stream");
}

// A copy into x, announced with __kinase_before_write on another stream,
// between the sweeps of scale.
static void section_snapshot_before_write(void) {
  cudaStream_t s1, s2;
  check_cuda(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "stream");
  check_cuda(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "stream");
  float a = 1.5f;
  int n = N;
  float *x = device_copy(x0), *y = device_filled(0.0f), *dx = device_filled(0.0f),
        *dy = device_copy(w);
  void *px = x, *py = y, *pdx = dx, *pdy = dy;
  void *args[] = {&py, &px, &a, &n}, *shadows[] = {&pdy, &pdx, NULL, NULL};
  KinaseLaunch *l = __kinase_launch_augment((const void *)scale, GRID, BLOCK, 0, s1, args, shadows,
                                            "ddoc", WHERE);
  check_cuda(cudaStreamSynchronize(s1), "stream");
  static float garbage[N];
  for (int i = 0; i < N; i++)
    garbage[i] = -3.0f;
  __kinase_before_write(x + 10, sizeof(float), s2, WHERE);
  check_cuda(cudaMemcpyAsync(x, garbage, sizeof garbage, cudaMemcpyHostToDevice, s2), "copy");
  check_cuda(cudaStreamSynchronize(s2), "stream");
  __kinase_launch_reverse(l, NULL);
  static float got[N];
  check_cuda(cudaStreamSynchronize(s1), "stream");
  fetch(got, dx);
  for (int i = 0; i < N; i++)
    check_close(got[i], 2 * 1.5 * x0[i] * w[i], 1e-5, "before_write: dx[%d]", i);
  check_cuda(cudaStreamDestroy(s1), "stream");
  check_cuda(cudaStreamDestroy(s2), "stream");
}

// ---- __kinase_copy_reverse ----

enum Place { NONE, HOST, PINNED, DEVICE, MANAGED };
static const char *const place_names[] = {"none", "host", "pinned", "device", "managed"};
enum { M = (1 << 20) + 3 }; // more than one pass of the grid-stride loop

template <class T> static T *place_values(Place p, T first, T step) {
  size_t bytes = M * sizeof(T);
  T *mem = NULL, *host = (T *)malloc(bytes);
  for (size_t i = 0; i < M; i++)
    host[i] = first + step * (T)(i % 13);
  switch (p) {
  case NONE:
    free(host);
    return NULL;
  case HOST:
    return host;
  case PINNED:
    check_cuda(cudaMallocHost(&mem, bytes), "cudaMallocHost");
    break;
  case DEVICE:
    check_cuda(cudaMalloc(&mem, bytes), "cudaMalloc");
    break;
  case MANAGED:
    check_cuda(cudaMallocManaged(&mem, bytes), "cudaMallocManaged");
    break;
  }
  check_cuda(cudaMemcpy(mem, host, bytes, cudaMemcpyDefault), "fill");
  free(host);
  return mem;
}

static void place_free(Place p, void *mem) {
  if (p == HOST)
    free(mem);
  else if (p == PINNED)
    cudaFreeHost(mem);
  else if (p != NONE)
    cudaFree(mem);
}

template <class T> static void copy_case(int kind, Place src, Place dst, cudaStream_t stream) {
  T *dsrc = place_values<T>(src, 1, 0.5), *ddst = place_values<T>(dst, 0, 0.25);
  __kinase_copy_reverse(dsrc, ddst, M * sizeof(T), kind, stream, sizeof(T), WHERE);
  check_cuda(cudaDeviceSynchronize(), "copy reverse");
  T *got = (T *)malloc(M * sizeof(T));
  size_t wrong_src = 0, wrong_dst = 0;
  if (dsrc) {
    check_cuda(cudaMemcpy(got, dsrc, M * sizeof(T), cudaMemcpyDefault), "read dsrc");
    for (size_t i = 0; i < M; i++)
      wrong_src += got[i] != (T)(1 + 0.5 * (i % 13) + 0.25 * (i % 13));
  }
  check_cuda(cudaMemcpy(got, ddst, M * sizeof(T), cudaMemcpyDefault), "read ddst");
  for (size_t i = 0; i < M; i++)
    wrong_dst += got[i] != 0;
  check_within(wrong_src, 0, 0, "copy reverse %zu bytes kind %d %s -> %s: elements of dsrc wrong",
               sizeof(T), kind, place_names[src], place_names[dst]);
  check_within(wrong_dst, 0, 0, "copy reverse %zu bytes kind %d %s -> %s: elements of ddst not 0",
               sizeof(T), kind, place_names[src], place_names[dst]);
  free(got);
  place_free(src, dsrc);
  place_free(dst, ddst);
}

static void section_copy_reverse(void) {
  static const struct {
    int kind;
    Place src, dst;
  } cases[] = {
      {cudaMemcpyHostToHost, HOST, HOST},       {cudaMemcpyHostToDevice, HOST, DEVICE},
      {cudaMemcpyDeviceToHost, DEVICE, HOST},   {cudaMemcpyDeviceToDevice, DEVICE, DEVICE},
      {cudaMemcpyHostToDevice, PINNED, DEVICE}, {cudaMemcpyDefault, HOST, HOST},
      {cudaMemcpyDefault, HOST, DEVICE},        {cudaMemcpyDefault, DEVICE, HOST},
      {cudaMemcpyDefault, DEVICE, DEVICE},      {cudaMemcpyDefault, MANAGED, PINNED},
      {cudaMemcpyDefault, PINNED, MANAGED},     {cudaMemcpyDeviceToDevice, NONE, DEVICE},
      {cudaMemcpyDeviceToHost, NONE, HOST},
  };
  cudaStream_t s;
  check_cuda(cudaStreamCreate(&s), "stream");
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    cudaStream_t stream = c % 2 ? s : NULL;
    copy_case<float>(cases[c].kind, cases[c].src, cases[c].dst, stream);
    copy_case<double>(cases[c].kind, cases[c].src, cases[c].dst, stream);
  }
  check_cuda(cudaStreamDestroy(s), "stream");
}

// ---- shadows of allocations ----

static void section_shadow_alloc(void) {
  static const struct {
    int how;
    cudaMemoryType type;
    const char *name;
  } kinds[] = {{KINASE_ALLOC_DEVICE, cudaMemoryTypeDevice, "device"},
               {KINASE_ALLOC_MANAGED, cudaMemoryTypeManaged, "managed"},
               {KINASE_ALLOC_HOST, cudaMemoryTypeHost, "host"}};
  enum { BYTES = 1 << 16 };
  static unsigned char got[BYTES];
  for (int k = 0; k < 3; k++) {
    // Dirty memory first, so that the next allocation likely reuses it.
    void *p = __kinase_shadow_alloc(BYTES, kinds[k].how, NULL, WHERE);
    if (kinds[k].how == KINASE_ALLOC_DEVICE)
      check_cuda(cudaMemset(p, 0xff, BYTES), "cudaMemset");
    else
      memset(p, 0xff, BYTES);
    check_cuda(cudaDeviceSynchronize(), "cudaMemset");
    __kinase_shadow_free(p, kinds[k].how, NULL, WHERE);
    p = __kinase_shadow_alloc(BYTES, kinds[k].how, NULL, WHERE);
    struct cudaPointerAttributes attributes;
    check_cuda(cudaPointerGetAttributes(&attributes, p), "attributes");
    check_within(attributes.type, kinds[k].type, 0, "shadow alloc %s: memory type", kinds[k].name);
    check_cuda(cudaMemcpy(got, p, BYTES, cudaMemcpyDefault), "read shadow");
    size_t nonzero = 0;
    for (int i = 0; i < BYTES; i++)
      nonzero += got[i] != 0;
    check_within(nonzero, 0, 0, "shadow alloc %s: bytes not zero", kinds[k].name);
    __kinase_shadow_free(p, kinds[k].how, NULL, WHERE);
  }
  __kinase_shadow_free(NULL, KINASE_ALLOC_DEVICE, NULL, WHERE);
  __kinase_cuda_check(cudaSuccess, "cudaMalloc", WHERE);
}

// ---- messages, each from a child process ----

static const char *const death_cases[] = {"activity", "no-info", "why", "modes", "cuda-check"};

static void run_death_case(const char *name) {
  require_device();
  float a = 1, *x = device_filled(1.0f), *y = device_filled(0.0f);
  int n = N;
  void *px = x, *py = y, *pnull = NULL;
  void *args[] = {&py, &px, &a, &n}, *shadows[] = {&py, &px, NULL, NULL};
  void *args2[] = {&py, &n}, *shadows2[] = {&py, NULL};
  if (!strcmp(name, "activity")) {
    /* y unneeded, x (read only) Const: dscale has no reverse kernel for nc
     * (forward kernels need none but dd: Const gets zero tangents). */
    double b = 2, *xd = device_filled(1.0), *yd = device_filled(0.0);
    void *pxd = xd, *pyd = yd, *dargs[] = {&pyd, &pxd, &b, &n}, *dshadows[] = {&pyd, &pnull, NULL, NULL};
    __kinase_launch_augment((const void *)dscale, GRID, BLOCK, 0, NULL, dargs, dshadows, "ndoc", WHERE);
  } else if (!strcmp(name, "no-info"))
    __kinase_launch_augment((const void *)plain, GRID, BLOCK, 0, NULL, args2, shadows2, "dc",
                            WHERE);
  else if (!strcmp(name, "why"))
    __kinase_launch_augment((const void *)opaque, GRID, BLOCK, 0, NULL, args2, shadows2, "dc",
                            WHERE);
  else if (!strcmp(name, "modes"))
    __kinase_launch_augment((const void *)scale, GRID, BLOCK, 0, NULL, args, shadows, "ddo",
                            WHERE);
  else if (!strcmp(name, "cuda-check"))
    __kinase_cuda_check(cudaErrorMemoryAllocation, "cudaMalloc", WHERE);
}

static void expected_message(const char *name, char *out, size_t size) {
  const char *body =
      !strcmp(name, "activity") ? "kernel 'dscale' has no derivative kernel for activity nc"
      : !strcmp(name, "no-info") ? "kernel 'plain' has no derivative kernels: compile it with kinase-cc"
      : !strcmp(name, "why")     ? "kernel 'opaque' cannot be differentiated: it calls printf"
      : !strcmp(name, "modes")   ? "kernel 'scale': activity \"ddo\" does not fit its 4 parameters"
                                 : NULL;
  if (body)
    snprintf(out, size, "kinase: %s (derivative of %s)\n", body, WHERE);
  else
    snprintf(out, size, "kinase: cudaMalloc failed: %s (derivative of %s)\n",
             cudaGetErrorString(cudaErrorMemoryAllocation), WHERE);
}

static void section_messages(void) {
  for (size_t c = 0; c < sizeof death_cases / sizeof *death_cases; c++) {
    const char *name = death_cases[c];
    int fds[2];
    if (pipe(fds) != 0) {
      printf("FAIL: pipe\n");
      exit(1);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], 2);
      close(fds[0]);
      close(fds[1]);
      execl("/proc/self/exe", "runtime-smoke", "--die", name, (char *)NULL);
      _exit(127);
    }
    close(fds[1]);
    char got[1024] = {0}, want[1024];
    size_t used = 0;
    ssize_t r;
    while ((r = read(fds[0], got + used, sizeof got - 1 - used)) > 0)
      used += (size_t)r;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    expected_message(name, want, sizeof want);
    check_within(WIFEXITED(status) ? WEXITSTATUS(status) : 128, 1, 0, "%s: exit status", name);
    check_within(strcmp(got, want) == 0, 1, 0, "%s: message\n  got:  %s  want: %s", name, got,
                 want);
  }
}

static void section(const char *name, void (*run)(void)) {
  int before = check_failures_;
  run();
  check_cuda(cudaDeviceSynchronize(), "%s", name);
  check_contract(name);
  device_free_all();
  printf("%s %s\n", check_failures_ == before ? "PASS" : "FAIL", name);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--die")) {
    run_death_case(argv[2]);
    return 3; // the runtime should have exited with status 1
  }
  require_device();
  init_inputs();
  section("augment and reverse (float adjoint, copied arguments)", section_reverse);
  section("augment skipped for a dupnoneed output", section_skipped);
  section("Const shadows (mode c, NULL shadow)", section_const_shadow);
  section("a written pointer passed Const gets a scratch shadow", section_scratch_shadow);
  section("tangent (active and const float)", section_tangent);
  section("double: reverse and tangent", section_double);
  section("snapshots: in-place kernel, later launch", section_snapshot_launches);
  section("snapshots: __kinase_before_write on another stream", section_snapshot_before_write);
  section("copy reverse, every direction", section_copy_reverse);
  section("shadow alloc and free", section_shadow_alloc);
  section("messages of kernels without derivatives", section_messages);
  return check_exit();
}
