/* The reverse of cudaMemcpy* and cudaMemcpy2D* (dsrc += ddst, then ddst = 0,
 * in any direction)
 * and shadows of CUDA allocations. Device-side sums run the kernels of
 * accumulate.cu; host-side sums a loop, after the stream is synchronized. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bfloat16.h"
#include "cuda_rt.h"

/* ---- the accumulate kernels ---- */

static pthread_mutex_t library_lock = PTHREAD_MUTEX_INITIALIZER;
static CUlibrary library; /* loaded once, valid in every context */
static const struct {
  int element;
  const char *kernel;
} accumulate_names[] = {
    {KINASE_ELEMENT_F32, "kinase_accumulate_f32"},
    {KINASE_ELEMENT_F64, "kinase_accumulate_f64"},
    {KINASE_ELEMENT_F16, "kinase_accumulate_f16"},
    {KINASE_ELEMENT_BF16, "kinase_accumulate_bf16"},
};
enum { NELEMENTS = sizeof accumulate_names / sizeof *accumulate_names };
static CUkernel accumulate_kernels[NELEMENTS];

/* Which of accumulate_names `element` is; -1 for none. */
static int element_index(int element) {
  for (int i = 0; i < NELEMENTS; i++)
    if (accumulate_names[i].element == element)
      return i;
  return -1;
}

/* The accumulate kernel for `element`, in the current context (the
 * device's primary context, made current first). */
static CUfunction accumulate_function(int element, const char *where) {
  CUcontext context = NULL;
  CHECK(where, cuCtxGetCurrent, &context);
  if (!context)
    CHECK(where, cudaFree, NULL);
  pthread_mutex_lock(&library_lock);
  if (!library) {
    CHECK(where, cuLibraryLoadData, &library, kinase_rt_accumulate_ptx, NULL, NULL, 0, NULL, NULL,
          0);
    for (int i = 0; i < NELEMENTS; i++)
      CHECK(where, cuLibraryGetKernel, &accumulate_kernels[i], library, accumulate_names[i].kernel);
  }
  pthread_mutex_unlock(&library_lock);
  CUfunction f;
  CHECK(where, cuKernelGetFunction, &f, accumulate_kernels[element_index(element)]);
  return f;
}

/* a[i] += b[i] for i < n on the device, on `stream`; b[i] = 0 too if zero_b. */
static void accumulate_on_device(void *a, void *b, size_t n, int zero_b, int element,
                                 cudaStream_t stream, const char *where) {
  if (n == 0)
    return;
  CUfunction f = accumulate_function(element, where);
  enum { THREADS = 256, MAX_BLOCKS = 4096 };
  size_t blocks = (n + THREADS - 1) / THREADS;
  void *params[] = {&a, &b, &n, &zero_b};
  CHECK(where, cuLaunchKernel, f, (unsigned)(blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS), 1, 1,
        THREADS, 1, 1, 0, (CUstream)stream, params, NULL);
}

#define ACCUMULATE_AS(T, a, b, n)                                                                  \
  do {                                                                                             \
    T *x = (a);                                                                                    \
    const T *y = (b);                                                                              \
    for (size_t i = 0; i < (n); i++)                                                               \
      x[i] += y[i];                                                                                \
  } while (0)

/* Half adds as _Float16 (the same bits as __half), rounded to nearest;
 * bfloat16 ones through float (bfloat16.h). */
