/* Snapshots: a reverse kernel re-runs its kernel's forward part from memory,
 * so it must see the memory its launch read as it was then. A launch stays
 * pending from its forward sweep to its reverse sweep. Each allocation a
 * pending launch READs through a pointer parameter (its whole range, from
 * cuMemGetAddressRange; host memory is not covered) is copied the first time
 * something is about to write it: a later launch whose WRITTEN parameters
 * point into it (the launch itself too: an in-place kernel), or a copy or
 * memset announced by __kinase_before_write. The copy is made on the
 * writer's stream, before the write; the reverse kernel gets pointers into
 * the copy, and the copy is freed after it (stream-ordered). */
#include <pthread.h>
#include <stdlib.h>

#include "cuda_rt.h"

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static KinaseLaunch *pending; /* the newest first */

static void *pointer_argument(void **args, uint32_t i) { return *(void *const *)args[i]; }

void kinase_rt_pending_add(KinaseLaunch *launch, void **args) {
  const KinaseKernel *k = launch->kernel;
  launch->snapshots = kinase_rt_alloc(k->nparams * sizeof *launch->snapshots, launch->where);
  for (uint32_t i = 0; i < k->nparams; i++) {
    uint32_t p = k->params[i];
    CUdeviceptr base;
    size_t size;
    if (!(p & KINASE_PARAM_POINTER) || !(p & KINASE_PARAM_READ) ||
        !kinase_rt_allocation_of(pointer_argument(args, i), &base, &size))
      continue;
    bool seen = false;
    for (uint32_t j = 0; j < launch->nsnapshots; j++)
      seen |= launch->snapshots[j].base == base;
    if (!seen)
      launch->snapshots[launch->nsnapshots++] = (KinaseSnapshot){.base = base, .size = size};
  }
  pthread_mutex_lock(&pending_lock);
  launch->prev = NULL;
  launch->next = pending;
  if (pending)
    pending->prev = launch;
  pending = launch;
  pthread_mutex_unlock(&pending_lock);
}

static void take_snapshot(const KinaseLaunch *launch, KinaseSnapshot *s, cudaStream_t stream,
                          const char *where) {
  void *copy;
  CHECK(where, cudaMallocAsync, &copy, s->size, stream);
  CHECK(where, cudaMemcpyAsync, copy, (const void *)s->base, s->size, cudaMemcpyDefault, stream);
  s->copy = (CUdeviceptr)copy;
  if (stream != launch->stream) {
    CHECK(where, cudaEventCreateWithFlags, &s->copied, cudaEventDisableTiming);
    CHECK(where, cudaEventRecord, s->copied, stream);
  }
}

/* Before [lo, lo + bytes) is written on `stream`. */
static void protect(CUdeviceptr lo, size_t bytes, cudaStream_t stream, const char *where) {
  for (KinaseLaunch *l = pending; l; l = l->next) {
    for (uint32_t j = 0; j < l->nsnapshots; j++) {
      KinaseSnapshot *s = &l->snapshots[j];
      if (!s->copy && s->base < lo + bytes && lo < s->base + s->size)
        take_snapshot(l, s, stream, where);
    }
  }
}

void kinase_rt_protect_writes(const KinaseKernel *k, void **args, cudaStream_t stream,
                              const char *where) {
  pthread_mutex_lock(&pending_lock);
  for (uint32_t i = 0; pending && i < k->nparams; i++) {
    uint32_t p = k->params[i];
    CUdeviceptr base;
    size_t size;
    if ((p & KINASE_PARAM_POINTER) && (p & KINASE_PARAM_WRITTEN) &&
        kinase_rt_allocation_of(pointer_argument(args, i), &base, &size))
      protect(base, size, stream, where);
  }
  pthread_mutex_unlock(&pending_lock);
}

void __kinase_before_write(const void *dst, size_t bytes, void *stream, const char *where) {
  pthread_mutex_lock(&pending_lock);
  if (pending && bytes)
    protect((CUdeviceptr)dst, bytes, (cudaStream_t)stream, where);
  pthread_mutex_unlock(&pending_lock);
}

void kinase_rt_pending_remove(KinaseLaunch *launch) {
  pthread_mutex_lock(&pending_lock);
  if (launch->prev)
    launch->prev->next = launch->next;
  else if (pending == launch)
    pending = launch->next;
  if (launch->next)
    launch->next->prev = launch->prev;
  launch->prev = launch->next = NULL;
  pthread_mutex_unlock(&pending_lock);

  for (uint32_t j = 0; j < launch->nsnapshots; j++) {
    KinaseSnapshot *s = &launch->snapshots[j];
    if (s->copied) {
      CHECK(launch->where, cudaStreamWaitEvent, launch->stream, s->copied, 0);
      CHECK(launch->where, cudaEventDestroy, s->copied);
      s->copied = NULL;
    }
  }
}

void *kinase_rt_snapshot_pointer(const KinaseLaunch *launch, void *p) {
  CUdeviceptr a = (CUdeviceptr)p;
  for (uint32_t j = 0; j < launch->nsnapshots; j++) {
    const KinaseSnapshot *s = &launch->snapshots[j];
    if (s->copy && s->base <= a && a < s->base + s->size)
      return (void *)(s->copy + (a - s->base));
  }
  return p;
}

void kinase_rt_snapshots_free(KinaseLaunch *launch) {
  for (uint32_t j = 0; j < launch->nsnapshots; j++)
    if (launch->snapshots[j].copy)
      CHECK(launch->where, cudaFreeAsync, (void *)launch->snapshots[j].copy, launch->stream);
  free(launch->snapshots);
  launch->snapshots = NULL;
  launch->nsnapshots = 0;
}
