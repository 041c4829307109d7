/* __device__ variables in differentiated host code. A kernel that writes
 * one has its shadow, __kinase_shadow_NAME, in the same device module
 * (the compiler's analysis/globals.c), into which its derivative kernels
 * add tangents or from which they read adjoints; copies from and to the
 * variable (cudaMemcpyFromSymbol, cudaMemcpyToSymbol) move them. The module
 * is found through a kernel of the file that defines the variable. */
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

void *__kinase_symbol_shadow(const void *stub, const char *name, size_t offset, const char *where) {
  const KinaseKernel *k = kinase_rt_kernel(stub, where);
  static const char prefix[] = "__kinase_shadow_";
  char *symbol = kinase_rt_alloc(sizeof prefix + strlen(name), where);
  memcpy(symbol, prefix, sizeof prefix - 1);
  strcpy(symbol + sizeof prefix - 1, name);
  CUdeviceptr address;
  size_t bytes;
  CUresult status = cuModuleGetGlobal(&address, &bytes, k->module, symbol);
  free(symbol);
  if (status == CUDA_ERROR_NOT_FOUND) /* no kernel writes it: its values carry no derivative */
    return NULL;
  kinase_rt_check_cu(status, "cuModuleGetGlobal", where);
  if (offset > bytes)
    kinase_rt_fail(where, "a copy at offset %zu of __device__ variable '%s' of %zu bytes", offset,
                   name, bytes);
  return (void *)(uintptr_t)(address + offset);
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
