/* Snapshots: a reverse kernel re-runs its kernel's forward part from memory,
 * so it must see the memory its launch read as it was then. A launch stays
 * pending from its forward sweep to its reverse sweep. Each allocation a
 * pending launch READs through a pointer parameter, or reaches through a
 * pointer field of a struct parameter (its whole range, from
 * cuMemGetAddressRange; host memory is not covered) is copied the first time
 * something is about to write it: a later launch whose WRITTEN parameters
 * or written struct fields point into it (the launch itself too: an
 * in-place kernel, and always a struct's written field), a copy or
 * memset announced by __kinase_before_write, or a store of the host code
 * (__kinase_before_host_write: managed memory). The copy is made on the
 * writer's stream, before the write; the reverse kernel gets pointers into
 * the copy, and the copy is freed after it (stream-ordered). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static KinaseLaunch *pending; /* the newest first */
/* [watched_lo, watched_hi) holds every allocation a pending launch read:
 * the host code's stores (__kinase_before_host_write), most of them into
 * other memory, return without the lock when outside it. Empty when
 * nothing is pending. */
static _Atomic CUdeviceptr watched_lo = ~(CUdeviceptr)0, watched_hi;

static void *pointer_argument(void **args, uint32_t i) { return *(void *const *)args[i]; }

static void *field_of(void **args, uint32_t i, uint32_t offset) {
  void *p;
  memcpy(&p, (const char *)args[i] + offset, sizeof p);
  return p;
}

static uint32_t struct_bytes(const KinaseKernel *k, uint32_t i) {
  return k->params[i] & KINASE_PARAM_SIZE;
}

static void add_snapshot(KinaseLaunch *launch, const void *p) {
  CUdeviceptr base;
  size_t size;
  if (!kinase_rt_allocation_of(p, &base, &size))
    return;
  for (uint32_t j = 0; j < launch->nsnapshots; j++)
    if (launch->snapshots[j].base == base)
      return;
  launch->snapshots[launch->nsnapshots++] = (KinaseSnapshot){.base = base, .size = size};
}

/* A struct's fields are protected whenever K reaches memory through them:
 * the reverse kernel stores through the written ones again, which only a
 * copy may take. */
static void add_struct_snapshots(KinaseLaunch *launch, uint32_t i, void **args) {
  const KinaseKernel *k = launch->kernel;
  uint32_t offsets[KINASE_PARAM_SIZE / 8 + 1];
  uint32_t n = kinase_rt_struct_fields(k, i, false, offsets);
  for (uint32_t f = 0; f < n; f++)
    add_snapshot(launch, field_of(args, i, offsets[f]));
  n = kinase_rt_struct_fields(k, i, true, offsets);
  CUdeviceptr base;
  size_t size;
  for (uint32_t f = 0; f < n; f++) {
    void *p = field_of(args, i, offsets[f]);
    if (p && !kinase_rt_allocation_of(p, &base, &size))
      kinase_rt_fail(launch->where,
                     "kernel '%s' writes through the pointer at byte %u of its struct parameter %u "
                     "into memory that is not a CUDA allocation: its reverse kernel needs a copy "
                     "of it",
                     k->display, offsets[f], i + 1);
  }
}

void kinase_rt_pending_add(KinaseLaunch *launch, void **args) {
  const KinaseKernel *k = launch->kernel;
  size_t room = k->nparams;
  for (uint32_t i = 0; i < k->nparams; i++)
    if (k->params[i] & KINASE_PARAM_STRUCT)
      room += struct_bytes(k, i) / 8;
  launch->snapshots = kinase_rt_alloc(room * sizeof *launch->snapshots + 1, launch->where);
  for (uint32_t i = 0; i < k->nparams; i++) {
    uint32_t p = k->params[i];
    if ((p & KINASE_PARAM_POINTER) && (p & KINASE_PARAM_READ))
      add_snapshot(launch, pointer_argument(args, i));
    if ((p & KINASE_PARAM_STRUCT) && (p & (KINASE_PARAM_READ | KINASE_PARAM_WRITTEN)))
      add_struct_snapshots(launch, i, args);
  }
  pthread_mutex_lock(&pending_lock);
  for (uint32_t j = 0; j < launch->nsnapshots; j++) {
    const KinaseSnapshot *s = &launch->snapshots[j];
    if (s->base < atomic_load(&watched_lo))
      atomic_store(&watched_lo, s->base);
    if (s->base + s->size > atomic_load(&watched_hi))
      atomic_store(&watched_hi, s->base + s->size);
  }
  launch->prev = NULL;
  launch->next = pending;
  if (pending)
    pending->prev = launch;
  pending = launch;
  pthread_mutex_unlock(&pending_lock);
}

