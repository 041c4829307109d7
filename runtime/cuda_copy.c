/* The reverse of cudaMemcpy* (dsrc += ddst, then ddst = 0, in any direction)
 * and shadows of CUDA allocations. Device-side sums run the kernels of
 * accumulate.cu; host-side sums a loop, after the stream is synchronized. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* ---- the accumulate kernels ---- */

static pthread_mutex_t library_lock = PTHREAD_MUTEX_INITIALIZER;
static CUlibrary library; /* loaded once, valid in every context */
static CUkernel accumulate_kernels[2]; /* f32, f64 */

/* The accumulate kernel for elements of `element_size` bytes, in the
 * current context (the device's primary context, made current first). */
static CUfunction accumulate_function(int element_size, const char *where) {
  CUcontext context = NULL;
  CHECK(where, cuCtxGetCurrent, &context);
  if (!context)
    CHECK(where, cudaFree, NULL);
  pthread_mutex_lock(&library_lock);
  if (!library) {
    CHECK(where, cuLibraryLoadData, &library, kinase_rt_accumulate_ptx, NULL, NULL, 0, NULL, NULL,
          0);
    CHECK(where, cuLibraryGetKernel, &accumulate_kernels[0], library, "kinase_accumulate_f32");
    CHECK(where, cuLibraryGetKernel, &accumulate_kernels[1], library, "kinase_accumulate_f64");
  }
  pthread_mutex_unlock(&library_lock);
  CUfunction f;
  CHECK(where, cuKernelGetFunction, &f, accumulate_kernels[element_size == 8]);
  return f;
}

/* a[i] += b[i] for i < n on the device, on `stream`; b[i] = 0 too if zero_b. */
static void accumulate_on_device(void *a, void *b, size_t n, int zero_b, int element_size,
                                 cudaStream_t stream, const char *where) {
  if (n == 0)
    return;
  CUfunction f = accumulate_function(element_size, where);
  enum { THREADS = 256, MAX_BLOCKS = 4096 };
  size_t blocks = (n + THREADS - 1) / THREADS;
  void *params[] = {&a, &b, &n, &zero_b};
  CHECK(where, cuLaunchKernel, f, (unsigned)(blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS), 1, 1,
        THREADS, 1, 1, 0, (CUstream)stream, params, NULL);
}

static void accumulate_on_host(void *a, const void *b, size_t n, int element_size) {
  if (element_size == 4) {
    float *x = a;
    const float *y = b;
    for (size_t i = 0; i < n; i++)
      x[i] += y[i];
  } else {
    double *x = a;
    const double *y = b;
    for (size_t i = 0; i < n; i++)
      x[i] += y[i];
  }
}

/* ---- __kinase_copy_reverse ---- */

