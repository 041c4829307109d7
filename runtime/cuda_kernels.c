/* The kernel behind a launch, and its derivative kernels: the launched
 * function's module holds __kinase_kinfo_NAME (or __kinase_kwhy_NAME) and
 * __kinase_krev_PAT_NAME / __kinase_kfwd_PAT_NAME (see kinase_cuda.h). What
 * is read of a kernel is kept in a table, one entry per function handle. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static KinaseKernel **table;
static size_t table_count, table_capacity;

static char *copy_string(const char *s, const char *where) {
  size_t n = strlen(s) + 1;
  return memcpy(kinase_rt_alloc(n, where), s, n);
}

/* The bytes of the device global <prefix><name> of `module`, followed by a
 * NUL; NULL if the module has no such global. */
static void *read_global(CUmodule module, const char *prefix, const char *name, size_t *bytes,
                         const char *where) {
  size_t symbol_bytes = strlen(prefix) + strlen(name) + 1;
  char *symbol = kinase_rt_alloc(symbol_bytes, where);
  snprintf(symbol, symbol_bytes, "%s%s", prefix, name);
  CUdeviceptr address;
  CUresult status = cuModuleGetGlobal(&address, bytes, module, symbol);
  free(symbol);
  if (status == CUDA_ERROR_NOT_FOUND)
    return NULL;
  kinase_rt_check_cu(status, "cuModuleGetGlobal", where);
  char *data = kinase_rt_alloc(*bytes + 1, where);
  CHECK(where, cuMemcpyDtoH, data, address, *bytes);
  return data;
}

static KinaseKernel *read_kernel(CUfunction function, const char *where) {
  KinaseKernel *k = kinase_rt_alloc(sizeof *k, where);
  const char *name;
  k->function = function;
  CHECK(where, cuFuncGetName, &name, function);
  CHECK(where, cuFuncGetModule, &k->module, function);
  k->name = copy_string(name, where);
  k->display = kinase_rt_demangle(name);
  if (!k->display)
    kinase_rt_fail(where, "out of host memory");

  size_t bytes;
  KinaseKernelInfo *info = read_global(k->module, "__kinase_kinfo_", k->name, &bytes, where);
  if (info) {
    if (bytes < sizeof *info || info->magic != KINASE_KERNEL_INFO_MAGIC ||
        (bytes - sizeof *info) / sizeof(uint32_t) < info->nparams)
      kinase_rt_fail(where, "kernel '%s' has a malformed __kinase_kinfo_%s", k->display, k->name);
    k->nparams = info->nparams;
    k->flags = info->flags;
    size_t words = (bytes - sizeof *info) / sizeof(uint32_t);
    k->params = kinase_rt_alloc(words * sizeof *k->params + 1, where);
    memcpy(k->params, info + 1, words * sizeof *k->params);
    free(info);
  }
  k->why = read_global(k->module, "__kinase_kwhy_", k->name, &bytes, where);
  return k;
}

const KinaseKernel *kinase_rt_kernel(const void *stub, const char *where) {
  cudaFunction_t function;
  CHECK(where, cudaGetFuncBySymbol, &function, stub);
  return kinase_rt_kernel_of((CUfunction)function, where);
}

const KinaseKernel *kinase_rt_kernel_of(CUfunction f, const char *where) {
  pthread_mutex_lock(&table_lock);
  for (size_t i = 0; i < table_count; i++) {
    if (table[i]->function == f) {
      KinaseKernel *k = table[i];
      pthread_mutex_unlock(&table_lock);
      return k;
    }
  }
  if (table_count == table_capacity) {
    table_capacity = table_capacity ? 2 * table_capacity : 16;
    table = realloc(table, table_capacity * sizeof *table);
    if (!table)
      kinase_rt_fail(where, "out of host memory");
  }
  KinaseKernel *k = read_kernel(f, where);
  table[table_count++] = k;
  pthread_mutex_unlock(&table_lock);
  return k;
}

/* Whether each letter of modes fits its parameter. */
static bool modes_fit(const KinaseKernel *k, const char *modes) {
  if (strlen(modes) != k->nparams)
    return false;
  for (uint32_t i = 0; i < k->nparams; i++) {
    bool fits = modes[i] == 'c' ||
                ((modes[i] == 'd' || modes[i] == 'n') && (k->params[i] & KINASE_PARAM_POINTER)) ||
                (modes[i] == 'd' && (k->params[i] & KINASE_PARAM_STRUCT)) ||
                (modes[i] == 'o' && (k->params[i] & KINASE_PARAM_FLOAT));
    if (!fits)
      return false;
  }
  return true;
}

static _Noreturn void no_derivatives(const KinaseKernel *k, const char *where) {
  if (k->why)
    kinase_rt_fail(where, "kernel '%s' cannot be differentiated: %s", k->display, k->why);
  kinase_rt_fail(where, "kernel '%s' has no derivative kernels: compile it with kinase-cc",
                 k->display);
}

CUfunction kinase_rt_derivative(const KinaseKernel *k, const char *kind, const char *modes,
                                void **shadows, const char *where) {
  if (!k->params)
    no_derivatives(k, where);
  if (!modes_fit(k, modes))
    kinase_rt_fail(where, "kernel '%s': activity \"%s\" does not fit its %u parameters", k->display,
                   modes, k->nparams);

  char *symbol = kinase_rt_derivative_name(k, kind, modes, shadows);
  if (!symbol)
    kinase_rt_fail(where, "out of host memory");
  CUfunction f;
  CUresult status = cuModuleGetFunction(&f, k->module, symbol);
  if (status == CUDA_ERROR_NOT_FOUND) {
    if (k->why)
      no_derivatives(k, where);
    /* PAT lies between "__kinase_<kind>_" and "_NAME". */
    size_t from = strlen("__kinase__") + strlen(kind), to = strlen(symbol) - strlen(k->name) - 1;
    const char *pattern = to > from ? symbol + from : "(no pointers)";
    int length = to > from ? (int)(to - from) : (int)strlen(pattern);
    kinase_rt_fail(where, "kernel '%s' has no derivative kernel for activity %.*s", k->display, length,
                   pattern);
  }
  free(symbol);
  kinase_rt_check_cu(status, "cuModuleGetFunction", where);
  return f;
}