static void take_snapshot(const KinaseLaunch *launch, KinaseSnapshot *s, cudaStream_t stream,
                          const char *where) {
  void *copy = kinase_rt_alloc_async(s->size, stream, where);
  CHECK(where, cudaMemcpyAsync, copy, (const void *)s->base, s->size, cudaMemcpyDefault, stream);
  s->copy = (CUdeviceptr)copy;
  if (stream != launch->stream) {
    CHECK(where, cudaEventCreateWithFlags, &s->copied, cudaEventDisableTiming);
    CHECK(where, cudaEventRecord, s->copied, stream);
  }
}

/* Before [lo, lo + bytes) is written on `stream`; whether it copied any. */
static bool protect(CUdeviceptr lo, size_t bytes, cudaStream_t stream, const char *where) {
  bool copied = false;
  for (KinaseLaunch *l = pending; l; l = l->next) {
    for (uint32_t j = 0; j < l->nsnapshots; j++) {
      KinaseSnapshot *s = &l->snapshots[j];
      if (!s->copy && s->base < lo + bytes && lo < s->base + s->size) {
        take_snapshot(l, s, stream, where);
        copied = true;
      }
    }
  }
  return copied;
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
    if (!(p & KINASE_PARAM_STRUCT) || !(p & KINASE_PARAM_WRITTEN))
      continue;
    uint32_t offsets[KINASE_PARAM_SIZE / 8 + 1];
    for (uint32_t f = 0, n = kinase_rt_struct_fields(k, i, true, offsets); f < n; f++)
      if (kinase_rt_allocation_of(field_of(args, i, offsets[f]), &base, &size))
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

/* The host code's own stores (managed memory updated between launches)
 * happen as soon as this returns: a snapshot taken for them is complete
 * first. */
void __kinase_before_host_write(const void *dst, size_t bytes, const char *where) {
  CUdeviceptr lo = (CUdeviceptr)dst;
  if (lo >= atomic_load_explicit(&watched_hi, memory_order_relaxed) ||
      lo + bytes <= atomic_load_explicit(&watched_lo, memory_order_relaxed))
    return;
  pthread_mutex_lock(&pending_lock);
  bool copied = pending && bytes && protect(lo, bytes, NULL, where);
  pthread_mutex_unlock(&pending_lock);
  if (copied)
    CHECK(where, cudaStreamSynchronize, NULL);
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
  if (!pending) {
    atomic_store(&watched_lo, ~(CUdeviceptr)0);
    atomic_store(&watched_hi, 0);
  }
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

void kinase_rt_snapshot_struct(const KinaseLaunch *launch, uint32_t i, void *bytes) {
  uint32_t offsets[KINASE_PARAM_SIZE / 8 + 1];
  for (uint32_t f = 0, n = kinase_rt_struct_fields(launch->kernel, i, false, offsets); f < n; f++) {
    void *p;
    memcpy(&p, (char *)bytes + offsets[f], sizeof p);
    p = kinase_rt_snapshot_pointer(launch, p);
    memcpy((char *)bytes + offsets[f], &p, sizeof p);
  }
}

void kinase_rt_snapshots_free(KinaseLaunch *launch) {
  for (uint32_t j = 0; j < launch->nsnapshots; j++)
    if (launch->snapshots[j].copy)
      CHECK(launch->where, cudaFreeAsync, (void *)launch->snapshots[j].copy, launch->stream);
  free(launch->snapshots);
  launch->snapshots = NULL;
  launch->nsnapshots = 0;
}