static void accumulate_on_host(void *a, const void *b, size_t n, int element) {
  switch (element) {
  case KINASE_ELEMENT_F32: ACCUMULATE_AS(float, a, b, n); break;
  case KINASE_ELEMENT_F64: ACCUMULATE_AS(double, a, b, n); break;
  case KINASE_ELEMENT_F16: ACCUMULATE_AS(_Float16, a, b, n); break;
  case KINASE_ELEMENT_BF16: {
    uint16_t *x = a;
    const uint16_t *y = b;
    for (size_t i = 0; i < n; i++)
      x[i] = kinase_rt_float_to_bfloat16(kinase_rt_bfloat16_to_float(x[i]) +
                                          kinase_rt_bfloat16_to_float(y[i]));
    break;
  }
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
                         int element, const char *where);

void __kinase_copy_reverse(void *dsrc, void *ddst, size_t bytes, int kind, void *stream,
                           int element, const char *where) {
  if (kinase_rt_table_copy_reversed(ddst)) /* a table of pointers: no adjoints */
    return;
  if (!ddst || bytes == 0 || dsrc == ddst)
    return;
  kinase_rt_reverse_begin(stream, where);
  copy_reverse(dsrc, ddst, bytes, kind, stream, element, where);
  kinase_rt_reverse_end(stream, where);
}

/* The element of the memory a copy's reverse moves (`element`, or what the
 * kernels launched with either side told), which both sides hold from now
 * on; 0 when there is no dsrc (nothing moves, ddst is zeroed). */
static int copied_element(void *dsrc, void *ddst, size_t bytes, int element, const char *where) {
  if (!dsrc)
    return 0;
  if (element == 0)
    element = kinase_rt_element_of(ddst) ? kinase_rt_element_of(ddst) : kinase_rt_element_of(dsrc);
  if (element == 0)
    kinase_rt_fail(where, "a copy of %zu bytes of device memory whose element type no kernel "
                          "launched here tells, and the host code never reads it as numbers: "
                          "Kinase cannot tell floats from doubles",
                   bytes);
  if (element_index(element) < 0)
    kinase_rt_fail(where, "the reverse of a copy of elements of unknown type %d", element);
  /* Both sides hold these elements: the reverse of an earlier copy into the
   * source (a host-to-device copy before a device-to-device one) learns it. */
  kinase_rt_learn_type(dsrc, element, where);
  kinase_rt_learn_type(ddst, element, where);
  return element;
}

static void copy_reverse(void *dsrc, void *ddst, size_t bytes, int kind, cudaStream_t stream,
                         int element, const char *where) {
  element = copied_element(dsrc, ddst, bytes, element, where);
  int element_size = dsrc ? KINASE_ELEMENT_SIZE(element) : 1; /* without dsrc, only zeroes */
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
      b = kinase_rt_alloc_async(bytes, stream, where);
      CHECK(where, cudaMemcpyAsync, b, ddst, bytes, cudaMemcpyDefault, stream);
    }
    zeroed = dst_device && n * (size_t)element_size == bytes;
    accumulate_on_device(dsrc, b, n, zeroed, element, stream, where);
    if (b != ddst)
      CHECK(where, cudaFreeAsync, b, stream);
  } else if (dsrc) {
    void *b = ddst;
    if (dst_device) {
      b = kinase_rt_alloc(bytes, where);
      CHECK(where, cudaMemcpyAsync, b, ddst, bytes, cudaMemcpyDefault, stream);
    }
    CHECK(where, cudaStreamSynchronize, stream);
    accumulate_on_host(dsrc, b, n, element);
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

/* ---- __kinase_copy2d_reverse ---- */

/* The rows of a pitched copy's reverse, packed (width bytes each, in device
 * memory) so that the 1-D reverse adds them; CUDA's own 2-D copies gather
 * and scatter them, wherever each side lives. */
void __kinase_copy2d_reverse(void *dsrc, size_t spitch, void *ddst, size_t dpitch, size_t width,
                             size_t height, int kind, void *stream, int element, const char *where) {
  if (!ddst || width == 0 || height == 0 || dsrc == ddst)
    return;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    kinase_rt_fail(where, "the reverse of a copy of unknown cudaMemcpyKind %d", kind);
  kinase_rt_reverse_begin(stream, where);
  size_t bytes = width * height;
  element = copied_element(dsrc, ddst, bytes, element, where);
  cudaStream_t s = stream;
  bool dst_device = on_device(ddst, where);
  if (dsrc) {
    void *rows, *sums;
    rows = kinase_rt_alloc_async(bytes, s, where);
    sums = kinase_rt_alloc_async(bytes, s, where);
    CHECK(where, cudaMemcpy2DAsync, rows, width, ddst, dpitch, width, height, cudaMemcpyDefault, s);
    CHECK(where, cudaMemcpy2DAsync, sums, width, dsrc, spitch, width, height, cudaMemcpyDefault, s);
    accumulate_on_device(sums, rows, bytes / (size_t)KINASE_ELEMENT_SIZE(element), 0, element, s,
                         where);
    CHECK(where, cudaMemcpy2DAsync, dsrc, spitch, sums, width, width, height, cudaMemcpyDefault, s);
    CHECK(where, cudaFreeAsync, rows, s);
    CHECK(where, cudaFreeAsync, sums, s);
  }
  /* ddst = 0, its rows only: the padding between them is not the copy's. */
  if (dst_device) {
    CHECK(where, cudaMemset2DAsync, ddst, dpitch, 0, width, height, s);
  } else {
    CHECK(where, cudaStreamSynchronize, s);
    for (size_t row = 0; row < height; row++)
      memset((char *)ddst + row * dpitch, 0, width);
  }
  if (dsrc && !on_device(dsrc, where))
    CHECK(where, cudaStreamSynchronize, s);
  kinase_rt_reverse_end(stream, where);
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

void *__kinase_mapped_shadow(void *host_shadow, const char *where) {
  void *device = NULL;
  if (cudaHostGetDevicePointer(&device, host_shadow, 0) != cudaSuccess) {
    cudaGetLastError();
    kinase_rt_fail(where, "the device address of mapped host memory: its shadow is not pinned host memory "
                          "(allocate the memory with cudaHostAlloc or cudaMallocHost inside the "
                          "differentiated function, or pass a pinned shadow)");
  }
  return device;
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
