/* Values of __device__ and __constant__ variables that a request's copies
 * overwrite. A reverse kernel re-runs its kernel's forward part and reads
 * the variables as they are when it runs: where the host function copies
 * into a variable after launching a kernel that reads it (a time step's
 * coefficients, cudaMemcpyToSymbol in a loop), that launch's reverse
 * kernel must see the value from before the copy. So each copy into a
 * variable in a request's forward sweep saves what it overwrites, the
 * copy's reverse puts it back (the first one to do so for a variable
 * saving what the forward sweep left there), and the end of the request
 * puts that back, so that the variable holds what the function left in
 * it. Copies are small (a variable's bytes) and made with the device idle:
 * the launches around them may use any stream. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

typedef struct {
  CUdeviceptr variable; /* the bytes copied into, in the variable */
  size_t bytes;
  void *saved; /* device memory */
} Snapshot;

static Snapshot *take(CUdeviceptr variable, size_t bytes, const char *where) {
  Snapshot *s = kinase_rt_alloc(sizeof *s, where);
  *s = (Snapshot){variable, bytes, NULL};
  CHECK(where, cudaMalloc, &s->saved, bytes ? bytes : 1);
  CHECK(where, cudaDeviceSynchronize);
  CHECK(where, cudaMemcpy, s->saved, (const void *)(uintptr_t)variable, bytes, cudaMemcpyDeviceToDevice);
  CHECK(where, cudaDeviceSynchronize);
  return s;
}

static void put_back(const Snapshot *s, const char *where) {
  CHECK(where, cudaDeviceSynchronize);
  CHECK(where, cudaMemcpy, (void *)(uintptr_t)s->variable, s->saved, s->bytes, cudaMemcpyDeviceToDevice);
  CHECK(where, cudaDeviceSynchronize);
  CHECK(where, cudaFree, s->saved);
}

void *__kinase_symbol_snapshot(const void *stub, const char *name, size_t offset, size_t bytes,
                               const char *where) {
  CUdeviceptr variable;
  size_t size;
  kinase_rt_check_cu(cuModuleGetGlobal(&variable, &size, kinase_rt_kernel(stub, where)->module, name),
                     "cuModuleGetGlobal", where);
  if (offset > size || bytes > size - offset)
    kinase_rt_fail(where, "a copy of %zu bytes at offset %zu into __device__ variable '%s' of %zu bytes",
                   bytes, offset, name, size);
  return take(variable + offset, bytes, where);
}

static bool same_range(const void *final, const void *snapshot) {
  const Snapshot *a = final, *b = snapshot;
  return a->variable == b->variable && a->bytes == b->bytes;
}

void __kinase_symbol_restore(void *snapshot, const char *where) {
  Snapshot *s = snapshot;
  if (!kinase_rt_deferred_holds(KINASE_RESTORE_VARIABLE, same_range, s))
    __kinase_defer_release(KINASE_RESTORE_VARIABLE, take(s->variable, s->bytes, where), where);
  put_back(s, where);
  free(s);
}

void __kinase_symbol_discard(void *snapshot) {
  Snapshot *s = snapshot;
  CHECK("an exception unwinding through a request", cudaFree, s->saved);
  free(s);
}

void kinase_rt_restore_variable(void *final, const char *where) {
  put_back(final, where);
  free(final);
}