/* Device or managed memory (cudaMemcpyDefault's view of a pointer). */
static bool on_device(const void *p, const char *where) {
  struct cudaPointerAttributes attributes;
  CHECK(where, cudaPointerGetAttributes, &attributes, p);
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

static void copy_reverse(void *dsrc, void *ddst, size_t bytes, int kind, cudaStream_t stream,
                         int element_size, const char *where);

void __kinase_copy_reverse(void *dsrc, void *ddst, size_t bytes, int kind, void *stream,
                           int element_size, const char *where) {
  if (!ddst || bytes == 0 || dsrc == ddst)
    return;
  kinase_rt_reverse_begin(stream, where);
  copy_reverse(dsrc, ddst, bytes, kind, stream, element_size, where);
  kinase_rt_reverse_end(stream, where);
}

static void copy_reverse(void *dsrc, void *ddst, size_t bytes, int kind, cudaStream_t stream,
                         int element_size, const char *where) {
  if (element_size == 0)
    element_size = kinase_rt_element_size(ddst) ? kinase_rt_element_size(ddst)
                                                : kinase_rt_element_size(dsrc);
  if (element_size == 0)
    kinase_rt_fail(where, "a copy of %zu bytes of device memory whose element type no kernel "
                          "launched here tells, and the host code never reads it as numbers: "
                          "Kinase cannot tell floats from doubles",
                   bytes);
  if (element_size != 4 && element_size != 8)
    kinase_rt_fail(where, "the reverse of a copy of elements of %d bytes (floats of 4 or 8)",
                   element_size);
  /* Both sides hold these elements: the reverse of an earlier copy into the
   * source (a host-to-device copy before a device-to-device one) learns it. */
  kinase_rt_learn_type(dsrc, element_size, where);
  kinase_rt_learn_type(ddst, element_size, where);
  bool src_device, dst_device;
  switch (kind) {
  case cudaMemcpyHostToHost:
  case cudaMemcpyHostToDevice:
  case cudaMemcpyDeviceToHost:
  case cudaMemcpyDeviceToDevice:
    src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    break;
  case cudaMemcpyDefault:
    src_device = dsrc && on_device(dsrc, where);
    dst_device = on_device(ddst, where);
    break;
  default:
    kinase_rt_fail(where, "the reverse of a copy of unknown cudaMemcpyKind %d", kind);
  }

  /* dsrc += ddst, with ddst's values brought to dsrc's side first. */
  size_t n = bytes / (size_t)element_size;
  bool zeroed = false; /* the kernel zeroed ddst itself */
  if (dsrc && src_device) {
    void *b = ddst;
    if (!dst_device) {
      CHECK(where, cudaMallocAsync, &b, bytes, stream);
      CHECK(where, cudaMemcpyAsync, b, ddst, bytes, cudaMemcpyDefault, stream);
    }
    zeroed = dst_device && n * (size_t)element_size == bytes;
    accumulate_on_device(dsrc, b, n, zeroed, element_size, stream, where);
    if (b != ddst)
      CHECK(where, cudaFreeAsync, b, stream);
  } else if (dsrc) {
    void *b = ddst;
    if (dst_device) {
      b = kinase_rt_alloc(bytes, where);
      CHECK(where, cudaMemcpyAsync, b, ddst, bytes, cudaMemcpyDefault, stream);
    }
    CHECK(where, cudaStreamSynchronize, stream);
    accumulate_on_host(dsrc, b, n, element_size);
    if (b != ddst)
      free(b);
  }

  /* ddst = 0. */
  if (dst_device && !zeroed) {
    CHECK(where, cudaMemsetAsync, ddst, 0, bytes, stream);
  } else if (!dst_device) {
    CHECK(where, cudaStreamSynchronize, stream);
    memset(ddst, 0, bytes);
  }
}

/* ---- shadows of allocations ---- */

void *__kinase_shadow_alloc(size_t bytes, int how, void *stream, const char *where) {
  void *p = NULL;
  switch (how) {
  case KINASE_ALLOC_DEVICE:
    /* Zeroed before anything on any stream can use it. */
    CHECK(where, cudaMalloc, &p, bytes);
    CHECK(where, cudaMemsetAsync, p, 0, bytes, (cudaStream_t)stream);
    CHECK(where, cudaStreamSynchronize, (cudaStream_t)stream);
    return p;
  case KINASE_ALLOC_MANAGED:
    CHECK(where, cudaMallocManaged, &p, bytes, cudaMemAttachGlobal);
    break;
  case KINASE_ALLOC_HOST:
    CHECK(where, cudaMallocHost, &p, bytes);
    break;
  default:
    kinase_rt_fail(where, "a shadow of an allocation of unknown kind %d", how);
  }
  if (p)
    memset(p, 0, bytes);
  return p;
}

void __kinase_shadow_free(void *shadow, int how, void *stream, const char *where) {
  (void)stream;
  if (!shadow)
    return;
  if (how == KINASE_ALLOC_HOST)
    CHECK(where, cudaFreeHost, shadow);
  else
    CHECK(where, cudaFree, shadow);
}
