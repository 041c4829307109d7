/* __device__ and __constant__ variables in differentiated host code. One
 * holding floats has its shadow, __kinase_shadow_NAME, in the same device module
 * (the compiler's analysis/globals.c), into which its derivative kernels
 * add tangents or from which they read adjoints; copies from and to the
 * variable (cudaMemcpyFromSymbol, cudaMemcpyToSymbol) move them. The module
 * is found through a kernel of the file that defines the variable. */
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* The shadow of variable `name` in the module of the file's kernel `stub`:
 * false where it has none (its values carry no derivative). */
static bool find_shadow(const void *stub, const char *name, CUdeviceptr *address, size_t *bytes,
                        const char *where) {
  const KinaseKernel *k = kinase_rt_kernel(stub, where);
  static const char prefix[] = "__kinase_shadow_";
  char *symbol = kinase_rt_alloc(sizeof prefix + strlen(name), where);
  memcpy(symbol, prefix, sizeof prefix - 1);
  strcpy(symbol + sizeof prefix - 1, name);
  CUresult status = cuModuleGetGlobal(address, bytes, k->module, symbol);
  free(symbol);
  if (status == CUDA_ERROR_NOT_FOUND)
    return false;
  kinase_rt_check_cu(status, "cuModuleGetGlobal", where);
  return true;
}

void *__kinase_symbol_shadow(const void *stub, const char *name, size_t offset, const char *where) {
  CUdeviceptr address;
  size_t bytes;
  if (!find_shadow(stub, name, &address, &bytes, where))
    return NULL;
  if (offset > bytes)
    kinase_rt_fail(where, "a copy at offset %zu of __device__ variable '%s' of %zu bytes", offset,
                   name, bytes);
  return (void *)(uintptr_t)(address + offset);
}

void __kinase_symbol_shadow_clear(const void *stub, const char *name, const char *where) {
  CUdeviceptr address;
  size_t bytes;
  if (!find_shadow(stub, name, &address, &bytes, where))
    return;
  /* before any stream of the request's runs: the whole device waits */
  CHECK(where, cudaDeviceSynchronize);
  CHECK(where, cudaMemset, (void *)(uintptr_t)address, 0, bytes);
  CHECK(where, cudaDeviceSynchronize);
}

void __kinase_copy_tangent(void *tdst, const void *tsrc, size_t bytes, void *stream,
                           const char *where) {
  if (!tdst || bytes == 0)
    return;
  cudaStream_t s = stream;
  if (tsrc)
    CHECK(where, cudaMemcpyAsync, tdst, tsrc, bytes, cudaMemcpyDefault, s);
  else if (!kinase_rt_host_visible(tdst))
    CHECK(where, cudaMemsetAsync, tdst, 0, bytes, s);
  CHECK(where, cudaStreamSynchronize, s);
  if (!tsrc && kinase_rt_host_visible(tdst))
    memset(tdst, 0, bytes);
}
