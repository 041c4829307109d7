/* __device__ and __constant__ variables in differentiated host code. One
 * holding floats has its shadow, __kinase_shadow_NAME, in the same device module
 * (the compiler's analysis/globals.c), into which its derivative kernels
 * add tangents or from which they read adjoints; copies from and to the
 * variable (cudaMemcpyFromSymbol, cudaMemcpyToSymbol) move them. The module
 * is found through a kernel of the file that defines the variable. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

/* PREFIXNAME in `module`: its address and size, 0 where the module has
 * none (the variable holds no floats, or no device code leaves it alone). */
static CUdeviceptr module_global(CUmodule module, const char *prefix, const char *name, size_t *bytes,
                                 const char *where) {
  size_t length = strlen(prefix);
  char *symbol = kinase_rt_alloc(length + strlen(name) + 1, where);
  memcpy(symbol, prefix, length);
  strcpy(symbol + length, name);
  CUdeviceptr address;
  CUresult status = cuModuleGetGlobal(&address, bytes, module, symbol);
  free(symbol);
  if (status == CUDA_ERROR_NOT_FOUND)
    return 0;
  kinase_rt_check_cu(status, "cuModuleGetGlobal", where);
  return address;
}

/* __kinase_shadow_NAME in `module`. */
static CUdeviceptr module_shadow(CUmodule module, const char *name, size_t *bytes, const char *where) {
  return module_global(module, "__kinase_shadow_", name, bytes, where);
}

/* ---- live flags ----
 * A variable no device code writes (a __constant__ one) has a flag,
 * __kinase_live_NAME, behind which the derivative kernels add into its
 * shadow (the compiler's cuda/liveflag.c). It is set where the host moves
 * derivatives through the shadow, and cleared with the shadow at a
 * request's start; the runtime keeps which flags it set, so that clearing
 * one it never set costs nothing. */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static CUdeviceptr *live_flags;
static size_t nlive, live_capacity;

static CUdeviceptr live_flag(CUmodule module, const char *name, const char *where) {
  size_t bytes;
  return module_global(module, "__kinase_live_", name, &bytes, where);
}

/* Removes `flag` from the set flags; whether it was there. */
static bool take_live(CUdeviceptr flag) {
  for (size_t i = 0; i < nlive; i++)
    if (live_flags[i] == flag) {
      live_flags[i] = live_flags[--nlive];
      return true;
    }
  return false;
}

static void set_live(CUmodule module, const char *name, const char *where) {
  CUdeviceptr flag = live_flag(module, name, where);
  if (!flag)
    return;
  pthread_mutex_lock(&live_lock);
  bool set = take_live(flag);
  kinase_rt_reserve((void **)&live_flags, nlive, &live_capacity, sizeof *live_flags, where);
  live_flags[nlive++] = flag;
  pthread_mutex_unlock(&live_lock);
  if (!set) { /* a copy from pageable memory: done when it returns */
    const uint32_t one = 1;
    kinase_rt_check_cu(cuMemcpyHtoD(flag, &one, sizeof one), "cuMemcpyHtoD", where);
  }
}

void __kinase_symbol_live(const void *stub, const char *name, const char *where) {
  set_live(kinase_rt_kernel(stub, where)->module, name, where);
}

void *__kinase_symbol_shadow(const void *stub, const char *name, size_t offset, const char *where) {
  size_t bytes;
  CUmodule module = kinase_rt_kernel(stub, where)->module;
  CUdeviceptr address = module_shadow(module, name, &bytes, where);
  if (!address) /* it holds no floats: its values carry no derivative */
    return NULL;
  set_live(module, name, where);
  if (offset > bytes)
    kinase_rt_fail(where, "a copy at offset %zu of __device__ variable '%s' of %zu bytes", offset,
                   name, bytes);
  return (void *)(uintptr_t)(address + offset);
}

void __kinase_symbol_shadow_clear(const void *stub, const char *name, const char *where) {
  size_t bytes;
  CUmodule module = kinase_rt_kernel(stub, where)->module;
  CUdeviceptr address = module_shadow(module, name, &bytes, where);
  if (!address)
    return;
  CUdeviceptr flag = live_flag(module, name, where);
  pthread_mutex_lock(&live_lock);
  bool was_live = flag && take_live(flag);
  pthread_mutex_unlock(&live_lock);
  if (flag && !was_live) /* no kernel added to it since it was last cleared */
    return;
  /* before any stream of the request's runs: the whole device waits */
  CHECK(where, cudaDeviceSynchronize);
  CHECK(where, cudaMemset, (void *)(uintptr_t)address, 0, bytes);
  if (flag)
    CHECK(where, cudaMemset, (void *)(uintptr_t)flag, 0, sizeof(uint32_t));
  CHECK(where, cudaDeviceSynchronize);
}

void *__kinase_module_shadow(void *module, const char *name, const char *where) {
  size_t bytes;
  CUdeviceptr address = module_shadow(module, name, &bytes, where);
  if (address)
    set_live(module, name, where);
  return (void *)(uintptr_t)address;
}

/* ---- shadows of variables reached through their addresses ---- */

/* A variable whose address was taken (`bytes` from `primal` on), with the
 * runtime's shadow of it (kept for the program's life: the variable's is)
 * and how many takings have not been released. */
typedef struct {
  CUdeviceptr primal;
  size_t bytes;
  char *shadow;
  unsigned takings;
} VariableShadow;

static pthread_mutex_t variables_lock = PTHREAD_MUTEX_INITIALIZER;
static VariableShadow *variables;
static size_t nvariables;

void *__kinase_variable_shadow(const void *primal, void *module_shadow, const char *where) {
  if (module_shadow) /* what the kernels that write it by name add into */
    return module_shadow;
  CUdeviceptr base;
  size_t bytes;
  if (!kinase_rt_allocation_of(primal, &base, &bytes))
    kinase_rt_fail(where, "the address of a __device__ variable that the CUDA driver does not know");
  pthread_mutex_lock(&variables_lock);
  VariableShadow *v = NULL;
  for (size_t i = 0; i < nvariables && !v; i++)
    if (variables[i].primal == base)
      v = &variables[i];
  if (!v) {
    variables = realloc(variables, (nvariables + 1) * sizeof *variables);
    if (!variables)
      kinase_rt_fail(where, "out of host memory");
    v = &variables[nvariables++];
    *v = (VariableShadow){.primal = base, .bytes = bytes};
    CHECK(where, cudaMalloc, (void **)&v->shadow, bytes);
  }
  /* Taken afresh, it starts from zero: what an earlier derivative left in
   * it is not this one's. */
  if (v->takings++ == 0)
    CHECK(where, cudaMemset, v->shadow, 0, bytes);
  void *shadow = v->shadow + ((CUdeviceptr)primal - base);
  pthread_mutex_unlock(&variables_lock);
  return shadow;
}

void __kinase_variable_shadow_release(void *shadow, const char *where) {
  (void)where;
  char *at = shadow;
  pthread_mutex_lock(&variables_lock);
  for (size_t i = 0; i < nvariables; i++) {
    VariableShadow *v = &variables[i];
    if (at >= v->shadow && at < v->shadow + v->bytes && v->takings)
      v->takings--;
  }
  pthread_mutex_unlock(&variables_lock);
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
