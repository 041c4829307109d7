/* Releases deferred from a request's forward sweep to the end of its
 * reverse sweep (kinase_cuda.h): frees of memory and destroys of streams and
 * events, in the order the program made them, and the values the reverse
 * sweep took from __device__ variables put back. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cuda_rt.h"

typedef struct {
  int how;
  void *handle;
  const char *where;
} Release;

static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;
static Release *deferred;
static size_t ndeferred, capacity;

void __kinase_defer_release(int how, void *handle, const char *where) {
  if (!handle)
    return;
  pthread_mutex_lock(&release_lock);
  kinase_rt_reserve((void **)&deferred, ndeferred, &capacity, sizeof *deferred, where);
  deferred[ndeferred++] = (Release){how, handle, where};
  pthread_mutex_unlock(&release_lock);
}

bool kinase_rt_deferred_holds(int how, bool (*same)(const void *handle, const void *key), const void *key) {
  bool found = false;
  pthread_mutex_lock(&release_lock);
  for (size_t i = 0; i < ndeferred && !found; i++)
    found = deferred[i].how == how && same(deferred[i].handle, key);
  pthread_mutex_unlock(&release_lock);
  return found;
}

static void release(const Release *r) {
  switch (r->how) {
  case KINASE_ALLOC_DEVICE:
  case KINASE_ALLOC_MANAGED:
    CHECK(r->where, cudaFree, r->handle);
    return;
  case KINASE_ALLOC_HOST:
    CHECK(r->where, cudaFreeHost, r->handle);
    return;
  case KINASE_HANDLE_STREAM:
    CHECK(r->where, cudaStreamDestroy, (cudaStream_t)r->handle);
    return;
  case KINASE_HANDLE_EVENT:
    CHECK(r->where, cudaEventDestroy, (cudaEvent_t)r->handle);
    return;
  case KINASE_HANDLE_TEXTURE:
    CHECK(r->where, cudaDestroyTextureObject, (cudaTextureObject_t)(uintptr_t)r->handle);
    return;
  case KINASE_HANDLE_SURFACE:
    CHECK(r->where, cudaDestroySurfaceObject, (cudaSurfaceObject_t)(uintptr_t)r->handle);
    return;
  case KINASE_RESTORE_VARIABLE:
    kinase_rt_restore_variable(r->handle, r->where);
    return;
  default:
    kinase_rt_fail(r->where, "release of unknown kind %d", r->how);
  }
}

void __kinase_release_deferred(void) {
  pthread_mutex_lock(&release_lock);
  Release *list = deferred;
  size_t n = ndeferred;
  deferred = NULL;
  ndeferred = capacity = 0;
  pthread_mutex_unlock(&release_lock);
  for (size_t i = 0; i < n; i++)
    release(&list[i]);
  free(list);
}
