/* Facts about device allocations that the compiler could not know:
 *   - scratch shadows: a Const pointer the kernel writes through still needs
 *     a shadow in its derivative kernels (their reverse of a store reads and
 *     clears it), so it gets a zeroed one the size of its allocation, thrown
 *     away after the launch;
 *   - element types: a copy of device memory the host never reads as numbers
 *     has its element type from the kernels launched with that memory
 *     (KINASE_PARAM_F32 / F64 / F16 / BF16), or from a copy reversed before it that
 *     reached that memory, remembered per allocation. */
#include <pthread.h>
#include <stdlib.h>

#include "cuda_rt.h"

bool kinase_rt_allocation_of(const void *p, CUdeviceptr *base, size_t *size) {
  return p && cuMemGetAddressRange(base, size, (CUdeviceptr)p) == CUDA_SUCCESS;
}

bool kinase_rt_host_visible(const void *p) {
  struct cudaPointerAttributes attributes;
  if (!p || cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError(); /* an unknown pointer is not an error to keep */
    return false;
  }
  return attributes.type != cudaMemoryTypeDevice;
}

void *kinase_rt_scratch_shadow(const KinaseKernel *k, uint32_t i, const void *primal, bool zeroed,
                               cudaStream_t stream, void **allocated, const char *where) {
  /* An optional pointer passed as NULL (`bias ? bias[i] : 0`): the kernel
   * cannot reach memory through it, so its shadow is NULL too. */
  *allocated = NULL;
  if (!primal)
    return NULL;
  CUdeviceptr base;
  size_t size;
  if (!kinase_rt_allocation_of(primal, &base, &size))
    kinase_rt_fail(where, "kernel '%s' writes through parameter %u, passed as Const, into memory "
                          "that is not a CUDA allocation: give it a shadow",
                   k->display, i + 1);
  *allocated = kinase_rt_alloc_async(size, stream, where);
  if (zeroed)
    CHECK(where, cudaMemsetAsync, *allocated, 0, size, stream);
  return (char *)*allocated + ((CUdeviceptr)primal - base);
}

typedef struct {
  CUdeviceptr base;
  size_t size;
  int element; /* KINASE_ELEMENT_* */
} Typed;

static pthread_mutex_t typed_lock = PTHREAD_MUTEX_INITIALIZER;
static Typed *typed;
static size_t ntyped, typed_capacity;

/* An allocation freed and made again at the same place takes its new type
 * from its next launch. */
void kinase_rt_learn_type(const void *p, int element, const char *where) {
  CUdeviceptr base;
  size_t size;
  if (!kinase_rt_allocation_of(p, &base, &size))
    return;
  pthread_mutex_lock(&typed_lock);
  size_t i = 0;
  while (i < ntyped && (typed[i].base != base || typed[i].size != size))
    i++;
  if (i == ntyped) {
    kinase_rt_reserve((void **)&typed, ntyped, &typed_capacity, sizeof *typed, where);
    ntyped++;
  }
  typed[i] = (Typed){base, size, element};
  pthread_mutex_unlock(&typed_lock);
}

void kinase_rt_learn_types(const KinaseKernel *k, void **args, void **shadows, const char *where) {
  for (uint32_t i = 0; i < k->nparams; i++) {
    uint32_t p = k->params[i];
    int element = p & KINASE_PARAM_F32    ? KINASE_ELEMENT_F32
                  : p & KINASE_PARAM_F64  ? KINASE_ELEMENT_F64
                  : p & KINASE_PARAM_F16  ? KINASE_ELEMENT_F16
                  : p & KINASE_PARAM_BF16 ? KINASE_ELEMENT_BF16
                                          : 0;
    if (!(p & KINASE_PARAM_POINTER) || !element)
      continue;
    kinase_rt_learn_type(*(void *const *)args[i], element, where);
    if (shadows && shadows[i])
      kinase_rt_learn_type(shadows[i], element, where);
  }
}

int kinase_rt_element_of(const void *p) {
  CUdeviceptr base;
  size_t size;
  if (!kinase_rt_allocation_of(p, &base, &size))
    return 0;
  int element = 0;
  pthread_mutex_lock(&typed_lock);
  for (size_t i = 0; i < ntyped; i++)
    if (typed[i].base == base && typed[i].size == size)
      element = typed[i].element;
  pthread_mutex_unlock(&typed_lock);
  return element;
}
